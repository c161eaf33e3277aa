"""The executor seam: what to run, under which limits, and what came back.

Evaluators never start processes themselves; they hand an :class:`ExecutionRequest` to an
:class:`Executor`. That keeps isolation and speed (process pools, sandboxes, Ray) a property
of the executor, swappable without touching any metric.
"""

from __future__ import annotations

import statistics
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from beyondpass.benchmarks.task import FunctionCall, TestCase


class Status(StrEnum):
    """Verdict of one sample. Only ``passed`` counts towards pass@k."""

    PASSED = "passed"
    FAILED = "failed"  # a test's assertion failed, or an I/O test's output differed
    ERROR = "error"  # the code raised (or exited) instead of returning
    TIMEOUT = "timeout"  # wall-clock or CPU limit
    NO_CODE = "no_code"  # the answer holds no code (e.g. instructions instead)
    SYNTAX_ERROR = "syntax_error"  # code found but does not compile (found by extraction)
    COMPILE_ERROR = "compile_error"  # the executor's compile step rejected the program
    MEMORY = "memory"  # memory limit hit
    OUTPUT_LIMIT = "output_limit"  # wrote more output than allowed
    KILLED = "killed"  # died from a signal (segfault, abort, ...)


@dataclass(frozen=True)
class ExecutionLimits:
    """Per-sample resource limits; ``test_timeout_s`` also bounds each single test."""

    timeout_s: float = 10.0
    memory_mb: int = 2048
    output_bytes: int = 1 << 20
    file_size_mb: int = 16
    test_timeout_s: float | None = None


@dataclass(frozen=True)
class CompileStep:
    """How a compiled language builds its program: once per program, before any test.

    ``command`` is an argv run in the sample's scratch directory after the program was
    written to ``source_name`` there (e.g. ``("g++", "-O2", "-o", "main", "main.cpp")``);
    a non-zero exit is ``compile_error`` with the compiler's output as the message. Python
    has none: its compile step is the executor's ``compile()`` of the program.
    """

    command: tuple[str, ...]
    source_name: str
    timeout_s: float = 60.0
    memory_mb: int = 2048


@dataclass(frozen=True)
class Launcher:
    """How a compiled program is started for its I/O tests (``execution/languages.py``).

    ``command`` is an argv; ``{build}`` in it stands for the directory the compile step
    wrote to and ``{runner}`` for the directory of the trusted runner sources. With
    ``cases_per_process`` 1 every test gets a fresh process (stdin, exit status and output
    as for Python); above 1 the command starts a driver (the Java batch runner) that
    takes up to that many tests, one at a time, from the judge's channel. The program's
    own memory is bounded inside the runtime (Java: ``-Xmx``).
    """

    command: tuple[str, ...]
    cases_per_process: int = 1
    # address space the runtime reserves beyond the program's memory (a JVM maps code
    # cache, class space and thread stacks up front): added to the limit for its processes
    memory_headroom_mb: int = 0
    #: the trusted runner the command starts, when the judge must speak its protocol
    #: (``python-function``: answers bound to their case by a nonce); "" for a program
    runner: str = ""


@dataclass(frozen=True)
class ExecutionRequest:
    """One program and the tests to run against it: the one request of every language.

    ``tests`` are call-style (``TestCase.code``, run by the judge against the program's
    functions) or I/O (``TestCase.stdin``/``expected_stdout``: the whole program runs once
    per test, its output compared by the judge); one kind per request. ``compile`` is the
    build step of a compiled language (``None`` for Python) and ``launcher`` how its
    program starts (:mod:`beyondpass.execution.languages` builds both). ``timing_repeats`` > 0
    re-runs each passing call-style test that many times and reports the durations, for
    the performance NFR. ``io_timing`` asks the same of I/O tests (Python programs): each
    test runs that many more times, each run's CPU time (``TestResult.times_ns``) and
    wall-clock time (``times_wall_ns``) measured by the trusted side (execution/io_timing.py).
    """

    program: str
    tests: Sequence[TestCase]
    language: str = "python"
    test_setup: str = ""
    limits: ExecutionLimits = field(default_factory=ExecutionLimits)
    timing_repeats: int = 0
    compile: CompileStep | None = None
    launcher: Launcher | None = None
    io_timing: bool = False
    #: function mode: the function the trusted runner calls on each I/O test (languages.py
    #: builds the compile step and launcher that go with it)
    function: FunctionCall | None = None

    def __post_init__(self) -> None:
        if len({t.is_io for t in self.tests}) > 1:
            raise ValueError("a request holds call-style tests or I/O tests, not both")

    @property
    def io(self) -> bool:
        """Whether the tests are I/O tests (stdin in, stdout compared)."""
        return bool(self.tests) and self.tests[0].is_io

    @property
    def budget_s(self) -> float:
        """Wall time the sample may take in all: its limit for the runs that decide the
        verdict, and as much again for each timing run (the judge's sample_budget_s)."""
        return self.limits.timeout_s * (1 + self.timing_repeats)


@dataclass
class TestResult:
    __test__ = False

    name: str
    status: Status
    error_type: str = ""
    message: str = ""
    times_ns: list[int] = field(default_factory=list)
    # the same timing repeats in reference units: each call's time over the time of a fixed
    # workload measured around it (call_timing.py); steady where wall-clock time is not
    times_ref: list[float] = field(default_factory=list)
    # timed I/O runs: each run's wall-clock time (times_ns holds their CPU time)
    times_wall_ns: list[int] = field(default_factory=list)
    # I/O tests: how the output was compared (OutputComparison.as_dict) and the exit status
    compare: dict[str, Any] = field(default_factory=dict)
    exit_code: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": str(self.status)}
        if self.error_type:
            out["error_type"] = self.error_type
        if self.message:
            out["message"] = self.message
        if self.compare:
            out["compare"] = self.compare
            out["exit_code"] = self.exit_code
        if self.times_ns:
            out["times_ns"] = self.times_ns
            out["time_mean_ns"], out["time_stdev_ns"] = mean_stdev(self.times_ns)
        if self.times_ref:
            out["times_ref"] = self.times_ref
        if self.times_wall_ns:
            out["times_wall_ns"] = self.times_wall_ns
        return out


def mean_stdev(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value) of timing runs."""
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values, mean) if len(values) > 1 else 0.0


@dataclass
class ExecutionResult:
    status: Status
    tests: list[TestResult] = field(default_factory=list)
    message: str = ""  # why the sample did not pass, in one line
    stdout: str = ""  # tail of what the program printed
    stderr: str = ""
    wall_s: float = 0.0
    timing_error: str = ""  # why a passing sample has no times (a timing run failed)
    #: where a scale-out executor ran it (``node``, ``cpu_model``, ``cpus`` its task held);
    #: empty for a local executor (this machine). Not part of the verdict: not compared.
    ran_on: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED


class Executor(ABC):
    """Runs requests; implementations decide how (and how safely)."""

    name: str = ""

    @abstractmethod
    def run(self, request: ExecutionRequest) -> ExecutionResult:
        """Run one request to completion; never raises for anything the program does."""

    @property
    def workers(self) -> int:
        return 1

    def run_many(
        self,
        requests: Sequence[ExecutionRequest],
        on_result: Callable[[int, ExecutionResult], None] | None = None,
    ) -> list[ExecutionResult]:
        """Run many requests concurrently; results come back in request order."""
        results: list[ExecutionResult | None] = [None] * len(requests)
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = {pool.submit(self.run, req): i for i, req in enumerate(requests)}
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                if on_result is not None:
                    on_result(i, results[i])  # type: ignore[arg-type]
        return results  # type: ignore[return-value]

    def metadata(self) -> dict[str, Any]:
        """Recorded with every run: which executor, which isolation level."""
        return {"executor": self.name}

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release workers (sandboxes, pools); the executor may not be used afterwards."""
