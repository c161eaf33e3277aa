"""Every reference solution against its own tests, shared by
tests/benchmarks/test_benchmarks.py (all of HumanEval, MBPP and the demo; a seeded sample
of the extended benchmarks) and benchmarks/check_references.py (every task of every benchmark)."""

from __future__ import annotations

from beyondpass.benchmarks.task import Benchmark
from beyondpass.evaluators.base import Candidate
from beyondpass.evaluators.functional import FunctionalEvaluator
from beyondpass.execution import ExecutionLimits, create_executor
from beyondpass.extraction.result import Extraction

#: the default per-sample limit; slow tasks carry their own (task_notes.toml)
LIMITS = ExecutionLimits(timeout_s=10)


def reference_evaluator() -> FunctionalEvaluator:
    """The functional verdict in the sandbox executor, as ``evaluate`` gives it."""
    return FunctionalEvaluator(create_executor("sandbox"), LIMITS)


def reference_failures(
    bench: Benchmark, evaluator: FunctionalEvaluator
) -> tuple[dict[str, object], set[str]]:
    """``(unexpected, wrongly_listed)``: tasks whose reference fails but that are not listed
    as broken (with the failure's message), and tasks listed as broken whose reference
    passes. Both empty when the benchmark's notes are right."""
    tasks = list(bench.tasks.values())
    candidates = [
        Candidate(t, Extraction("ok", t.reference_solution, t.reference_solution, "full"))
        for t in tasks
    ]
    verdicts = evaluator.evaluate(candidates)
    failing = {t.task_id: v for t, v in zip(tasks, verdicts, strict=True) if not v.passed}
    unexpected = {
        tid: v.details.get("message") for tid, v in failing.items() if tid not in bench.known_broken
    }
    wrongly_listed = set(bench.known_broken) - set(failing)
    return unexpected, wrongly_listed
