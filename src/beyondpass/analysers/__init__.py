"""Running static analysers: the one place every method runs pylint, ruff, bandit,
cppcheck, clang-tidy, checkstyle and the compilers' syntax check.

This layer owns the process (command, working directory, input files), its wall-clock and
memory limits, confinement, the tool's version and the exact arguments recorded with the
results, a missing tool as one line naming what to install, and a timeout or crash as a
clear error. Methods keep only their own concern: which rules run and how findings map to
their metrics. Generic: imports no method.
"""

from __future__ import annotations

from beyondpass.analysers.process import (
    Analyser,
    AnalyserFailed,
    AnalyserMissing,
    Completed,
    confinement,
    require,
    run_process,
    version,
)
from beyondpass.analysers.pylint_batch import PylintMessage, category_of, pylintrc
from beyondpass.analysers.pylint_pool import PylintPool, PylintResult, lint, lint_record

__all__ = [
    "Analyser",
    "AnalyserFailed",
    "AnalyserMissing",
    "Completed",
    "PylintMessage",
    "PylintPool",
    "PylintResult",
    "category_of",
    "confinement",
    "lint",
    "lint_record",
    "pylintrc",
    "require",
    "run_process",
    "version",
]
