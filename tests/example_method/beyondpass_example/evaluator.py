"""The example evaluator: adds ``code_lines`` (never decides a verdict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation


class LinesOptions(pydantic.BaseModel):
    """``[evaluation.answer_lines]``."""

    model_config = pydantic.ConfigDict(extra="forbid")

    count_blank: bool = False


class LinesEvaluator(Evaluator):
    name = "answer_lines"

    def __init__(self, count_blank: bool = False) -> None:
        self.count_blank = count_blank

    @classmethod
    def build(cls, options: LinesOptions | None, ctx: Any) -> LinesEvaluator:
        return cls((options or LinesOptions()).count_blank)

    def metadata(self) -> dict[str, Any]:
        return {"evaluator": self.name, "count_blank": self.count_blank}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = []
        for i, cand in enumerate(candidates):
            lines = cand.extraction.code.splitlines()
            if not self.count_blank:
                lines = [x for x in lines if x.strip()]
            evaluation = Evaluation(metrics={"code_lines": len(lines)} if lines else {})
            out.append(evaluation)
            if on_result:
                on_result(i, evaluation)
        return out


def summary(values: dict[str, list[float]], statuses: Any) -> dict[str, Any]:
    return {
        "means": {k: (sum(v) / len(v) if v else None) for k, v in values.items()},
        "n": {k: len(v) for k, v in values.items()},
    }
