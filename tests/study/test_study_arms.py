"""Studies with arms: each arm its own benchmarks, prompts, sampling and evaluators, checked
so that what names a sample or an evaluator means one thing in the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from beyondpass.errors import ConfigError
from beyondpass.study.config import study_from_dict

MODELS = [{"spec": "replay:a.jsonl"}]
WHERE = Path("/x/study.toml")


def arm(name: str, **tables: Any) -> dict[str, Any]:
    return {"name": name, "benchmarks": [{"name": "demo"}], **tables}


def test_a_file_without_arms_is_one_arm_named_empty() -> None:
    cfg = study_from_dict({"benchmarks": [{"name": "demo"}], "models": MODELS}, WHERE)
    assert [a.name for a in cfg.arms] == [""]
    assert cfg.plan is cfg.arms[0].plan and cfg.n == 1


def test_arms_override_the_study_sampling_key_by_key_and_keep_their_evaluators() -> None:
    raw = {
        "models": MODELS,
        "sampling": {"temperature": 0.5, "max_tokens": 100, "n": 2},
        "arms": [
            arm("plain", evaluation={"nfr": True}),
            arm("neutral", prompts={"plan": "neutral"}, sampling={"max_tokens": 7, "n": 1}),
        ],
    }
    cfg = study_from_dict(raw, WHERE)
    plain, neutral = cfg.arms
    assert (plain.sampling.temperature, plain.sampling.max_tokens, plain.n) == (0.5, 100, 2)
    assert (neutral.sampling.temperature, neutral.sampling.max_tokens, neutral.n) == (0.5, 7, 1)
    assert [e.name for e in plain.evaluators] == ["nfr"] and neutral.evaluators == ()
    assert cfg.timing_repeats == 5  # nfr's timed re-runs: one verdict evaluator for all arms
    with pytest.raises(ConfigError, match="has 2 arms"):
        _ = cfg.plan


@pytest.mark.parametrize(
    ("arms", "extra", "message"),
    [
        ([arm("a"), arm("a", prompts={"plan": "neutral"})], {}, "two arms are named 'a'"),
        ([arm("a"), arm("b")], {}, "arms 'a' and 'b' both ask condition 'function-only'"),
        ([arm("a")], {"benchmarks": [{"name": "demo"}]}, "move [benchmarks] into the arms"),
        ([arm("a b")], {}, "arms[1].name must be a short name"),
        (
            [
                arm("a", evaluation={"functional": {"timing_repeats": 2}}),
                arm("b", prompts={"plan": "neutral"}, evaluation={"timing_repeats": 3}),
            ],
            {},
            "evaluation.functional.timing_repeats = 3, but /x/study.toml: arms[1] (a) says 2",
        ),
        (
            [
                arm("a", evaluation={"nfr": {"file_timeout_s": 5}}),
                arm("b", prompts={"plan": "neutral"}, evaluation={"nfr": True}),
            ],
            {},
            "evaluator 'nfr' has other options in arm 'b' than in arm 'a'",
        ),
        (
            [
                arm("a"),
                {
                    "name": "b",
                    "benchmarks": [{"name": "demo", "tasks": ["demo/fizzbuzz"]}],
                    "prompts": {"conditions": [{"id": "function-only", "user": "{prompt}"}]},
                },
            ],
            {},
            "both ask condition 'function-only' of benchmark 'demo'",
        ),
        ([{"name": "a", "benchmarks": [], "colour": 1}], {}, "unknown key 'colour' in [arms[1]]"),
    ],
)
def test_arms_that_would_mix_samples_or_evaluators_are_refused(
    arms: list[dict[str, Any]], extra: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        study_from_dict({"models": MODELS, "arms": arms, **extra}, WHERE)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_condition_id_defined_differently_in_two_arms_is_refused() -> None:
    raw = {
        "models": MODELS,
        "arms": [
            {
                "name": "a",
                "benchmarks": [{"name": "demo"}],
                "prompts": {"conditions": [{"id": "ask", "user": "Solve {prompt}"}]},
            },
            {
                "name": "b",
                "benchmarks": [{"name": "humaneval"}],
                "prompts": {"conditions": [{"id": "ask", "user": "Write {prompt}"}]},
            },
        ],
    }
    with pytest.raises(ConfigError, match="define condition 'ask' differently"):
        study_from_dict(raw, WHERE)


def test_the_built_in_profile_study_has_an_arm_per_method(data_dir) -> None:
    from beyondpass.study.config import load_study

    cfg = load_study("studies/profile.toml", ["openai:m"])
    names = [a.name for a in cfg.arms]
    assert names == [
        "robunfr", "robustapi", "psb2", "obfuseval", "nofuneval-edit", "nofuneval-classify"
    ]  # fmt: skip
    assert {e.name for e in cfg.evaluators} == {"nfr", "psb2-quality", "psb2-smells"}
    assert cfg.arms[1].sampling.temperature == 0.2 and cfg.arms[0].sampling.temperature == 0.0


def test_an_arms_evaluators_score_its_samples_only_in_run_and_rescore(tmp_path) -> None:
    """Two arms on the demo tasks, replayed: nfr scores the first arm's samples alone, at the
    run and when rescored; an evaluator no arm names is rescored on every sample."""

    from beyondpass.store.run_store import RunStore
    from beyondpass.study.rescore import rescore
    from beyondpass.study.runner import StudyRunner

    answers = Path(__file__).parents[1] / "data" / "two-models" / "answers-careful.jsonl"

    def arm_of(name: str, condition: str, text: str, **tables: Any) -> dict[str, Any]:
        return {
            "name": name,
            "benchmarks": [{"name": "demo"}],
            "prompts": {"conditions": [{"id": condition, "user": text}]},
            **tables,
        }

    raw = {
        "models": [{"spec": f"replay:{answers}", "label": "careful"}],
        "execution": {"timeout_s": 5},
        "arms": [
            arm_of(
                "plain",
                "function-only",
                "Complete the following code.\n{prompt}",
                evaluation={"nfr": True},
            ),  # fmt: skip
            arm_of("neutral", "neutral", "Generate a {language} code!\n{prompt}"),
        ],
    }
    cfg = study_from_dict(raw, tmp_path / "study.toml")
    outcome = StudyRunner(cfg, tmp_path / "run").run()
    assert outcome.expected == outcome.scored > 0 and not outcome.failures

    def scored(evaluator: str) -> set[str]:
        with RunStore(tmp_path / "run", create=False) as store:
            conditions = {r.sample.key: r.sample.condition for r in store.rows()}
            return {conditions[k] for k in store.evaluation_keys(evaluator)}

    assert scored("nfr") == {"function-only"}
    with RunStore(tmp_path / "run", create=False) as store:
        meta = store.all_meta()
    assert meta["arms"]["plain"]["evaluators"] == ["nfr"]
    assert meta["status"] == "complete"

    again = rescore(tmp_path / "run", ["nfr", "psb2-quality"])
    counts = {r["evaluator"]: r["samples_scored"] for r in again.evaluators}
    per_arm = outcome.expected // 2
    assert counts == {"nfr": per_arm, "psb2-quality": 2 * per_arm}
    assert scored("nfr") == {"function-only"}
    assert scored("psb2-quality") == {"function-only", "neutral"}
