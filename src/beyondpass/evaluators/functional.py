"""Functional correctness: run the assembled program against the task's tests.

Answers without code or with unparsable code never reach the executor; their verdict comes
from extraction (``no_code`` / ``syntax_error``), so failure analysis can tell "the model
wrote instructions" apart from "the code was wrong". The task's tests go to the executor as
they are, call-style or I/O (stdin/stdout, with their comparison); the executor's own
compile step may still reject a program (``compile_error``).

An answer with several candidate blocks (docs/extraction.md, "Several candidate blocks")
carries the program the other reading would take; it runs too, untimed, and the sample's
details record under ``block_choice`` whether its verdict differs. Single-block answers
cost nothing more.
"""

from __future__ import annotations

import re
import statistics
import threading
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

#: where a sample's verdict details record the other reading of a multi-block answer
BLOCK_CHOICE = "block_choice"


class FunctionalEvaluator(Evaluator):
    name = "functional"
    decides_verdict = True
    version = "2"  # details record the other reading's verdict (``block_choice``)

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
        # (sample, is the other reading's program, what runs): the alternatives ride along
        jobs = [(i, False, cand) for i, cand in enumerate(candidates)]
        jobs += [
            (i, True, Candidate(c.task, c.extraction.alternative, c.raw, c.condition))
            for i, c in enumerate(candidates)
            if c.extraction.alternative is not None
        ]
        found: dict[tuple[int, bool], Evaluation] = {}
        lock = threading.Lock()

        def record(i: int, other: bool, evaluation: Evaluation) -> None:
            with lock:
                found[(i, other)] = evaluation
                alternative = candidates[i].extraction.alternative is not None
                if (i, False) not in found or (alternative and (i, True) not in found):
                    return
                out[i] = found[(i, False)]
                if alternative:
                    out[i].details[BLOCK_CHOICE] = block_choice(  # type: ignore[union-attr]
                        candidates[i], found[(i, False)], found[(i, True)]
                    )
            if on_result:
                on_result(i, out[i])  # type: ignore[arg-type]

        runnable = []
        for i, other, cand in jobs:
            if cand.extraction.status == "ok":
                runnable.append((i, other, cand))
            else:
                record(i, other, _not_run(cand))
        requests = [self._request(cand, timed=not other) for _, other, cand in runnable]

        def done(j: int, result: ExecutionResult) -> None:
            record(runnable[j][0], runnable[j][1], _evaluation(result, requests[j].tests))

        self.executor.run_many(requests, on_result=done)
        return out  # type: ignore[return-value]

    def _request(self, cand: Candidate, timed: bool = True) -> ExecutionRequest:
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
            timing_repeats=self.timing_repeats if timed else 0,
            # C++ and Java: compiled once in the sandbox, then one process per test
            compile=compile_step(language, program, function) if compiled else None,
            launcher=launcher(language, program, limits, function=function)
            if compiled or function
            else None,
            function=function,
        )


def _not_run(cand: Candidate) -> Evaluation:
    """The verdict of an answer extraction found no runnable program in."""
    message = cand.extraction.error or "the answer contains no code"
    return Evaluation(status=cand.extraction.status, passed=False, details={"message": message})


def block_choice(cand: Candidate, chosen: Evaluation, other: Evaluation) -> dict[str, Any]:
    """What the sample's details record when its answer had several candidate blocks."""
    alternative = cand.extraction.alternative
    return {
        "candidates": cand.extraction.candidates,
        "alternative": alternative.notes[0] if alternative and alternative.notes else "",
        "alternative_status": other.status,
        "alternative_passed": bool(other.passed),
        "changes_verdict": bool(other.passed) != bool(chosen.passed),
    }


def block_choice_summary(
    values: dict[str, list[dict[str, Any]]], statuses: Counter[str]
) -> dict[str, Any]:
    """``evaluate``'s end-of-run count: answers with several candidate blocks, and the share
    whose verdict the other reading would change (printed as a mean over them)."""
    records = values.get(BLOCK_CHOICE, [])
    changed = sum(bool(r.get("changes_verdict")) for r in records)
    key = "other_block_changes_verdict"
    return {
        "means": {key: changed / len(records) if records else None},
        "n": {key: len(records)},
        "multi_block": len(records),
        "changes_verdict": changed,
    }


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
