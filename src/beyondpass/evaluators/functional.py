"""Functional correctness: run the assembled program against the task's tests.

Answers without code or with unparsable code never reach the executor; their verdict comes
from extraction (``no_code`` / ``syntax_error``), so failure analysis can tell "the model
wrote instructions" apart from "the code was wrong". The task's tests go to the executor as
they are, call-style or I/O (stdin/stdout, with their comparison); the executor's own
compile step may still reject a program (``compile_error``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from beyondpass.benchmarks.task import TestCase
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution.base import (
    ExecutionLimits,
    ExecutionRequest,
    ExecutionResult,
    Executor,
    Status,
    mean_stdev,
)
from beyondpass.execution.languages import LANGUAGES, compile_step, launcher
from beyondpass.execution.sandboxed import call_timing


class FunctionalEvaluator(Evaluator):
    name = "functional"
    decides_verdict = True

    def __init__(
        self, executor: Executor, limits: ExecutionLimits | None = None, timing_repeats: int = 0
    ) -> None:
        self.executor = executor
        self.limits = limits or ExecutionLimits()
        self.timing_repeats = timing_repeats

    def metadata(self) -> dict[str, Any]:
        return {
            "evaluator": self.name,
            "limits": vars(self.limits),
            "timing_repeats": self.timing_repeats,
            **({"timing": call_timing.method()} if self.timing_repeats else {}),
            **self.executor.metadata(),
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out: list[Evaluation | None] = [None] * len(candidates)
        runnable: list[int] = []
        for i, cand in enumerate(candidates):
            status = cand.extraction.status
            if status == "ok":
                runnable.append(i)
                continue
            message = cand.extraction.error or "the answer contains no code"
            out[i] = Evaluation(status=status, passed=False, details={"message": message})
            if on_result:
                on_result(i, out[i])  # type: ignore[arg-type]
        requests = [self._request(candidates[i]) for i in runnable]

        def done(j: int, result: ExecutionResult) -> None:
            i = runnable[j]
            out[i] = _evaluation(result, requests[j].tests)
            if on_result:
                on_result(i, out[i])  # type: ignore[arg-type]

        self.executor.run_many(requests, on_result=done)
        return out  # type: ignore[return-value]

    def _request(self, cand: Candidate) -> ExecutionRequest:
        limits = self.limits
        task_timeout = float(cand.task.metadata.get("timeout_s", 0))
        if task_timeout > limits.timeout_s:  # documented slow task (benchmarks/task_notes.toml)
            limits = replace(limits, timeout_s=task_timeout)
        program, language = cand.extraction.program, cand.task.language
        compiled = language in COMPILED
        # function mode (the answer format says which function to call) on I/O tests: a
        # trusted runner calls it on every case, in one process for Python too
        function = cand.extraction.function if _io(cand.task.tests) else None
        return ExecutionRequest(
            program=program,
            tests=cand.task.tests,
            language=language,
            test_setup=cand.task.test_setup,
            limits=limits,
            timing_repeats=self.timing_repeats,
            # C++ and Java: compiled once in the sandbox, then one process per test
            compile=compile_step(language, program, function) if compiled else None,
            launcher=launcher(language, program, limits, function=function)
            if compiled or function
            else None,
            function=function,
        )


def _io(tests: Sequence[TestCase]) -> bool:
    return bool(tests) and tests[0].is_io


#: languages whose programs need a compile step (execution/languages.py)
COMPILED = tuple(lang for lang in LANGUAGES if compile_step(lang) is not None)


def declared_groups(tests: Sequence[TestCase]) -> dict[str, int]:
    """How many tests the task declares per name group (``edge-3`` -> ``edge``; names
    without a ``-N`` suffix count under ``""``): a sample stopped early (its time ran out)
    lists only the tests it reached, and a pass ratio must count the others as not passed."""
    return dict(Counter(_GROUP.sub("", t.name) if _GROUP.search(t.name) else "" for t in tests))


_GROUP = re.compile(r"-\d+$")


def _evaluation(result: ExecutionResult, tests: Sequence[TestCase] = ()) -> Evaluation:
    n_passed = sum(t.status is Status.PASSED for t in result.tests)
    metrics: dict[str, Any] = {"tests_passed": n_passed, "tests_run": len(result.tests)}
    if result.passed and any(t.times_ns for t in result.tests):
        # timing run r runs every test once: the sample's time in run r is the sum over its
        # tests; the mean over runs (= the per-test means, summed) is the time of "all tests"
        runs = (t.times_ns for t in result.tests if t.times_ns)  # every test, or none
        per_run = [sum(run) for run in zip(*runs, strict=True)]
        mean_ns, stdev_ns = mean_stdev(per_run)
        metrics["exec_time_ms"] = mean_ns / 1e6
        metrics["exec_time_stdev_ms"] = stdev_ns / 1e6
        timed = [t.times_ref for t in result.tests if t.times_ref]
        if timed:
            # the steady twin (reference units, call_timing.py): median over repeats, since
            # a repeat caught by a change of the machine's speed is an outlier, not signal
            metrics["exec_time_ref"] = sum(statistics.median(r) for r in timed)
    return Evaluation(
        status=str(result.status),
        passed=result.passed,
        metrics=metrics,
        details={
            "message": result.message,
            "tests": [t.as_dict() for t in result.tests],
            "tests_declared": declared_groups(tests),
            "stdout": result.stdout,
            "stderr": result.stderr,
            "wall_s": round(result.wall_s, 4),
            **({"timing_error": result.timing_error} if result.timing_error else {}),
            # a scale-out executor's node, CPU model, CPUs and isolation, per sample
            **({"ran_on": result.ran_on} if result.ran_on else {}),
        },
    )
