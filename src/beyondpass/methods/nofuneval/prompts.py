"""NoFunEval's prompts: the four NoFunEdit prompts and the two NoFunClassify orderings.

The prompt text is the dataset's own, per row (``base_prompt``, ``one_shot``,
``chain_of_thought``, ``coding_concepts``, ``classification_{left,right}_prompt``), reached
through the task's ``prompt_fields``. They are completion-style prompts: Base, 1-Shot and
CoCo end inside an open code fence after ``### Response:``, CoT after ``### Thought:``, the
classification prompts after ``### Response: Code-``. Sent to a chat model the prompt is the
user message; sent to a completion endpoint it is the text to continue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate

EDIT_FORMAT = "nofuneval-edit"
CLASSIFY_FORMAT = "nofuneval-choice"

#: condition id -> (dataset field, description)
EDIT_CONDITIONS = {
    "base_prompt": "Base: instruction and source program",
    "one_shot": "1-Shot: one worked example of the same requirement first",
    "chain_of_thought": "Chain-of-Thought: the model states a thought before the edit",
    "coding_concepts": "Coding-Concepts: hints ([in], [+], [-], ...) from the commit",
}
CLASSIFY_CONDITIONS = {
    "classification_left": "NoFunClassify, the programs in the dataset's first order",
    "classification_right": "NoFunClassify, the programs swapped",
}


def _conditions(table: dict[str, str], suffix: str) -> tuple[Condition, ...]:
    return tuple(
        Condition(
            id=cid,
            steps=(PromptTemplate(user="{" + cid + suffix + "}"),),
            description=text,
            metadata={"prompt_field": cid + suffix},
        )
        for cid, text in table.items()
    )


EDIT_PLAN = PromptPlan("nofuneval-edit", _conditions(EDIT_CONDITIONS, ""), EDIT_FORMAT)
CLASSIFY_PLAN = PromptPlan(
    "nofuneval-classify", _conditions(CLASSIFY_CONDITIONS, "_prompt"), CLASSIFY_FORMAT
)


def _select(plan: PromptPlan, table: Any, where: str) -> PromptPlan:
    table = dict(table or {})
    table.pop("plan", None)
    wanted = table.pop("select", None)
    if table:
        raise ConfigError(f"{where}: unknown key(s) {sorted(table)} — valid: plan, select")
    if wanted is None:
        return plan
    known = {c.id: c for c in plan.conditions}
    if not isinstance(wanted, list) or not wanted:
        raise ConfigError(f"{where}.select must be a non-empty list of {', '.join(known)}")
    bad = [w for w in wanted if w not in known]
    if bad:
        raise ConfigError(f"{where}.select: unknown {bad} — valid: {', '.join(known)}")
    return PromptPlan(plan.name, tuple(known[w] for w in wanted), plan.answer_format)


def edit_plan(table: Any, base: Path, where: str) -> PromptPlan:
    """``plan = "nofuneval-edit"`` (optionally ``select = [...]``)."""
    return _select(EDIT_PLAN, table, where)


def classify_plan(table: Any, base: Path, where: str) -> PromptPlan:
    """``plan = "nofuneval-classify"``: both orderings of every pair."""
    return _select(CLASSIFY_PLAN, table, where)
