"""The ``nofuneval-edit`` evaluator: DiffBLEU of each edited program against the commit's.

It decides the verdict of NoFunEdit tasks, which have no tests (runtime-efficiency
correctness and speed-up are scored by ``beyondpass nofuneval score``): ``no_code`` when no
program was read, ``passed`` when the answer is a real edit (non-empty and different from
the source after comment and blank-line removal), ``failed`` for a no-op edit. The metric
is ``diffbleu`` (docs/nofuneval.md); ``template_followed`` records the answer's shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation


class EditOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class DiffBleuEvaluator(Evaluator):
    name = "nofuneval-edit"
    decides_verdict = True
    metrics = ("diffbleu", "template_followed")

    @classmethod
    def build(cls, options: EditOptions | None, ctx: Any) -> DiffBleuEvaluator:
        return cls()

    def metadata(self) -> dict[str, Any]:
        from importlib.metadata import version

        from beyondpass.methods.nofuneval.diffbleu import git_version

        return {"evaluator": self.name, "nltk": version("nltk"), "git": git_version()}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        from beyondpass.methods.nofuneval.diffbleu import DiffBleu, normalise

        out = []
        with DiffBleu() as scorer:
            for i, cand in enumerate(candidates):
                meta = cand.task.metadata
                followed = "template followed" in cand.extraction.notes
                code = cand.extraction.code
                if not cand.extraction.ok:
                    ev = Evaluation(
                        "no_code", False, {"diffbleu": 0.0, "template_followed": followed}
                    )
                else:
                    lang = str(meta.get("pl", cand.task.language))
                    score = scorer.score(meta["source_code"], meta["target_code"], code, lang)
                    edited = (
                        normalise(code, lang).split()
                        != normalise(meta["source_code"], lang).split()
                    )
                    ev = Evaluation(
                        "passed" if edited else "failed",
                        edited,
                        {"diffbleu": score, "template_followed": followed},
                    )
                out.append(ev)
                if on_result is not None:
                    on_result(i, ev)
        return out
