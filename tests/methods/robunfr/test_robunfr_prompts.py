"""RobuNFR prompt data, plan, built-in study and their errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError
from beyondpass.methods.robunfr.prompts import load_templates, robunfr_plan
from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate, plan_from_config, render
from beyondpass.study.config import load_study, resolve_study_path

SEED = Path(__file__).resolve().parents[4] / "shared" / "seeds" / "000_cc1ff21651d8b8bc.txt"
TASK = load_benchmark("demo").tasks["demo/add"]
ORDER = ["reliability", "design", "readability", "performance"]  # Table 1's column order


def test_table1_is_the_seeds_wording():
    """Each of Table 1's ten rows is the four columns' variants, verbatim."""
    if not SEED.is_file():
        pytest.skip(f"seed text not found at {SEED}")
    text = SEED.read_text(encoding="utf-8")
    start = text.index("Error-handle Code Smell Readability Performance\n") + len(
        "Error-handle Code Smell Readability Performance\n"
    )
    rows = text[start:].splitlines()[:10]
    t = load_templates()
    assert list(t.nfrs) == ["design", "readability", "reliability", "performance"]
    for i, row in enumerate(rows):
        assert row == " ".join(t.nfrs[k].variants[i] for k in ORDER)
    assert "Figure 4" in text and "Complete the following code.\n## Input:" in text
    assert (
        t.frames["function_only"]
        == "Complete the following code.\n## Input:\n{prompt}\n## Response:\n"
    )


def test_the_paper_design_has_81_conditions():
    plan = robunfr_plan(load_templates(), function_only_repeats=10)
    ids = [c.id for c in plan.conditions]
    assert len(ids) == 81 and len(set(ids)) == 81
    fo = plan.conditions[0]
    assert (fo.id, fo.workflow, fo.repeats) == ("function-only", "function-only", 10)
    for workflow, prefix, steps in (
        ("nfr-integrated", "integrated", 1),
        ("nfr-enhanced", "enhanced", 2),
    ):
        conds = [c for c in plan.conditions if c.workflow == workflow]
        assert len(conds) == 40
        for c in conds:
            nfr, number = c.metadata["nfr"], c.metadata["variant"]
            assert c.id == f"{prefix}.{nfr}.p{number:02d}"
            assert len(c.steps) == steps and c.repeats == 1
            assert (
                c.metadata["templates"] == "built-in" and len(c.metadata["templates_sha256"]) == 64
            )
            variant = load_templates().nfrs[nfr].variants[number - 1]
            assert c.metadata["variant_text"] == variant
    integ = next(c for c in plan.conditions if c.id == "integrated.reliability.p03")
    (msg,) = render(integ.steps[0], TASK)
    assert msg.content == (
        "Apply different error handling mechanisms and complete the following code.\n"
        f"## Input:\n{TASK.prompt}\n## Response:\n"
    )
    enh = next(c for c in plan.conditions if c.id == "enhanced.performance.p10")
    assert enh.steps[0].reuse == "function-only" and enh.steps[0].user == fo.steps[0].user
    (msg,) = render(enh.steps[1], TASK, code="def add(a, b):\n    return a + b\n")
    assert msg.content == (
        "Maximize performance in your solution and improve the following code.\n"
        "## Input:\ndef add(a, b):\n    return a + b\n\n## Response:\n"
    )


def test_builtin_study_from_anywhere_and_local_files_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, builtin = resolve_study_path("studies/robunfr.toml")
    assert builtin and path.name == "robunfr.toml" and "beyondpass" in str(path)
    assert resolve_study_path("robunfr")[1]
    cfg = load_study("studies/robunfr.toml", ["replay:answers.jsonl"])
    assert [b.name for b in cfg.benchmarks] == ["humaneval", "humaneval-et", "mbpp", "mbpp-et"]
    assert len(cfg.plan.conditions) == 81 and cfg.plan.conditions[0].repeats == 10
    assert cfg.sampling.temperature == 0.0 and cfg.n == 1 and cfg.uses("nfr")
    # a --model path is relative to the working directory, not to the packaged study
    assert cfg.models[0].spec == f"replay:{tmp_path / 'answers.jsonl'}"
    local = tmp_path / "studies" / "robunfr.toml"
    local.parent.mkdir()
    local.write_text('name = "mine"\n[[benchmarks]]\nname = "demo"\n', encoding="utf-8")
    assert resolve_study_path("studies/robunfr.toml") == (Path("studies/robunfr.toml"), False)
    assert load_study("studies/robunfr.toml", ["replay:x.jsonl"]).name == "mine"
    with pytest.raises(ConfigError, match="does not exist"):
        load_study("studies/nope.toml")


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


STUDY = """
name = "s"
[[benchmarks]]
name = "demo"
[[models]]
spec = "replay:a.jsonl"
[prompts]
plan = "robunfr"
"""


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('workflows = ["sideways"]', "unknown workflow 'sideways'"),
        ("variants = [0]", "variant 0 is not between 1 and 10"),
        ("variants = 11", "variant 11 is not between 1 and 10"),
        ('nfrs = ["security"]', "no NFR 'security'"),
        ("function_only_repeats = 0", "function_only_repeats must be a positive integer"),
        ("colour = 1", "unknown key(s) ['colour']"),
        ('templates = "missing.toml"', "missing.toml does not exist"),
    ],
)
def test_plan_errors_name_the_file_and_key(tmp_path, extra, message):
    study = write(tmp_path, "study.toml", STUDY + extra + "\n")
    with pytest.raises(ConfigError) as info:
        load_study(study)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[nfrs.x]\nvariants = []\n", "nfrs.x.variants must be a non-empty list"),
        ('[nfrs.x]\nvariants = ["a", "a"]\n', "nfrs.x.variants repeats ['a']"),
        ('[nfrs.x]\nvariants = ["use {prompt}"]\n', "contains a task placeholder"),
        ('[nfrs.x]\nvariants = ["a"]\ncolour = 1\n', "unknown key(s) ['colour']"),
        ('[frames]\nenhanced = "no code here {nfr}"\n[nfrs.x]\nvariants = ["a"]\n', "needs {code}"),
        ('[frames]\nintegrated = "{prompt}"\n[nfrs.x]\nvariants = ["a"]\n', "needs {nfr}"),
        ("[nfrs]\n", "no [nfrs.KEY] tables"),
        ("x = [\n", "invalid TOML"),
    ],
)
def test_template_file_errors(tmp_path, body, message):
    write(tmp_path, "t.toml", body)
    study = write(tmp_path, "study.toml", STUDY + 'templates = "t.toml"\n')
    with pytest.raises(ConfigError) as info:
        load_study(study)
    assert message in str(info.value) and "t.toml" in str(info.value)


def test_own_template_file_keeps_builtin_frames_and_records_itself(tmp_path):
    write(
        tmp_path,
        "t.toml",
        '[nfrs.security]\nlabel = "Security"\nvariants = ["Avoid injection", "Validate input"]\n',
    )
    study = write(
        tmp_path, "study.toml", STUDY + 'templates = "t.toml"\nworkflows = ["integrated"]\n'
    )
    cfg = load_study(study)
    ids = [c.id for c in cfg.plan.conditions]
    assert ids == ["function-only", "integrated.security.p01", "integrated.security.p02"]
    c = cfg.plan.conditions[2]
    assert c.steps[0].user.startswith("Validate input and complete the following code.")
    assert c.metadata["templates"] == str((tmp_path / "t.toml").resolve())
    assert c.metadata["nfr_label"] == "Security"


def test_reuse_is_validated():
    a = Condition("a", (PromptTemplate("{prompt}"),))
    b = Condition("b", (PromptTemplate("", reuse="a"), PromptTemplate("{code}")))
    PromptPlan("ok", (a, b))
    with pytest.raises(ConfigError, match="reuses 'zz', which is not in the plan"):
        PromptPlan(
            "p", (a, Condition("b", (PromptTemplate("", reuse="zz"), PromptTemplate("{code}"))))
        )
    with pytest.raises(ConfigError, match="which itself reuses 'a'"):
        c = Condition("c", (PromptTemplate("", reuse="b"), PromptTemplate("{code}")))
        PromptPlan("p", (a, b, c))
    with pytest.raises(ConfigError, match="only step 1 can reuse"):
        Condition("x", (PromptTemplate("{prompt}"), PromptTemplate("{code}", reuse="a")))
    with pytest.raises(ConfigError, match="more repeats"):
        PromptPlan("p", (a, Condition("b", b.steps, repeats=2)))
    plan = plan_from_config(
        "p",
        [
            {"id": "base", "user": "{prompt}", "repeats": 2},
            {"id": "refine", "steps": [{"reuse": "base"}, {"user": "Improve: {code}"}]},
        ],
    )
    assert plan.conditions[0].repeats == 2 and plan.conditions[1].steps[0].reuse == "base"


def test_report_version_pairs_are_checked(tmp_path):
    study = write(tmp_path, "s.toml", STUDY + '[report]\nversion_pairs = [["a"]]\n')
    with pytest.raises(ConfigError, match=re.escape("report.version_pairs[1] must be two")):
        load_study(study)
    ok = write(tmp_path, "o.toml", STUDY + '[report]\nversion_pairs = [["a", "b"]]\n')
    other = write(tmp_path, "p.toml", STUDY + '[report]\nversion_pairs = [["b", "a"]]\n')
    # presentation is not design: a different pair list keeps the run's identity
    assert load_study(ok).config_hash() == load_study(other).config_hash()
