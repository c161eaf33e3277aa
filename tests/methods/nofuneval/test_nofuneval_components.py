"""NoFunEval's components: answer reading, classification parsing, plans, score@k, registry."""

from __future__ import annotations

import itertools
import random
from statistics import mean

import pytest

from beyondpass import registry
from beyondpass.analysis.passk import pass_at_k
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.nofuneval.classify.choices import parse_choice
from beyondpass.methods.nofuneval.edit.samples import score_at_k
from beyondpass.methods.nofuneval.extraction.readers import compat_extract, robust_extract
from beyondpass.methods.nofuneval.prompts import edit_plan
from beyondpass.study.builtin import study_files
from nofuneval_data import nofuneval_dir

PROMPT = "### Instruction:\nEdit it.\n```java\nclass A {}\n```\n\n### Response:\n```java\n"


@pytest.mark.parametrize(
    ("answer", "choice"),
    [
        ("A", "A"),
        ("B\n\nBecause it is faster.", "B"),
        ("Code-A", "A"),
        ("A.", "A"),
        ("(B)", "B"),
        ("**B**", "B"),
        ("The answer is A.", "A"),
        ("A better version is Code-B.", "B"),
        ("Both Code-A and Code-B work.", None),
        ("", None),
        ("I am not sure.", None),
    ],
)
def test_parse_choice(answer, choice):
    assert parse_choice(answer) == choice


def test_robust_reads_completion_of_open_fence():
    edited = robust_extract(PROMPT + "class A { int x; }\n```\n\n### Instruction:\nmore", (PROMPT,))
    assert edited.code == "class A { int x; }\n" and edited.template_followed


def test_robust_reads_completion_without_echo():
    edited = robust_extract("class B {}\n```\nSome prose.", (PROMPT,), "java")
    assert edited.code == "class B {}\n"


def test_robust_prefers_block_in_row_language():
    answer = "Here:\n```text\nnotes notes notes notes\n```\n```java\nclass C {}\n```\n"
    assert robust_extract(answer, (), "java").code == "class C {}\n"


def test_robust_unfenced_answer_is_not_template():
    edited = robust_extract("class D {}", (), "java")
    assert edited.code == "class D {}" and not edited.template_followed


def test_compat_takes_second_response_for_one_shot():
    answer = (
        "### Instruction:\nx\n### Response:\n```java\nexample\n```\n"
        "### Instruction:\ny\n### Response:\n```java\nanswer\n```\n"
    )
    assert compat_extract(answer, "one_shot", "java").code == "answer\n"
    assert compat_extract(answer, "base_prompt", "java").code == "example\n"


def test_compat_without_fence_is_template_not_followed():
    edited = compat_extract("### Response:\nclass E {}\nthanks", "base_prompt", "java")
    assert not edited.template_followed
    assert edited.code.startswith("class E {}")


def _brute_force(values, k):
    return mean(max(c) for c in itertools.combinations(values, k))


def test_score_at_k_is_expected_max_of_k():
    rng = random.Random(7)
    for n in range(1, 7):
        values = [rng.choice([0.0, 0.25, 1.0, rng.random()]) for _ in range(n)]
        for k in range(1, n + 1):
            assert score_at_k(values, k) == pytest.approx(_brute_force(values, k))


def test_score_at_k_of_pass_fail_values_is_pass_at_k():
    for n in range(1, 7):
        for c in range(n + 1):
            values = [1.0] * c + [0.0] * (n - c)
            for k in range(1, n + 1):
                assert score_at_k(values, k) == pytest.approx(pass_at_k(n, c, k), abs=1e-12)
                assert pass_at_k(n, c, k) == pytest.approx(_brute_force(values, k))


def test_score_at_k_rejects_k_above_n():
    with pytest.raises(ValueError, match="1 <= k <= n"):
        score_at_k([1.0], 2)


def test_edit_plan_select_and_errors(tmp_path):
    plan = edit_plan({"plan": "nofuneval-edit", "select": ["one_shot"]}, tmp_path, "prompts")
    assert [c.id for c in plan.conditions] == ["one_shot"]
    with pytest.raises(ConfigError, match="unknown \\['cot'\\]"):
        edit_plan({"select": ["cot"]}, tmp_path, "prompts")
    with pytest.raises(ConfigError, match="unknown key"):
        edit_plan({"shots": 1}, tmp_path, "prompts")


def test_registry_lists_subsets_and_renders_dataset_prompt():
    from beyondpass.prompts.plan import render

    for name in ("nofuneval-latency", "nofuneval-runtime_efficiency", "nofuneval-classify"):
        assert name in registry.named("benchmarks")
    bench = registry.named("benchmarks")["nofuneval-latency"]
    from beyondpass.methods.nofuneval.benchmark import load_subset

    task = load_subset("latency", nofuneval_dir().parent).tasks["0"]
    plan = edit_plan({}, None, "prompts")
    cot = next(c for c in plan.conditions if c.id == "chain_of_thought")
    (message,) = render(cot.steps[0], task)
    assert message.content == task.metadata["prompt_fields"]["chain_of_thought"]
    assert bench[0].answer_format == "nofuneval-edit"


def test_runtime_tasks_carry_codenet_cases():
    from beyondpass.methods.nofuneval.benchmark import load_subset

    bench = load_subset("runtime_efficiency", nofuneval_dir().parent)
    assert len(bench) == 113
    assert sum(len(t.tests) for t in bench.tasks.values()) == 443
    assert all(t.tests and all(c.is_io for c in t.tests) for t in bench.tasks.values())


def test_maintainability_needs_the_users_file(tmp_path, monkeypatch):
    from beyondpass.methods.nofuneval.benchmark import MAINTAINABILITY_ENV, load_subset

    monkeypatch.delenv(MAINTAINABILITY_ENV, raising=False)
    with pytest.raises(DataError, match="not public"):
        load_subset("maintainability", tmp_path)
    own = tmp_path / "m.jsonl"
    row = nofuneval_dir() / "latency.jsonl"
    own.write_text(row.read_text().splitlines()[0] + "\n")
    monkeypatch.setenv(MAINTAINABILITY_ENV, str(own))
    assert len(load_subset("maintainability", tmp_path)) == 1


def test_builtin_study_loads_with_the_edit_plan():
    from beyondpass.study.config import load_study

    path = study_files()["nofuneval"]
    study = load_study(path, extra_models=["openai:gpt-4o-mini"])
    assert [b.name for b in study.benchmarks] == [
        "nofuneval-latency",
        "nofuneval-resource_util",
        "nofuneval-runtime_efficiency",
        "nofuneval-security",
    ]
    assert [c.id for c in study.plan.conditions] == [
        "base_prompt",
        "one_shot",
        "chain_of_thought",
        "coding_concepts",
    ]
    assert study.plan.answer_format == "nofuneval-edit"


def test_robust_reads_fence_closed_at_end_of_code_line():
    edited = robust_extract(PROMPT + "class F { }```", (PROMPT,), "java")
    assert edited.code == "class F { }" and edited.template_followed


def test_edit_evaluator_verdicts_and_diffbleu():
    from beyondpass.evaluators.base import Candidate
    from beyondpass.methods.nofuneval.benchmark import load_subset
    from beyondpass.methods.nofuneval.edit.evaluator import DiffBleuEvaluator
    from beyondpass.methods.nofuneval.extraction.answers import extract_edit

    task = load_subset("latency", nofuneval_dir().parent).tasks["1"]
    meta = task.metadata
    answers = [
        "```java\n" + meta["target_code"] + "\n```",
        "```java\n" + meta["source_code"] + "\n```",
        "",
    ]
    cands = [Candidate(task, extract_edit(a, task), a) for a in answers]
    got = DiffBleuEvaluator().evaluate(cands)
    # a latency row has no tests: nothing about the edit is checked, so no verdict says
    # passed or failed; whether it edited anything is a metric
    assert [e.status for e in got] == ["scored", "scored", "no_code"]
    assert [e.passed for e in got] == [None, None, None]
    assert [e.metrics["edited"] for e in got] == [1, 0, 0]
    assert got[0].metrics["diffbleu"] == pytest.approx(1.0)
    assert got[1].metrics["diffbleu"] == 0.0 and got[2].metrics["diffbleu"] == 0.0
    assert got[0].metrics["template_followed"] is True
