"""Runtime efficiency (NoFunEval's Python rows): correctness on CodeNet cases and speed-up.

Programs run only through beyondpass's sandboxed executor, as I/O tests (stdin in, stdout
compared by the judge; a crash or a non-zero exit fails). Output comparison:

- default: outputs whose expected tokens are all integers are compared as whitespace-
  normalised text (``2.0`` is not ``2``); others token by token with
  ``abs_tol = rel_tol = 1e-6`` (the usual CodeNet/AtCoder judge tolerance);
- compat (NoFunEval's PIE harness): numbers within an absolute 1e-3 on every line. The
  authors also ignore extra lines and the exit code; the executor's judge does not offer
  that, so compat here is stricter there (docs/nofuneval.md).

Speed-up of one edit: 1.0 when the edit is incorrect or not significantly faster; else
``mean(source) / mean(edit)`` when a one-sided Welch test (edit faster) gives p < 0.05, with
the real numbers of observations (the authors hard-code 25). Timing needs per-case times
from the executor's I/O tests, which it does not report yet: :func:`speedup` is the metric
on given times, and ``nofuneval score`` reports correctness only (docs/nofuneval.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import mean
from typing import Any

from beyondpass.benchmarks.task import OutputComparison, Task, TestCase

DEFAULT_TOL = 1e-6
AUTHORS_TOL = 1e-3
_INT = re.compile(r"[+-]?\d+")


def comparison(expected: str, compat: bool) -> OutputComparison:
    if compat:
        return OutputComparison("numeric", abs_tol=AUTHORS_TOL)
    if all(_INT.fullmatch(tok) for tok in expected.split()):
        return OutputComparison("whitespace")
    return OutputComparison("numeric", abs_tol=DEFAULT_TOL, rel_tol=DEFAULT_TOL)


def cases(task: Task, compat: bool) -> tuple[TestCase, ...]:
    """The task's CodeNet cases with the chosen output comparison."""
    return tuple(
        replace(t, compare=comparison(t.expected_stdout or "", compat)) for t in task.tests
    )


@dataclass(frozen=True)
class Correctness:
    correct: bool
    status: str
    message: str = ""


def check_programs(
    items: Sequence[tuple[Task, str]],
    executor: Any,
    compat: bool = False,
    timeout_s: float = 10.0,
) -> list[Correctness]:
    """Run each (task, program) on the task's cases in the executor; all must pass."""
    from beyondpass.execution import ExecutionLimits, ExecutionRequest

    requests = [
        ExecutionRequest(
            program=program,
            tests=cases(task, compat),
            limits=ExecutionLimits(timeout_s=timeout_s * max(1, len(task.tests))),
        )
        for task, program in items
    ]
    results = executor.run_many(requests)
    return [Correctness(r.passed, str(r.status), r.message) for r in results]


def speedup(
    source_times: Sequence[float],
    edit_times: Sequence[float],
    correct: bool,
    alpha: float = 0.05,
) -> tuple[float, bool]:
    """(speed-up, improved): mean ratio when the edit is correct and significantly faster."""
    from scipy.stats import ttest_ind

    if not correct or len(source_times) < 2 or len(edit_times) < 2:
        return 1.0, False
    m_src, m_edit = mean(source_times), mean(edit_times)
    if m_edit <= 0:
        return 1.0, False
    p = ttest_ind(edit_times, source_times, equal_var=False, alternative="less").pvalue
    if p < alpha and m_edit < m_src:
        return m_src / m_edit, True
    return 1.0, False
