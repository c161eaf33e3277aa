"""The study file as a typed model: errors are one line naming the file and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from beyondpass.errors import ConfigError
from beyondpass.execution import ExecutorChoice
from beyondpass.execution.base import ExecutionLimits
from beyondpass.models.base import SamplingParams
from beyondpass.study.config import study_from_dict

BASE: dict[str, Any] = {"benchmarks": [{"name": "demo"}], "models": [{"spec": "replay:a.jsonl"}]}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"modles": 2}, "study.toml: unknown key 'modles' — valid: arms, benchmarks, description,"),
        ({"execution": {"foo": 1}}, "study.toml: unknown key 'foo' in [execution] — valid: "),
        ({"sampling": {"n": 0}}, "study.toml: sampling.n must be a positive integer"),
        ({"sampling": {"n": True}}, "study.toml: sampling.n: Input should be a valid integer"),
        (
            {"sampling": {"temperature": "hot"}},
            "temperature: Input should be a valid number",
        ),
        ({"sampling": {"colour": 1}}, "unknown key 'colour' in [sampling]"),
        ({"sampling": 3}, "study.toml: sampling: expected a table, got 3"),
        ({"benchmarks": "demo"}, "study.toml: benchmarks: expected a list, got 'demo'"),
        ({"benchmarks": [{"tasks": []}]}, "study.toml: benchmarks[1] needs a name"),
        ({"benchmarks": [{"name": "demo", "limit": 0}]}, "benchmarks[1].limit must be a positive"),
        ({"benchmarks": [{"name": "demo", "tasks": [1]}]}, "benchmarks[1].tasks[1]: Input should"),
        ({"benchmarks": [{"name": "demo", "size": 1}]}, "unknown key 'size' in [benchmarks[1]]"),
        ({"models": [{"label": "x"}]}, "study.toml: models[1] needs a spec"),
        ({"models": [{"spec": "openai:m", "max_attempts": 0}]}, "models[1].max_attempts must be"),
        ({"seed": "1"}, "study.toml: seed: Input should be a valid integer"),
        ({"execution": {"memory_mb": 1.5}}, "execution.memory_mb: Input should be a valid integer"),
        ({"execution": {"isolation": "chroot"}}, "execution: unknown isolation level 'chroot'"),
        ({"execution": {"ray_address": "auto"}}, "execution: a Ray address needs the ray executor"),
        ({"report": {"x": 1}}, "study.toml: unknown key 'x' in [report] — valid: version_pairs"),
        ({"evaluation": {"evaluators": [3]}}, "evaluation.evaluators[1]: expected an evaluator"),
        (
            {"evaluation": {"timing_repeats": -1}},
            "timing_repeats must be an integer >= 0",
        ),
        ({"prompts": {"conditions": 3}}, "study.toml: prompts.conditions: expected a list, got 3"),
    ],
)
def test_errors_name_the_file_and_the_key(table: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        study_from_dict({**BASE, **table}, Path("/x/study.toml"))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_defaults_are_the_runtime_defaults() -> None:
    study = study_from_dict(dict(BASE), Path("/x/study.toml"))
    assert (study.name, study.seed, study.n) == ("study", 0, 1)
    assert study.sampling == SamplingParams()
    assert study.limits == ExecutionLimits()
    assert study.executor == ExecutorChoice()
    assert study.plan.name == "function-only"
    assert (study.models[0].label, study.models[0].max_concurrency) == ("a", 4)


def test_values_keep_their_toml_types_and_model_options_go_to_the_provider() -> None:
    raw = {
        **BASE,
        "models": [{"spec": "openai:m", "label": "e", "request_timeout": 5}],
        "sampling": {"temperature": 0, "stop": ["x"], "n": 2},
        "execution": {"timeout_s": 5, "test_timeout_s": 1.5, "executor": "subprocess"},
    }
    study = study_from_dict(raw, Path("/x/study.toml"))
    assert repr(study.sampling.temperature) == "0" and study.sampling.stop == ("x",)
    assert repr(study.limits.timeout_s) == "5" and study.limits.test_timeout_s == 1.5
    assert study.executor.name == "subprocess" and study.n == 2
    assert study.models[0].options == {"request_timeout": 5}


def test_a_former_evaluator_name_and_the_current_one_are_one_evaluator() -> None:
    raw = {
        **BASE,
        "evaluation": {"evaluators": ["psb2_smells"], "psb2-smells": {"timeout_s": 9.0}},
    }
    study = study_from_dict(raw, Path("/x/study.toml"))
    assert [(e.name, e.options["timeout_s"]) for e in study.evaluators] == [("psb2-smells", 9.0)]


def test_a_path_in_an_evaluators_options_is_relative_to_the_study_file() -> None:
    """RobustAPI's rule file, as every path of a study file (an absolute one stays)."""
    for rules, expected in (("rules/mine.txt", "/x/rules/mine.txt"), ("/r.txt", "/r.txt")):
        raw = {
            "arms": [
                {"name": "api", "benchmarks": [{"name": "robustapi"}],
                 "prompts": {"plan": "robustapi"}, "evaluation": {"robustapi": {"rules": rules}}},
                {"name": "plain", "benchmarks": [{"name": "demo"}]},
            ],
            "models": [{"spec": "replay:a.jsonl"}],
        }  # fmt: skip
        study = study_from_dict(raw, Path("/x/study.toml"))
        assert study.verdict_options["robustapi"]["rules"] == expected
