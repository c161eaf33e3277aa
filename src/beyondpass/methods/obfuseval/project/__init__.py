"""Project-level ObfusEval: regenerate functions of a real project and run its own tests.

``spec`` reads a project description, ``workspace`` makes scratch copies and runs commands
in them in the sandbox, ``coverage_map`` finds the tests that cover each line, ``tasks``
picks covered functions and builds prompts (optionally renamed), ``splice`` puts a model's
function into a copy, ``testing`` runs the covering tests repeatedly and classifies
failures, ``runner`` ties one run together, ``cli`` is the command line.
"""

#: the names project mode is known by in a run (kept here, away from libcst and the sandbox,
#: so that the report can tell a project run without importing them)
BENCHMARK = "obfuseval-project"
EVALUATOR = "obfuseval-project"
ORIGINAL, OBFUSCATED = "original", "obfuscated"
