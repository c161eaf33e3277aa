"""Building a command's evaluators, the same way for ``run``, ``evaluate`` and ``rescore``.

Why one place: built in three, the commands drifted apart (``rescore`` gave an executor to
``functional`` only, so ``nofuneval-edit`` started a default sandbox of its own and ignored
``--executor`` and ``--isolation``). Here every evaluator whose spec says it runs code
(``EvaluatorSpec.runs_code``) gets the one executor the user chose, built once, on first
need, with the run's seed; the others get none, so a run that runs no code starts no
executor. Every evaluator gets the batch pool of the same choice (``ExecutorChoice.pool``:
on Ray with ``--executor ray``, else in this process), which joins Ray only when a batch
is run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from beyondpass import registry
from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Evaluator
from beyondpass.evaluators.select import build_evaluator, verdict_evaluator
from beyondpass.execution import BatchPool, ExecutionLimits, ExecutorChoice
from beyondpass.execution.base import Executor


@dataclass
class EvaluationSetup:
    """What every evaluator of one command is built with.

    ``executor_choice``: the executor the user chose (CLI over study over the recorded one);
    ``seed`` goes to the executor and to every evaluator alike; ``defaults``: options by
    evaluator name that apply unless the options given name the key (a study's verdict
    options, the timing repeats a run recorded).
    """

    executor_choice: ExecutorChoice = field(default_factory=ExecutorChoice)
    limits: ExecutionLimits | None = None
    workers: int | None = None
    data_dir: str | os.PathLike[str] | None = None
    seed: int = 0
    #: the study run's folder, for evaluators that keep state across a resumed run
    run_dir: str | os.PathLike[str] | None = None
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    _executor: Executor | None = field(default=None, init=False, repr=False)
    _pool: BatchPool | None = field(default=None, init=False, repr=False)

    @property
    def executor_started(self) -> bool:
        return self._executor is not None

    def executor(self) -> Executor:
        """The chosen executor, built on first use; :meth:`close` closes it."""
        if self._executor is None:
            self._executor = self.executor_choice.build(workers=self.workers, seed=self.seed)
        return self._executor

    def pool(self) -> BatchPool:
        """Where batch work runs (the same choice as the executor); built on first use, it
        starts or joins nothing until a batch is run; :meth:`close` closes it."""
        if self._pool is None:
            self._pool = self.executor_choice.pool()
        return self._pool

    def context(self, runs_code: bool) -> registry.EvaluatorContext:
        """The context an evaluator factory gets: the executor only if it runs code, the
        batch pool always."""
        return registry.EvaluatorContext(
            executor=self.executor() if runs_code else None,
            pool=self.pool(),
            executor_choice=self.executor_choice,
            limits=self.limits,
            workers=self.workers,
            data_dir=os.fspath(self.data_dir) if self.data_dir is not None else None,
            seed=self.seed,
            run_dir=os.fspath(self.run_dir) if self.run_dir is not None else None,
        )

    def transform_context(self) -> registry.TransformContext:
        """What a benchmark transform that runs code gets (ObfusEval's verification): the
        executor the evaluators get, built now, and the batch pool — so ``--executor ray``
        places the transform's programs on Ray too."""
        return registry.TransformContext(executor=self.executor(), pool=self.pool())

    def evaluator(self, name: str, options: Mapping[str, Any] | None = None) -> Evaluator:
        """Evaluator ``name``, with ``options`` over this setup's defaults for it."""
        spec, _ = registry.lookup("evaluators", name)
        merged = {**self.defaults.get(name, {}), **(options or {})}
        return build_evaluator(name, merged, self.context(spec.runs_code))

    def verdict(self, tasks: Iterable[Task]) -> Evaluator:
        """The evaluator deciding the verdicts of ``tasks`` (chosen per task)."""
        return verdict_evaluator(tasks, self.evaluator)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._executor is not None:
            self._executor.close()
            self._executor = None

    def __enter__(self) -> EvaluationSetup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def build_evaluators(
    setup: EvaluationSetup,
    named: Sequence[tuple[str, Mapping[str, Any]]] = (),
    *,
    verdict_for: Iterable[Task] | None = None,
) -> list[Evaluator]:
    """The verdict evaluator of ``verdict_for`` first (when given), then ``named`` in order,
    each with its options."""
    out = [setup.verdict(verdict_for)] if verdict_for is not None else []
    return out + [setup.evaluator(name, options) for name, options in named]


__all__ = ["EvaluationSetup", "build_evaluators"]
