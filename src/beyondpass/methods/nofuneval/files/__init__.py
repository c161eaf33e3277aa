"""The answers files of ``nofuneval score``: the ``nofuneval-generations`` kind
(``answer_file``), the reader of its lines (``generations``) and the ``scores.jsonl`` /
``summary.json`` exports (``exports``)."""
