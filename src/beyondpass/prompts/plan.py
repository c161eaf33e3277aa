"""Prompt plans as data.

A :class:`Condition` is one way of asking: a workflow of one or more steps, each a
:class:`PromptTemplate`. Single-step conditions cover Function-Only, NFR-Integrated and the
neutral methodology prompt; two-step conditions (NFR-Enhanced: generate, then refine the
extracted code) feed each step the code extracted from the previous one via ``{code}``.

Templates use ``{name}`` placeholders for a fixed set of names only (``prompt``, ``code``,
``language``, ``entry_point``, ``task_id``), plus the names a task offers in its
``metadata["prompt_fields"]`` (RobustAPI: ``api``, ``relevant_shot``); any other brace is
literal text, so templates can hold code examples with dict literals safely.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.errors import ConfigError
from beyondpass.models.base import Message

PLACEHOLDERS = ("prompt", "code", "language", "entry_point", "task_id")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")

LANGUAGE_NAMES = {"python": "Python", "java": "Java", "cpp": "C++"}


@dataclass(frozen=True)
class PromptTemplate:
    """One step's messages. ``reuse`` names another condition of the plan whose final answer
    (same task, same sample index) *is* this step's answer: it is copied, not asked again, so
    a refinement starts from exactly the code that condition was scored on. Only a first
    step can reuse."""

    user: str
    system: str | None = None
    reuse: str | None = None


@dataclass(frozen=True)
class Condition:
    """One prompt condition. ``workflow`` names the shape; ``steps`` hold the templates."""

    id: str
    steps: tuple[PromptTemplate, ...]
    workflow: str = "single"
    description: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: independent repeated runs of this condition: it gets ``n * repeats`` samples per task
    #: (repeat ``r`` is sample indices ``r*n .. r*n+n-1``), e.g. a baseline's noise floor.
    repeats: int = 1

    def __post_init__(self) -> None:
        if not self.steps:
            raise ConfigError(f"prompt condition {self.id!r} has no steps")
        if not isinstance(self.repeats, int) or isinstance(self.repeats, bool) or self.repeats < 1:
            raise ConfigError(f"prompt condition {self.id!r}: repeats must be a positive integer")
        for n, step in enumerate(self.steps[1:], 2):
            if step.reuse:
                raise ConfigError(
                    f"prompt condition {self.id!r}: only step 1 can reuse another condition's "
                    f"answer (step {n} has reuse = {step.reuse!r})"
                )
        if self.steps[0].reuse and len(self.steps) < 2:
            raise ConfigError(
                f"prompt condition {self.id!r} only reuses {self.steps[0].reuse!r}: add a step "
                "that uses {code}"
            )
        for n, step in enumerate(self.steps[1:], 2):
            if "{code}" not in step.user:
                raise ConfigError(
                    f"prompt condition {self.id!r}: step {n} must use {{code}} (the code "
                    "extracted from the previous step)"
                )


@dataclass(frozen=True)
class PromptPlan:
    """The conditions of a study. ``answer_format`` is the format the prompts ask for
    (``fenced-code``, ``robustapi-blocks``, ``whole-program``, ...): extraction reads the
    answers that way; ``None`` leaves it to the benchmark's default."""

    name: str
    conditions: tuple[Condition, ...]
    answer_format: str | None = None

    def __post_init__(self) -> None:
        ids = [c.id for c in self.conditions]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ConfigError(f"prompt plan {self.name!r} repeats condition id(s) {dupes}")
        by_id = {c.id: c for c in self.conditions}
        for c in self.conditions:
            source = c.steps[0].reuse
            if not source:
                continue
            target = by_id.get(source)
            if target is None:
                raise ConfigError(
                    f"prompt condition {c.id!r} reuses {source!r}, which is not in the plan"
                )
            if target.steps[0].reuse:
                raise ConfigError(
                    f"prompt condition {c.id!r} reuses {source!r}, which itself reuses "
                    f"{target.steps[0].reuse!r} — reuse the original condition"
                )
            if c.repeats > target.repeats:
                raise ConfigError(
                    f"prompt condition {c.id!r} has more repeats ({c.repeats}) than "
                    f"{source!r} ({target.repeats}) whose answers it reuses"
                )


def render(template: PromptTemplate, task: Task, code: str = "") -> tuple[Message, ...]:
    """The chat messages for one step of one task."""
    values = {
        "prompt": task.prompt,
        "code": code,
        "language": LANGUAGE_NAMES.get(task.language, task.language),
        "entry_point": task.entry_point or "",
        "task_id": task.task_id,
    }
    pattern = _PLACEHOLDER
    extra = task.metadata.get("prompt_fields")
    if isinstance(extra, Mapping) and extra:
        names = [n for n in extra if isinstance(n, str) and n.isidentifier() and n not in values]
        values.update({n: str(extra[n]) for n in names})
        pattern = re.compile(r"\{(" + "|".join((*PLACEHOLDERS, *names)) + r")\}")

    def fill(text: str) -> str:
        # one pass: a value that itself contains "{prompt}" is not expanded again
        return pattern.sub(lambda m: values[m.group(1)], text)

    messages = []
    if template.system:
        messages.append(Message("system", fill(template.system)))
    messages.append(Message("user", fill(template.user)))
    return tuple(messages)


def check_prompt_fields(plan: PromptPlan, tasks: Mapping[str, Sequence[Task]]) -> None:
    """Refuse a plan whose prompt is a task field the benchmark's tasks do not have.

    A condition whose whole prompt is one of the task's own ``prompt_fields`` names it in
    ``metadata["prompt_field"]`` (NoFunEval's plans do). ``render`` leaves an unknown
    placeholder as literal text, so without this check a plan meant for another benchmark
    would send the model ``{field}`` itself. ``tasks``: benchmark name -> selected tasks.
    """
    for cond in plan.conditions:
        name = cond.metadata.get("prompt_field")
        if not isinstance(name, str) or not name:
            continue
        for bench, chosen in tasks.items():
            for task in chosen:
                offered = task.metadata.get("prompt_fields")
                offered = offered if isinstance(offered, Mapping) else {}
                if name not in offered:
                    have = ", ".join(sorted(map(str, offered))) or "none"
                    raise ConfigError(
                        f"prompt plan {plan.name!r} (condition {cond.id!r}) asks for the task "
                        f"field {name!r}, which benchmark {bench} does not have (its prompt "
                        f"fields: {have}) — choose a plan made for {bench}"
                    )


#: Function-Only, worded as in RobuNFR's Figure 4 (seed 000, section 3.5).
FUNCTION_ONLY = Condition(
    id="function-only",
    steps=(
        PromptTemplate(
            user="Complete the following code.\n## Input:\n{prompt}\n## Response:\n",
        ),
    ),
    description="RobuNFR Function-Only: the functional requirement alone",
)

#: The neutral prefix of seed 002's methodology for comparing code LLMs: favours no model.
NEUTRAL = Condition(
    id="neutral",
    steps=(PromptTemplate(user="Generate a {language} code to solve the problem!\n{prompt}"),),
    description="Neutral methodology prompt over the benchmark task text",
)


def function_only_plan(table: Mapping[str, Any], study_dir: Any, where: str) -> PromptPlan:
    """The core plan ``function-only`` (RobuNFR's Function-Only; it takes no settings)."""
    return PromptPlan("function-only", (FUNCTION_ONLY,))


def neutral_plan(table: Mapping[str, Any], study_dir: Any, where: str) -> PromptPlan:
    """The core plan ``neutral`` (the PSB2 method's neutral prompt; no settings)."""
    return PromptPlan("neutral", (NEUTRAL,))


def builtin_plan(name: str) -> PromptPlan:
    """A registered plan by name, with its default settings."""
    from pathlib import Path

    plan = plan_by_name(name, {"plan": name}, Path.cwd(), "prompts")
    if plan is None:
        from beyondpass import registry

        known = ", ".join(registry.names("plans"))
        raise ConfigError(f"unknown prompt plan {name!r} — built-in plans: {known}")
    return plan


def plan_by_name(name: str, table: Mapping[str, Any], base: Any, where: str) -> PromptPlan | None:
    """The plan registered as ``name`` (core or a method's), built from the study's
    ``[prompts]`` table; ``None`` when none is."""
    import dataclasses

    from beyondpass import registry

    found = registry.find("plans", name)
    if found is None:
        return None
    spec, owner = found
    plan = registry.resolve(spec.factory, owner, needs_extra=False)(table, base, where)
    if plan.answer_format is None and spec.answer_format:
        plan = dataclasses.replace(plan, answer_format=spec.answer_format)
    return plan


def plan_from_config(name: str, raw_conditions: Sequence[Mapping[str, Any]]) -> PromptPlan:
    """Build a plan from the ``[[prompts.conditions]]`` tables of a study file."""
    conditions = []
    for n, raw in enumerate(raw_conditions, 1):
        where = f"prompts.conditions[{n}]"
        if "id" not in raw:
            raise ConfigError(f"{where}: missing 'id'")
        steps_raw = raw.get("steps")
        if steps_raw is None and "user" in raw:
            steps_raw = [{"user": raw["user"], "system": raw.get("system")}]
        if not steps_raw:
            raise ConfigError(
                f"{where} ({raw['id']}): give 'user' (and optional 'system') or 'steps'"
            )
        steps = []
        for step in steps_raw:
            if not isinstance(step, Mapping):
                raise ConfigError(f"{where} ({raw['id']}): every step must be a table")
            reuse = step.get("reuse")
            if reuse is not None and (not isinstance(reuse, str) or not reuse):
                raise ConfigError(f"{where} ({raw['id']}): reuse must name a condition id")
            user = step.get("user", "" if reuse else None)
            if not isinstance(user, str):
                raise ConfigError(f"{where} ({raw['id']}): every step needs a 'user' string")
            steps.append(PromptTemplate(user=user, system=step.get("system"), reuse=reuse))
        workflow = raw.get("workflow", "single" if len(steps) == 1 else "refine")
        repeats = raw.get("repeats", 1)
        conditions.append(
            Condition(
                id=str(raw["id"]),
                steps=tuple(steps),
                workflow=str(workflow),
                description=str(raw.get("description", "")),
                metadata={
                    k: v
                    for k, v in raw.items()
                    if k not in ("id", "steps", "user", "system", "workflow", "description")
                },
                repeats=repeats if isinstance(repeats, int) else -1,
            )
        )
    return PromptPlan(name, tuple(conditions))
