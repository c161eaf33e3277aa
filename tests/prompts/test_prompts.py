"""Prompt plans: rendering, literal braces, validation."""

from __future__ import annotations

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError
from beyondpass.prompts.plan import (
    Condition,
    PromptTemplate,
    builtin_plan,
    plan_from_config,
    render,
)

TASK = load_benchmark("demo").tasks["demo/add"]


def test_function_only_uses_the_seed_wording():
    (cond,) = builtin_plan("function-only").conditions
    (message,) = render(cond.steps[0], TASK)
    assert message.role == "user"
    assert (
        message.content == f"Complete the following code.\n## Input:\n{TASK.prompt}\n## Response:\n"
    )


def test_placeholders_fill_and_other_braces_stay_literal():
    template = PromptTemplate(
        system="You write {language}.",
        user="{prompt}\nReturn a dict like {'a': 1} for {entry_point} ({task_id}) {unknown}",
    )
    system, user = render(template, TASK)
    assert system.content == "You write Python."
    assert user.content.endswith("Return a dict like {'a': 1} for add (demo/add) {unknown}")


def test_refine_step_must_use_the_previous_code():
    with pytest.raises(ConfigError, match="step 2 must use"):
        Condition("x", (PromptTemplate("{prompt}"), PromptTemplate("improve it")))


def test_config_conditions_and_errors():
    conditions = [
        {"id": "a", "user": "{prompt}"},
        {"id": "b", "steps": [{"user": "{prompt}"}, {"user": "{code}"}]},
    ]
    plan = plan_from_config("p", conditions)
    assert [c.workflow for c in plan.conditions] == ["single", "refine"]
    with pytest.raises(ConfigError, match="repeats condition"):
        plan_from_config("p", [{"id": "a", "user": "x"}, {"id": "a", "user": "y"}])
    with pytest.raises(ConfigError, match="missing 'id'"):
        plan_from_config("p", [{"user": "x"}])
    with pytest.raises(ConfigError, match="unknown prompt plan"):
        builtin_plan("nope")
