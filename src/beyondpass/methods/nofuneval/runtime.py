"""Runtime efficiency (NoFunEval's Python rows): correctness on CodeNet cases and speed-up.

Programs run only through beyondpass's sandboxed executor, as I/O tests (stdin in, stdout
compared by the judge; a crash or a non-zero exit fails). Output comparison:

- default: outputs whose expected tokens are all integers are compared as whitespace-
  normalised text (``2.0`` is not ``2``); others token by token with
  ``abs_tol = rel_tol = 1e-6`` (the usual CodeNet/AtCoder judge tolerance);
- compat (NoFunEval's PIE harness): numbers within an absolute 1e-3 on every line, the
  exit status ignored and output lines past the expected ones ignored — the program runs
  inside a wrapper (:func:`lenient_program`) that catches its exception or exit and
  passes on only as many lines as the case's expected output has, so a program that
  crashes, or prints more, after the right answer is correct, as there (docs/nofuneval.md).

Timing (:func:`measure_programs`): every case runs ``runs`` more times once all passed,
each in a fresh sandboxed process; by default the run's CPU time (user + system of the
process and all it started, sandbox set-up excluded, measured by the trusted side:
execution/io_timing.py), in compat the wall-clock time around the run, as the authors time
it. The pooled per-run times of all cases are one program's observations. Speed-up of an
edit (:func:`speedup`): 1.0 when the edit is incorrect or not significantly faster; else
``mean(source) / mean(edit)`` when a one-sided Welch test (edit faster) gives p < 0.05,
with the real numbers of observations (the authors hard-code 25).
"""

from __future__ import annotations

import hashlib
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


#: How a run is timed, recorded with every result.
TIMING_METHODS = {
    "cpu": "CPU time (user + system) of the run's process and every process it started, "
    "from the kernel's accounting collected by the sandbox's fork server, minus the "
    "process's own set-up before the program's source is compiled (no interpreter "
    "start-up: the process is a fork of a warm interpreter)",
    "wall": "wall-clock time in the sandbox's judge from handing the program its input "
    "until its process ended (NoFunEval's method: a clock around the run)",
}


@dataclass(frozen=True)
class Measurement:
    """One program on one row's cases: the verdict, and the pooled times of its timing
    runs in seconds (every case's runs; empty when not timed or timing failed)."""

    correct: bool
    status: str
    message: str = ""
    times_s: tuple[float, ...] = ()
    timing_error: str = ""


def expected_lines(task: Task) -> dict[str, int]:
    """sha256 of each case's stdin -> how many lines its expected output has, as NoFunEval
    counts them (``expected.strip().splitlines()``): what :func:`lenient_program` lets out."""
    out: dict[str, int] = {}
    for t in task.tests:
        key = hashlib.sha256((t.stdin or "").encode("utf-8")).hexdigest()
        out[key] = len((t.expected_stdout or "").strip().splitlines())
    return out


#: The compat wrapper's stdout: everything up to the case's last expected line (leading
#: whitespace dropped, as the authors strip the output) goes through; the rest is dropped.
#: It is found by the sha256 of the case's stdin, read with ``pread`` from the sandbox's
#: in-memory stdin file without moving its offset (so ``input()``, ``sys.stdin`` and
#: ``open(0)`` read it whole). ``sys.stdout.buffer`` is limited too; raw ``os.write(1, ...)``
#: is not (its extra lines then fail: never a pass the authors' harness would not give).
#: The sandbox flushes only the streams it made, so the wrapper flushes its own at the end.
_LIMITED_STDOUT = """import hashlib as _bp_hashlib, io as _bp_io, os as _bp_os, sys as _bp_sys


class _BpLines(_bp_io.RawIOBase):
    def __init__(self, fd, left):
        self.fd, self.left, self.started = fd, left, False

    def writable(self):
        return True

    def write(self, b):
        data = bytes(b)
        if not self.started:
            kept = data.lstrip()
            self.started = bool(kept)
        else:
            kept = data
        if self.left <= 0 or not kept:
            return len(data)
        cut = -1
        for _ in range(self.left):
            cut = kept.find(b"\\n", cut + 1)
            if cut < 0:
                break
            self.left -= 1
        if cut >= 0 and self.left == 0:
            kept = kept[: cut + 1]
        while kept:
            kept = kept[_bp_os.write(self.fd, kept):]
        return len(data)


_bp_out = None


def _bp_flush():
    if _bp_out is not None:
        try:
            _bp_out.flush()
        except Exception:
            pass


def _bp_limit_stdout(limits):
    global _bp_out
    try:
        size = _bp_os.fstat(0).st_size
        data = _bp_os.pread(0, size, 0) if size else b""
    except OSError:
        return
    left = limits.get(_bp_hashlib.sha256(data).hexdigest())
    if left is None:
        return
    old = _bp_sys.stdout
    old.flush()
    _bp_sys.stdout = _bp_out = _bp_io.TextIOWrapper(
        _bp_io.BufferedWriter(_BpLines(old.fileno(), left)),
        encoding=old.encoding,
        errors=old.errors,
    )
"""


def lenient_program(program: str, lines: dict[str, int] | None = None) -> str:
    """The program inside a wrapper that ignores how it ends (an exception, ``exit(n)``)
    and, given ``lines`` (:func:`expected_lines`), output past the expected lines:
    NoFunEval's harness judges only those lines. Used in compat mode alone."""
    limit = "" if lines is None else _LIMITED_STDOUT + f"_bp_limit_stdout({lines!r})\n"
    return (
        limit + f"_bp_source = {program!r}\n"
        "try:\n"
        "    exec(compile(_bp_source, 'main.py', 'exec'), {'__name__': '__main__'})\n"
        "except BaseException:\n"
        "    import traceback as _bp_traceback\n"
        "    _bp_traceback.print_exc()\n" + ("_bp_flush()\n" if lines is not None else "")
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
    case (CPU time; compat: wall-clock time, the exit status and extra lines ignored).
    ``on_result(i, measurement)`` fires as each program finishes."""
    from beyondpass.execution import ExecutionLimits, ExecutionRequest

    requests = [
        ExecutionRequest(
            program=lenient_program(program, expected_lines(task)) if compat else program,
            tests=cases(task, compat),
            limits=ExecutionLimits(timeout_s=timeout_s * max(1, len(task.tests))),
            timing_repeats=runs,
            io_timing=runs > 0,
        )
        for task, program in items
    ]

    def measured(r: Any) -> Measurement:
        times: tuple[float, ...] = ()
        if r.passed and runs > 0:
            times = tuple(
                ns / 1e9 for t in r.tests for ns in (t.times_wall_ns if compat else t.times_ns)
            )
        error = r.timing_error or ("" if times or not r.passed or runs == 0 else "no times")
        return Measurement(r.passed, str(r.status), r.message, times, error)

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
