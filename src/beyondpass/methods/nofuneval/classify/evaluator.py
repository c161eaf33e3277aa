"""The ``nofuneval-classify`` evaluator: is one answer of a NoFunClassify pair right?

It decides the verdict of classification tasks (``nofuneval-classify`` and
``nofuneval-classify-<subset>``), one answer at a time: the condition says which ordering
was asked (``classification_left`` / ``classification_right``), the task holds that
ordering's label. ``correct``: the answer names the right program; ``wrong``: it names the
other; ``no_code``: no choice could be read (counted wrong, and against the parse rate). A
label is no test run: ``passed`` is None, so no pass@1 is computed (accuracy is this
method's figure);
option ``compat = "nofuneval"`` reads answers as NoFunEval's harness does. An
example is correct only when both orderings are: the Table 2 section pairs the answers
(:mod:`beyondpass.methods.nofuneval.report`), the evaluator cannot, as it sees one answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pydantic

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.methods.nofuneval.classify.choices import ORDERINGS, choice_reader

#: condition id -> ordering
CONDITION_ORDERING = {f"classification_{o}": o for o in ORDERINGS}


class ClassifyOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    #: ``nofuneval``: read each answer as NoFunEval's harness does (its first word must be
    #: ``A`` or ``B``); default: the robust reading
    compat: Literal["nofuneval"] | None = None


def ordering_of(condition: str) -> str | None:
    """``left``/``right`` for the ``nofuneval-classify`` plan's conditions, else None."""
    return CONDITION_ORDERING.get(condition)


class ClassifyEvaluator(Evaluator):
    name = "nofuneval-classify"
    decides_verdict = True
    version = "2"  # 2: statuses correct/wrong, no pass/fail (a label is no test run)
    metrics = ("choice_correct", "choice_parsed")

    def __init__(self, options: ClassifyOptions | None = None) -> None:
        self.options = options or ClassifyOptions()
        self._read = choice_reader(self.options.compat is not None)

    @classmethod
    def build(cls, options: ClassifyOptions | None, ctx: Any) -> ClassifyEvaluator:
        return cls(options)

    def metadata(self) -> dict[str, Any]:
        reading = "compat" if self.options.compat else "robust"
        return {"evaluator": self.name, "compat": self.options.compat, "reading": reading}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = []
        for i, cand in enumerate(candidates):
            out.append(self._one(cand))
            if on_result is not None:
                on_result(i, out[-1])
        return out

    def _one(self, cand: Candidate) -> Evaluation:
        ordering = ordering_of(cand.condition)
        if ordering is None:
            known = ", ".join(CONDITION_ORDERING)
            return Evaluation(
                "error",
                None,
                details={
                    "error": f"condition {cand.condition!r} is no classification ordering "
                    f"(expected {known}: use plan nofuneval-classify)"
                },
            )
        expected = str(cand.task.metadata[f"classification_{ordering}_label"]).strip().upper()
        choice = self._read(cand.raw)
        correct = choice == expected
        status = "no_code" if choice is None else ("correct" if correct else "wrong")
        return Evaluation(
            status,
            None,
            {"choice_correct": correct, "choice_parsed": choice is not None},
            {"ordering": ordering, "choice": choice, "expected": expected},
        )
