"""NoFunEval's static oracle: CodeQL when installed, else open analysers mapped per query.

``table`` maps CodeQL queries to analyser rules, ``analysers`` runs bandit/pylint/cppcheck
and the compiler, ``codeql`` drives the CodeQL CLI, ``check`` turns findings into
verdicts, ``evaluator`` is the ``nofuneval-oracle`` evaluator of study runs. See
docs/nofuneval-oracles.md.
"""
