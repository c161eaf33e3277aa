"""NoFunClassify / HumanEvalClassify: reading the model's choice and scoring both orderings.

Each pair is asked twice, the programs in the dataset's order (``left``) and swapped
(``right``); an example counts as correct only when both answers name the right program.
Answers are read robustly: ``A``, ``Code-A``, ``A.``, ``(B)``, ``**B**``, a sentence naming
one program ("Code-B is better"); an answer naming both or neither is unparsed, and the
parse rate is reported beside accuracy (an unparsed answer is wrong).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ORDERINGS = ("left", "right")
_LEADING = re.compile(r"^[\s*_(`\"'\[]*(?:code[\s-]*)?([AB])(?![A-Za-z0-9])", re.I)
_NAMED = re.compile(r"\bcode[\s-]*([AB])\b", re.I)
_VERBS = frozenset({"is", "was", "has", "because", "would", "should", "will", "and"})
_ANSWER_IS = re.compile(r"\b(?:answer|choice|option)\s*(?:is|:)\s*[\s*(`\"']*([AB])\b", re.I)


def parse_choice(answer: str, prompt: str = "") -> str | None:
    """``"A"``/``"B"`` named by ``answer`` (a completion after ``Code-``, or a chat reply)."""
    text = answer
    if prompt and text.startswith(prompt):
        text = text[len(prompt) :]
    text = text.strip()
    if not text:
        return None
    lead = _LEADING.match(text)
    if lead:
        rest = text[lead.end() :]
        word = re.match(r" +([a-z]+)", rest)
        # "A better version ..." opens with an article, not a choice
        if word is None or word.group(1) in _VERBS:
            return lead.group(1).upper()
    for pattern in (_ANSWER_IS, _NAMED):
        found = {m.group(1).upper() for m in pattern.finditer(text)}
        if len(found) == 1:
            return found.pop()
    return None


@dataclass
class ClassifyResult:
    row: int
    requirement: str
    left: str | None
    right: str | None
    correct: bool


def score_pairs(
    labels: Mapping[int, tuple[str, str, str]], answers: Mapping[int, Mapping[str, str]]
) -> list[ClassifyResult]:
    """``labels[row] = (requirement, left_label, right_label)``; ``answers[row][ordering]``."""
    out = []
    for row, (req, left_label, right_label) in labels.items():
        got = answers.get(row, {})
        left, right = parse_choice(got.get("left", "")), parse_choice(got.get("right", ""))
        out.append(
            ClassifyResult(row, req, left, right, left == left_label and right == right_label)
        )
    return out


def summarise(results: Iterable[ClassifyResult]) -> dict[str, object]:
    """Accuracy per requirement and micro-averaged, with the parse rate of single answers."""
    results = list(results)
    per: dict[str, list[ClassifyResult]] = defaultdict(list)
    for r in results:
        per[r.requirement].append(r)
    parsed = sum((r.left is not None) + (r.right is not None) for r in results)
    return {
        "examples": len(results),
        "accuracy": sum(r.correct for r in results) / len(results) if results else None,
        "parse_rate": parsed / (2 * len(results)) if results else None,
        "per_requirement": {
            req: {"examples": len(rs), "accuracy": sum(r.correct for r in rs) / len(rs)}
            for req, rs in sorted(per.items())
        },
    }
