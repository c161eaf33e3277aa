"""Runtime efficiency (NoFunEval's Python rows): correctness on CodeNet cases and speed-up.

Programs run only through beyondpass's sandboxed executor, as I/O tests (stdin in, stdout
compared by the judge; a crash or a non-zero exit fails). Output comparison:

- default: outputs whose expected tokens are all integers are compared as whitespace-
  normalised text (``2.0`` is not ``2``); others token by token with
  ``abs_tol = rel_tol = 1e-6`` (the usual CodeNet/AtCoder judge tolerance);
- compat (NoFunEval's PIE harness): the judge's ``pie_lines`` comparison, their
  ``get_accuracy`` line rule (a line equal as text, or a number within an absolute 1e-3,
  strictly; output lines past the expected ones ignored), and the exit status ignored —
  the program runs inside a wrapper (:func:`lenient_program`) that catches its exception
  or exit, so a program that crashes after the right answer is correct, as there
  (docs/nofuneval.md).

Timing (:func:`measure_programs`): every case runs ``runs`` more times once all passed,
each in a fresh sandboxed process; by default the run's CPU time (user + system of the
process and all it started, sandbox set-up excluded, measured by the trusted side:
execution/io_timing.py), in compat the wall-clock time around the run, as the authors time
it. Each measurement records the node and CPU model that ran it (on Ray, a timed batch
holds one whole CPU per program it times at once). The pooled per-run times of all cases
are one program's observations. Speed-up of an edit (:func:`speedup`): 1.0 when the
edit is incorrect or not significantly faster; else ``mean(source) / mean(edit)`` when a
one-sided Welch test (edit faster) gives p < 0.05, with the real numbers of observations
(the authors hard-code 25).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from statistics import mean
from typing import Any

from beyondpass.benchmarks.task import OutputComparison, Task, TestCase

DEFAULT_TOL = 1e-6
AUTHORS_TOL = 1e-3
_INT = re.compile(r"[+-]?\d+")


def comparison(expected: str, compat: bool) -> OutputComparison:
    if compat:
        return OutputComparison("pie_lines", abs_tol=AUTHORS_TOL)
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


#: How a run is timed, recorded with every result.
TIMING_METHODS = {
    "cpu": "CPU time (user + system) of the run's process and every process it started, "
    "from the kernel's accounting collected by the sandbox's fork server, minus the "
    "process's own set-up before the program's source is compiled (no interpreter "
    "start-up: the process is a fork of a warm interpreter)",
    "wall": "wall-clock time in the sandbox's judge from handing the program its input "
    "until its process ended (NoFunEval's method: a clock around the run)",
}


#: The time limit of a program's runs, recorded with every result.
TIME_LIMITS = {
    False: "10 s per case, summed over the row's cases (one slow case may use the rest)",
    True: "10 s for each run of a case, as NoFunEval's harness stops a run (scored wrong)",
}


@dataclass(frozen=True)
class Measurement:
    """One program on one row's cases: the verdict, the pooled times of its timing runs
    in seconds (every case's runs; empty when not timed or timing failed), and the node and
    CPU model that ran it (times of different nodes are not compared: speedup.py)."""

    correct: bool
    status: str
    message: str = ""
    times_s: tuple[float, ...] = ()
    timing_error: str = ""
    node: str = ""
    cpu_model: str = ""


def lenient_program(program: str) -> str:
    """The program inside a wrapper that ignores how it ends (an exception, ``exit(n)``):
    NoFunEval's harness never looks at the exit status. Used in compat mode alone."""
    return (
        f"_bp_source = {program!r}\n"
        "try:\n"
        "    exec(compile(_bp_source, 'main.py', 'exec'), {'__name__': '__main__'})\n"
        "except BaseException:\n"
        "    import traceback as _bp_traceback\n"
        "    _bp_traceback.print_exc()\n"
    )


def measure_programs(
    items: Sequence[tuple[Task, str]],
    executor: Any,
    compat: bool = False,
    runs: int = 25,
    timeout_s: float = 10.0,
    on_result: Callable[[int, Measurement], None] | None = None,
) -> list[Measurement]:
    """Run each (task, program) on the task's cases; when all pass, ``runs`` timed runs per
    case (CPU time; compat: wall-clock time, the exit status ignored). Time limit
    (:data:`TIME_LIMITS`): ``timeout_s`` per case, summed over the task's cases; in compat
    also ``timeout_s`` for each single run, as the authors' harness stops a run.
    ``on_result(i, measurement)`` fires as each program finishes."""
    from beyondpass.execution import ExecutionLimits, ExecutionRequest, cpu_model, node_name

    requests = [
        ExecutionRequest(
            program=lenient_program(program) if compat else program,
            tests=cases(task, compat),
            limits=ExecutionLimits(
                timeout_s=timeout_s * max(1, len(task.tests)),
                test_timeout_s=timeout_s if compat else None,
            ),
            timing_repeats=runs,
            io_timing=runs > 0,
        )
        for task, program in items
    ]

    here = {"node": node_name(), "cpu_model": cpu_model()}  # a local executor's results

    def measured(r: Any) -> Measurement:
        times: tuple[float, ...] = ()
        if r.passed and runs > 0:
            times = tuple(
                ns / 1e9 for t in r.tests for ns in (t.times_wall_ns if compat else t.times_ns)
            )
        error = r.timing_error or ("" if times or not r.passed or runs == 0 else "no times")
        where = getattr(r, "ran_on", None) or here
        node, cpu = str(where.get("node", "")), str(where.get("cpu_model", ""))
        return Measurement(r.passed, str(r.status), r.message, times, error, node, cpu)

    def done(i: int, r: Any) -> None:
        if on_result is not None:
            on_result(i, measured(r))

    return [measured(r) for r in executor.run_many(requests, on_result=done)]


def check_programs(
    items: Sequence[tuple[Task, str]],
    executor: Any,
    compat: bool = False,
    timeout_s: float = 10.0,
) -> list[Correctness]:
    """Run each (task, program) on the task's cases in the executor; all must pass."""
    found = measure_programs(items, executor, compat, runs=0, timeout_s=timeout_s)
    return [Correctness(m.correct, m.status, m.message) for m in found]


ALPHA = 0.05


def welch_faster(source_times: Sequence[float], edit_times: Sequence[float]) -> float:
    """p-value of a one-sided Welch t-test that the edit's mean time is below the
    source's, on the real numbers of observations (NaN when it cannot be computed: fewer
    than two observations, or no variance on either side)."""
    from scipy.stats import ttest_ind

    if len(source_times) < 2 or len(edit_times) < 2:
        return math.nan
    result = ttest_ind(edit_times, source_times, equal_var=False, alternative="less")
    return float(result.pvalue)


def speedup(
    source_times: Sequence[float],
    edit_times: Sequence[float],
    correct: bool,
    alpha: float = ALPHA,
) -> tuple[float, bool]:
    """(speed-up, improved): mean ratio when the edit is correct and significantly faster."""
    if not correct or len(source_times) < 2 or len(edit_times) < 2:
        return 1.0, False
    m_src, m_edit = mean(source_times), mean(edit_times)
    if m_edit <= 0:
        return 1.0, False
    p = welch_faster(source_times, edit_times)
    if p < alpha and m_edit < m_src:
        return m_src / m_edit, True
    return 1.0, False
