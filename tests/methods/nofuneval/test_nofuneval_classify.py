"""NoFunClassify answers: NoFunEval's own reading (compat) against the robust one, in
``nofuneval score`` and the ``nofuneval-classify`` evaluator; a plan made for the other kind
of NoFunEval benchmark is refused before any model is asked."""

from __future__ import annotations

import json

import pytest

from nofuneval_data import nofuneval_dir


# -- a plan for the other kind of benchmark ------------------------------------------------
@pytest.mark.parametrize(
    ("plan", "bench", "field"),
    [
        ("nofuneval-classify", "nofuneval-latency", "classification_left_prompt"),
        ("nofuneval-edit", "nofuneval-classify-security", "base_prompt"),
    ],
)
def test_plan_for_the_other_benchmark_kind_is_one_line_and_asks_nothing(
    run_cli, tmp_path, plan, bench, field
):
    from fake_endpoints import FakeEndpoint

    data = nofuneval_dir().parent
    with FakeEndpoint() as server:
        study = tmp_path / "study.toml"
        study.write_text(
            f'name = "mismatch"\n[[benchmarks]]\nname = "{bench}"\nlimit = 2\n'
            f'[prompts]\nplan = "{plan}"\n'
            f'[[models]]\nspec = "openai:m@{server.openai_base_url}#api=completions"\n'
        )
        proc = run_cli(
            ["run", study, "--out", tmp_path / "run", "--no-cache", "--data-dir", data],
            cwd=tmp_path,
            unset=["OPENAI_API_KEY"],
        )
        asked = server.request_count
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"prompt plan '{plan}'" in lines[0] and repr(field) in lines[0]
    assert f"benchmark {bench} does not have" in lines[0]
    assert asked == 0  # refused before any request reached the model
    assert not (tmp_path / "run").exists()  # and before the run directory was made


def test_matching_plans_pass_the_field_check(data_dir):
    """The check refuses only the mismatch: each plan on its own kind of benchmark passes."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval.prompts import CLASSIFY_PLAN, EDIT_PLAN
    from beyondpass.prompts.plan import check_prompt_fields

    edit = list(load_benchmark("nofuneval-security", str(data_dir)).tasks.values())
    pairs = list(load_benchmark("nofuneval-classify-security", str(data_dir)).tasks.values())
    check_prompt_fields(EDIT_PLAN, {"nofuneval-security": edit})
    check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-classify-security": pairs})
    humaneval = list(load_benchmark("nofuneval-classify", str(data_dir)).tasks.values())
    check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-classify": humaneval})
    with pytest.raises(ConfigError, match="'classification_left_prompt'"):
        check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-security": edit})
    with pytest.raises(ConfigError, match="benchmark nofuneval-classify does not have"):
        check_prompt_fields(EDIT_PLAN, {"nofuneval-classify": humaneval})


# -- NoFunEval's reading of an answer (compat) against the robust one ----------------------
#: answer -> (robust choice, NoFunEval's choice). NoFunEval's column follows their
#: extract_single_predictions: the first whitespace-separated word, lower-cased, must be
#: exactly "a" or "b"; their code raises IndexError on a blank answer (here: unparsed).
READINGS = [
    ("A", "A", "A"),
    ("b", "B", "B"),
    (" B\n\n### Instruction:", "B", "B"),
    ("A.", "A", None),
    ("(B)", "B", None),
    ("Code-A", "A", None),
    ("**B**", "B", None),
    ("B:", "B", None),
    ("The answer is A", "A", None),
    ("A better version is Code-B.", "B", "A"),
    ("B, because it avoids the copy", "B", None),
    ("Both are the same", None, None),
    ("", None, None),
    ("   \n", None, None),
]


@pytest.mark.parametrize(("answer", "robust", "compat"), READINGS)
def test_robust_and_nofuneval_readings(answer, robust, compat):
    from beyondpass.methods.nofuneval.classify.choices import parse_choice, parse_choice_compat

    assert parse_choice(answer) == robust
    assert parse_choice_compat(answer) == compat


#: answer templates ({c}: the right program's letter, {o}: the other's) -> whether the robust
#: reading and NoFunEval's read the right program from it
TEMPLATES = [
    ("{c}", True, True),
    ("{c}.", True, False),
    ("({c})", True, False),
    ("Code-{c}", True, False),
    ("{o} better version is Code-{c}.", True, False),  # NoFunEval reads the first word
    ("", False, False),
]


def test_score_compat_reads_as_nofuneval(run_cli, tmp_path):
    from nofuneval_data import rows
    from nofuneval_helpers import score_cli

    data = rows("humanevalclassify.jsonl")
    other = {"A": "B", "B": "A"}
    lines, want = [], {"robust": [], "compat": []}
    for n, (template, robust, compat) in enumerate(TEMPLATES):
        left, right = (data[n][f"classification_{o}_label"] for o in ("left", "right"))
        lines.append({"row": n, "ordering": "left", "generation": left})  # read alike
        text = template.format(c=right, o=other[right])
        lines.append({"row": n, "ordering": "right", "generation": text})
        want["robust"].append(robust)
        want["compat"].append(compat)
    gens = tmp_path / "g.jsonl"
    gens.write_text("".join(json.dumps(x) + "\n" for x in lines))
    got = {}
    for mode, extra in (("robust", ()), ("compat", ("--compat", "nofuneval"))):
        out = tmp_path / mode
        proc = score_cli(
            run_cli, tmp_path, "--subset", "humanevalclassify", "--generations", gens,
            "--out", out, "--json", *extra,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        got[mode] = json.loads(proc.stdout)
        scored = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
        assert [s["correct"] for s in scored] == want[mode]
        assert got[mode]["reading"] == mode
        assert got[mode]["accuracy"] == pytest.approx(sum(want[mode]) / len(TEMPLATES))
        assert got[mode]["accuracy_left"] == 1.0
    assert got["robust"]["accuracy"] > got["compat"]["accuracy"]
    # NoFunEval's "right_consistency": answers of the right ordering a choice was read from
    assert got["compat"]["parse_rate_right"] == pytest.approx(2 / len(TEMPLATES))
    assert got["robust"]["parse_rate_right"] == pytest.approx(5 / len(TEMPLATES))


def test_classify_evaluator_compat_option(data_dir):
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction
    from beyondpass.methods.nofuneval.classify.evaluator import ClassifyEvaluator, ClassifyOptions

    task = load_benchmark("nofuneval-classify-latency", str(data_dir)).tasks["0"]
    left = task.metadata["classification_left_label"]
    none = Extraction("no_code", "", "", "none")
    answers = [f"{left}.", f"({left})", left, f"Code-{left} is faster"]
    cands = [Candidate(task, none, a, "classification_left") for a in answers]
    robust = ClassifyEvaluator().evaluate(cands)
    compat = ClassifyEvaluator(ClassifyOptions(compat="nofuneval")).evaluate(cands)
    assert [e.status for e in robust] == ["correct"] * 4
    assert [e.status for e in compat] == ["no_code", "no_code", "correct", "no_code"]
    assert ClassifyEvaluator(ClassifyOptions(compat="nofuneval")).metadata()["reading"] == "compat"


def test_study_file_takes_the_compat_option(tmp_path):
    from beyondpass.errors import ConfigError
    from beyondpass.study.config import load_study

    study = tmp_path / "s.toml"
    base = (
        'name = "c"\n[[benchmarks]]\nname = "nofuneval-classify"\n'
        '[prompts]\nplan = "nofuneval-classify"\n[[models]]\nspec = "replay:x.jsonl"\n'
    )
    study.write_text(base + '[evaluation."nofuneval-classify"]\ncompat = "nofuneval"\n')
    assert load_study(study).verdict_options["nofuneval-classify"] == {"compat": "nofuneval"}
    study.write_text(base + '[evaluation."nofuneval-classify"]\ncompat = "authors"\n')
    with pytest.raises(ConfigError, match="compat"):
        load_study(study)
