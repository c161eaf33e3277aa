"""The evaluator seam.

An evaluator takes a batch of candidates (a task plus the code extracted from one answer)
and returns one :class:`Evaluation` each. Batches, not single samples, because the costly
evaluators amortise set-up over many samples (a process pool, one in-process pylint run,
one JVM). Exactly one evaluator per run decides the verdict (``status``); the others only
add metrics, so NFR metrics, API-misuse checks and diff scores compose freely.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.result import Extraction


@dataclass(frozen=True)
class Candidate:
    task: Task
    extraction: Extraction
    raw: str = ""  # the model's whole answer, for evaluators that read more than the code
    condition: str = ""  # the prompt condition asked (e.g. which ordering of a pair)


@dataclass
class Evaluation:
    """What one evaluator concluded about one candidate."""

    status: str | None = None  # set only by the verdict-deciding evaluator
    #: the verdict evaluator's pass/fail; None where no test stands behind its verdict (an
    #: edit only scored, a static misuse check, a classification label): pass@k is computed
    #: only over samples with a pass/fail (:func:`counts_for_pass`)
    passed: bool | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


OnEvaluation = Callable[[int, Evaluation], None]

#: The status of a sample whose evaluation checked no behaviour (a NoFunEval edit of a row
#: without tests: only its DiffBLEU was scored); its ``passed`` is None.
SCORED = "scored"


def counts_for_pass(result: Any) -> bool:
    """Whether a stored result (:class:`beyondpass.store.run_store.ResultRecord`) is one of
    the trials pass@k counts: its verdict is a pass or a fail of the task's tests."""
    return result is not None and bool(getattr(result, "checked", True))


class Evaluator(ABC):
    name: str = ""
    decides_verdict: bool = False
    #: Bump when the same candidate would get other metrics or details: stored with every
    #: result, so a run shows which version scored it (and ``rescore`` can redo it).
    version: str = "1"
    #: The metric names this evaluator produces, when known up front. Two evaluators of a
    #: run may not declare (or produce) the same name: the store refuses it.
    metrics: tuple[str, ...] = ()

    @abstractmethod
    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        """Evaluate a batch; ``on_result(i, evaluation)`` fires as each one finishes."""

    def metadata(self) -> dict[str, Any]:
        """Tool names, versions and configuration, recorded with the run."""
        return {"evaluator": self.name}
