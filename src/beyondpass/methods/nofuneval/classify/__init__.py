"""NoFunClassify: reading the model's choice (``choices``) and the ``nofuneval-classify``
evaluator (``evaluator``)."""
