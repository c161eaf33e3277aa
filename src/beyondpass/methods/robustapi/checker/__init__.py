"""API-misuse checking (RobustAPI): rules, Java call-site facts, both checker semantics.

:class:`ApiMisuseEvaluator` is the verdict-deciding evaluator of RobustAPI tasks: the
verdict (``pass``/``violation``/``unparsable``/``no_code``) comes from the checker in the
correct semantics; the original checker's verdict is recorded next to it as metrics, so
every run can be read both ways.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.methods.robustapi.checker.checker import (
    SEMANTICS,
    VERDICTS,
    ApiMisuseChecker,
    Verdict,
    Violation,
    build_ruleset,
    load_ruleset,
)
from beyondpass.methods.robustapi.prompts import prompt_texts

__all__ = [
    "SEMANTICS",
    "VERDICTS",
    "ApiMisuseChecker",
    "ApiMisuseEvaluator",
    "Verdict",
    "Violation",
    "build_ruleset",
    "load_ruleset",
]


class ApiMisuseEvaluator(Evaluator):
    """Decides RobustAPI verdicts (correct semantics) and records the original's too."""

    name = "robustapi"
    decides_verdict = True
    version = "2"  # 2: no pass/fail (a misuse check is no test run)

    def __init__(self, correct: ApiMisuseChecker, original: ApiMisuseChecker) -> None:
        self.correct = correct
        self.original = original

    @classmethod
    def from_data(
        cls, data_dir: str | os.PathLike[str] | None = None, rules: str | None = None
    ) -> ApiMisuseEvaluator:
        return cls(
            ApiMisuseChecker(load_ruleset(rules, data_dir=data_dir), "correct"),
            ApiMisuseChecker(
                load_ruleset(rules, data_dir=data_dir, semantics="original"), "original"
            ),
        )

    def metadata(self) -> dict[str, Any]:
        return {
            "evaluator": self.name,
            "verdict_semantics": "correct",
            "also_recorded": "original",
            **self.correct.metadata(),
            "original": self.original.metadata(),
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = []
        for i, cand in enumerate(candidates):
            evaluation = self.evaluate_one(cand)
            out.append(evaluation)
            if on_result:
                on_result(i, evaluation)
        return out

    def evaluate_one(self, cand: Candidate) -> Evaluation:
        answer = cand.raw or _answer_from_code(cand.extraction.code)
        api = str(cand.task.metadata.get("api") or "") or None
        prompts = prompt_texts(cand.task)
        verdict = self.correct.check(answer, api, prompts)
        original = self.original.check(answer, api, prompts)
        return Evaluation(
            status=verdict.verdict,
            passed=None,  # a static check, not a test run: no pass@1 (its own rates)
            metrics={
                "api": api,
                "domain": cand.task.metadata.get("domain"),
                "misuse": verdict.verdict == "violation",
                "violations": len(verdict.violations),
                "api_called": verdict.api_called,
                "verdict_original": original.verdict,
                "misuse_original": original.verdict == "violation",
            },
            details={
                "message": verdict.error or _summary(verdict),
                "error": verdict.error,
                "violations": [v.as_dict() for v in verdict.violations],
                "notes": list(verdict.notes),
                "original": original.as_dict(),
            },
        )


def _answer_from_code(code: str) -> str:
    """Callers that have no raw answer: check the extracted code as the answer's code."""
    return f"<<<code>>>:\n```java\n{code}\n```\n" if code.strip() else ""


def _summary(verdict: Verdict) -> str:
    if not verdict.violations:
        return {"no_code": "the answer contains no code"}.get(verdict.verdict, "")
    first = verdict.violations[0]
    more = f" (+{len(verdict.violations) - 1} more)" if len(verdict.violations) > 1 else ""
    return f"line {first.line}: {first.api} — {'; '.join(first.reasons)}{more}"
