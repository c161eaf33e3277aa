"""Which evaluator decides a task's verdict.

Most benchmarks are decided by running tests (``FunctionalEvaluator``); a task can ask for
another verdict-deciding evaluator through ``metadata["evaluator"]`` (RobustAPI tasks say
``"robustapi"``: the API-misuse checker decides). A study mixing both kinds gets a
:class:`DispatchEvaluator` that routes each candidate to its task's evaluator.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.errors import ConfigError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.evaluators.functional import FunctionalEvaluator
from beyondpass.execution.base import ExecutionLimits, Executor

FUNCTIONAL = "functional"


def kind_of(task: Task) -> str:
    return str(task.metadata.get("evaluator") or FUNCTIONAL)


def verdict_evaluator(
    tasks: Iterable[Task],
    executor: Executor,
    limits: ExecutionLimits | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    timing_repeats: int = 0,
) -> Evaluator:
    """The evaluator that decides the verdicts of ``tasks``; ``timing_repeats`` is for the
    functional one (timed re-runs of each passing test)."""
    kinds = sorted({kind_of(t) for t in tasks}) or [FUNCTIONAL]
    builders: dict[str, Callable[[], Evaluator]] = {
        FUNCTIONAL: lambda: FunctionalEvaluator(executor, limits, timing_repeats=timing_repeats),
        "robustapi": lambda: _robustapi(data_dir),
    }
    unknown = [k for k in kinds if k not in builders]
    if unknown:
        raise ConfigError(
            f"tasks ask for unknown evaluator(s) {unknown} — known: {sorted(builders)}"
        )
    built = {k: builders[k]() for k in kinds}
    return built[kinds[0]] if len(built) == 1 else DispatchEvaluator(built)


def _robustapi(data_dir: str | os.PathLike[str] | None) -> Evaluator:
    from beyondpass.methods.robustapi.checker import ApiMisuseEvaluator

    return ApiMisuseEvaluator.from_data(data_dir)


class DispatchEvaluator(Evaluator):
    """Routes each candidate to the verdict evaluator its task asks for."""

    name = "dispatch"
    decides_verdict = True

    def __init__(self, by_kind: dict[str, Evaluator]) -> None:
        self.by_kind = by_kind

    def metadata(self) -> dict[str, Any]:
        return {
            "evaluator": self.name,
            "by_kind": {k: e.metadata() for k, e in self.by_kind.items()},
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out: list[Evaluation | None] = [None] * len(candidates)
        for kind, evaluator in self.by_kind.items():
            index = [i for i, c in enumerate(candidates) if kind_of(c.task) == kind]
            if not index:
                continue

            def done(j: int, evaluation: Evaluation, index: list[int] = index) -> None:
                out[index[j]] = evaluation
                if on_result:
                    on_result(index[j], evaluation)

            evaluator.evaluate([candidates[i] for i in index], on_result=done)
        return out  # type: ignore[return-value]
