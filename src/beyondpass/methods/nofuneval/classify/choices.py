"""NoFunClassify / HumanEvalClassify: reading the model's choice and scoring both orderings.

Each pair is asked twice, the programs in the dataset's order (``left``) and swapped
(``right``); an example counts as correct only when both answers name the right program.
Answers are read robustly: ``A``, ``Code-A``, ``A.``, ``(B)``, ``**B**``, a sentence naming
one program ("Code-B is better"); an answer naming both or neither is unparsed, and the
parse rate is reported beside accuracy (an unparsed answer is wrong). ``--compat nofuneval``
reads them as NoFunEval's harness does (:func:`parse_choice_compat`); docs/nofuneval.md lists
where the two readings differ.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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


def parse_choice_compat(answer: str) -> str | None:
    """NoFunEval's reading (``extract_single_predictions`` in their
    ``classification_generation.py``): the answer's first whitespace-separated word,
    lower-cased, must be exactly ``a`` or ``b``. So ``A.``, ``(B)``, ``Code-A`` and
    sentences that do not start with the letter are unparsed, and ``A better one`` is ``A``.
    Their code raises ``IndexError`` on an empty or blank answer (the whole run stops); here
    that answer is unparsed."""
    words = answer.split()
    return {"a": "A", "b": "B"}.get(words[0].lower()) if words else None


def choice_reader(compat: bool) -> Callable[[str], str | None]:
    """The answer reader of a mode: NoFunEval's (``compat``) or the robust default."""
    return parse_choice_compat if compat else parse_choice


@dataclass
class ClassifyResult:
    row: int
    requirement: str
    left: str | None
    right: str | None
    correct: bool


def score_pairs(
    labels: Mapping[int, tuple[str, str, str]],
    answers: Mapping[int, Mapping[str, str]],
    compat: bool = False,
) -> list[ClassifyResult]:
    """``labels[row] = (requirement, left_label, right_label)``; ``answers[row][ordering]``."""
    read = choice_reader(compat)
    out = []
    for row, (req, left_label, right_label) in labels.items():
        got = answers.get(row, {})
        left, right = read(got.get("left", "")), read(got.get("right", ""))
        out.append(
            ClassifyResult(row, req, left, right, left == left_label and right == right_label)
        )
    return out


def summarise(
    results: Iterable[ClassifyResult], labels: Mapping[int, tuple[str, str]] | None = None
) -> dict[str, object]:
    """Accuracy per requirement and micro-averaged, with the parse rate of single answers;
    with ``labels`` (row -> left and right label) also each ordering's own accuracy and
    parse rate (NoFunEval's ``left_accuracy`` ... ``right_consistency``)."""
    results = list(results)
    per: dict[str, list[ClassifyResult]] = defaultdict(list)
    for r in results:
        per[r.requirement].append(r)
    parsed = sum((r.left is not None) + (r.right is not None) for r in results)
    sides: dict[str, float | None] = {}
    if labels is not None:
        for i, side in enumerate(ORDERINGS):
            got = [(getattr(r, side), labels[r.row][i]) for r in results]
            sides[f"accuracy_{side}"] = (
                sum(c == want for c, want in got) / len(got) if got else None
            )
            sides[f"parse_rate_{side}"] = (
                sum(c is not None for c, _ in got) / len(got) if got else None
            )
    return {
        "examples": len(results),
        "accuracy": sum(r.correct for r in results) / len(results) if results else None,
        "parse_rate": parsed / (2 * len(results)) if results else None,
        **sides,
        "per_requirement": {
            req: {"examples": len(rs), "accuracy": sum(r.correct for r in rs) / len(rs)}
            for req, rs in sorted(per.items())
        },
    }


def score_choices(
    choices: Mapping[tuple[int, int], Mapping[str, str | None]],
    metas: Mapping[int, Mapping[str, Any]],
    requirement: str,
) -> tuple[list[dict[str, Any]], dict[str, object]]:
    """``nofuneval score`` on classification answers already read (by the
    ``nofuneval-classify`` evaluator): ``choices[(row, sample)][ordering]`` is the choice
    read (``None``: unparsed; an ordering not answered is absent), ``metas`` each row's
    dataset fields. One line per row and sample, right only if both answers are (a missing
    ordering is wrong and listed); returns the lines and :func:`summarise` of them."""
    rows, results = [], []
    labels: dict[int, tuple[str, str]] = {}
    for (row, sample), got in sorted(choices.items()):
        meta = metas[row]
        want = tuple(str(meta[f"classification_{o}_label"]) for o in ORDERINGS)
        labels[row] = (want[0], want[1])
        choice = {o: got.get(o) for o in ORDERINGS}
        correct = all(choice[o] == w for o, w in zip(ORDERINGS, want, strict=True))
        req = str(meta.get("requirement", requirement))
        results.append(ClassifyResult(row, req, choice["left"], choice["right"], correct))
        rows.append(
            {
                "row": row,
                "sample": sample,
                "left": choice["left"],
                "right": choice["right"],
                "correct": correct,
                "missing": [o for o in ORDERINGS if o not in got],
            }
        )
    return rows, summarise(results, labels)
