"""NoFunEdit scoring: the ``nofuneval-edit`` evaluator and what it computes.

``evaluator`` (DiffBLEU, and on runtime-efficiency rows correctness and speed-up),
``diffbleu``, ``runtime`` (running and timing programs on CodeNet cases), ``speedup``,
``program_times`` (timings kept in a run's folder), ``samples`` (score@k,n) and
``runtime_columns`` (Table 1's runtime columns from stored results).
"""
