"""Which evaluator decides a task's verdict.

Most benchmarks are decided by running tests (``functional``); a task can ask for another
verdict-deciding evaluator by name through ``metadata["evaluator"]`` (a method registers it,
e.g. RobustAPI's misuse checker). A study mixing both kinds gets a
:class:`DispatchEvaluator` that routes each candidate to its task's evaluator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pydantic

from beyondpass import registry
from beyondpass.benchmarks.task import Task
from beyondpass.errors import ConfigError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.evaluators.functional import FunctionalEvaluator

FUNCTIONAL = "functional"


class FunctionalOptions(pydantic.BaseModel):
    """``[evaluation.functional]``: how tests are run."""

    model_config = pydantic.ConfigDict(extra="forbid")

    #: timed re-runs of each passing test (``exec_time_ms``); 0: no timing
    timing_repeats: int = pydantic.Field(default=0, ge=0, strict=True)


def functional_evaluator(
    options: FunctionalOptions | None, ctx: registry.EvaluatorContext
) -> Evaluator:
    repeats = options.timing_repeats if options is not None else 0
    return FunctionalEvaluator(ctx.executor, ctx.limits, timing_repeats=repeats)


def kind_of(task: Task) -> str:
    return str(task.metadata.get("evaluator") or FUNCTIONAL)


def build_evaluator(
    name: str, options: Mapping[str, Any] | None, ctx: registry.EvaluatorContext
) -> Evaluator:
    """Evaluator ``name`` with ``options`` (validated by its own schema) in ``ctx``."""
    spec, owner = registry.lookup("evaluators", name)
    factory = registry.resolve(spec.factory, owner)
    model = registry.resolve(spec.options, owner, needs_extra=False) if spec.options else None
    parsed = (
        registry.validate_options(model, options or {}, f"evaluation.{name}")
        if model is not None
        else None
    )
    return factory(parsed, ctx)


def verdict_evaluator(tasks: Iterable[Task], build: Callable[[str], Evaluator]) -> Evaluator:
    """The evaluator that decides the verdicts of ``tasks``: ``build(name)`` makes the one
    each kind of task asks for (one kind: that evaluator; several: a dispatch over them).
    Commands pass :meth:`beyondpass.evaluators.setup.EvaluationSetup.evaluator`."""
    kinds = sorted({kind_of(t) for t in tasks}) or [FUNCTIONAL]
    verdict_names = [s.name for s, _ in registry.specs("evaluators") if s.decides_verdict]
    unknown = [k for k in kinds if k not in verdict_names]
    if unknown:
        raise ConfigError(
            f"tasks ask for unknown evaluator(s) {unknown} — known: {sorted(verdict_names)}"
        )
    built = {k: build(k) for k in kinds}
    return built[kinds[0]] if len(built) == 1 else DispatchEvaluator(built)


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
