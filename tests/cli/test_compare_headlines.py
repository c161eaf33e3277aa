"""``compare`` on two evaluations of real published answers, for methods besides RobuNFR:
each method's headline metric is the number the method itself reports for each run, and
``--fail-on`` gates it in its own units.

The second evaluation is the first one's answers with a seeded share made worse (RobustAPI:
answers without code; NoFunEval: edits cut short), so the change is known in direction.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

RECORDED = "recorded/robustapi-gpt-4-0613-zero_shot.jsonl"
GENERATIONS = "nofuneval/generations/latency/gpt-4/base_prompt/generated_outputs.jsonl"


def comparison(payload: dict, metric: str) -> dict:
    (row,) = [r for r in payload["comparisons"] if r["metric"] == metric]
    return row


@pytest.fixture(scope="module")
def robustapi_runs(tmp_path_factory, run_cli, data_dir) -> tuple[Path, dict, dict]:
    """gpt-4's recorded answers (every other line: 604 questions are plenty to compare and
    gate, at half the checking), then the same with a seeded quarter of the answers the
    checker passed replaced by a refusal: fewer executable answers, more misuse among them."""
    tmp = tmp_path_factory.mktemp("robustapi")
    recorded = (data_dir / RECORDED).read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp / "answers.jsonl").write_text("".join(recorded[::2]), encoding="utf-8")

    def check(name: str, answers: Path) -> dict:
        proc = run_cli(["robustapi", "check", "--answers", answers, "--out", tmp / name,
                        "--data-dir", data_dir, "--json"], cwd=tmp)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    old = check("old", tmp / "answers.jsonl")
    verdicts = (tmp / "old" / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    passed = {v["line"] for v in map(json.loads, verdicts) if v["verdict"] == "pass"}
    rng = random.Random(3)
    worse = tmp / "worse.jsonl"
    with (tmp / "answers.jsonl").open(encoding="utf-8") as src, worse.open("w") as out:
        for number, line in enumerate(src, 1):
            row = json.loads(line)
            if number in passed and rng.random() < 0.25:
                row["response"] = "Sorry, I cannot answer that."
            out.write(json.dumps(row) + "\n")
    return tmp, old, check("new", worse)


def test_robustapi_compare_reports_the_methods_own_rates(run_cli, robustapi_runs) -> None:
    tmp, old, new = robustapi_runs
    proc = run_cli(["compare", tmp / "old", tmp / "new", "--json"], cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    misuse = comparison(payload, "misuse_rate")
    executable = comparison(payload, "executable_rate")
    assert misuse["method"] == "robustapi" and misuse["unit"] == "%"
    assert misuse["old"] == pytest.approx(old["misuse_rate"] * 100, abs=1e-9)
    assert misuse["new"] == pytest.approx(new["misuse_rate"] * 100, abs=1e-9)
    assert executable["old"] == pytest.approx(old["executable_rate"] * 100, abs=1e-9)
    assert executable["new"] == pytest.approx(new["executable_rate"] * 100, abs=1e-9)
    assert executable["direction"] == "regressed" and executable["significant"]
    lo, hi = executable["delta_ci95"]  # the change's own paired interval
    assert lo < executable["delta"] < hi < 0
    lo, hi = misuse["old_ci95"]
    assert lo < misuse["old"] < hi
    assert executable["pairs"] == old["n"]  # paired on the question


def test_the_misuse_rate_gate_in_percentage_points(run_cli, robustapi_runs) -> None:
    tmp, old, new = robustapi_runs
    rise = (new["misuse_rate"] - old["misuse_rate"]) * 100  # among answers that compiled
    assert rise > 2
    base = ["compare", tmp / "old", tmp / "new", "--json"]
    # the questions that lost their passing answer have no misuse rate in the new run, so
    # the paired test cannot see this change: the gate is asked to act on the size alone
    tight = run_cli([*base, "--fail-on", "misuse_rate:+2pp", "--no-require-significance"],
                    cwd=tmp)  # fmt: skip
    assert tight.returncode == 4, tight.stderr
    (violation,) = json.loads(tight.stdout)["gate"]["violations"]
    assert violation["metric"] == "misuse_rate"
    assert violation["change"] == pytest.approx(rise, abs=1e-9)
    loose = run_cli([*base, "--fail-on", f"misuse_rate:+{rise + 1:.2f}pp",
                     "--no-require-significance"], cwd=tmp)  # fmt: skip
    assert loose.returncode == 0, loose.stderr
    wrong_sign = run_cli([*base, "--fail-on", "misuse_rate:-2pp"], cwd=tmp)
    assert wrong_sign.returncode == 2 and "regresses when it rises" in wrong_sign.stderr
    executable = run_cli([*base, "--fail-on", "executable_rate:-5pp"], cwd=tmp)
    assert executable.returncode == 4  # significant: paired on every question


def test_nofuneval_compare_reports_score_at_1_and_gates_diffbleu(
    run_cli, data_dir, tmp_path
) -> None:
    rng = random.Random(5)
    folder = tmp_path / "cut" / "gpt-4" / "base_prompt"
    folder.mkdir(parents=True)
    with (
        (data_dir / GENERATIONS).open(encoding="utf-8") as src,
        (folder / "generated_outputs.jsonl").open("w") as out,
    ):
        for line in src:
            row = json.loads(line)
            if rng.random() < 0.4:
                row["generated_answers"] = [a[: len(a) // 3] for a in row["generated_answers"]]
            out.write(json.dumps(row) + "\n")
    summaries = []
    for name, generations in (
        ("old", data_dir / GENERATIONS),
        ("new", folder / "generated_outputs.jsonl"),
    ):
        proc = run_cli(["nofuneval", "score", "--subset", "latency", "--generations", generations,
                        "--out", tmp_path / name, "--data-dir", data_dir, "--json"],
                       cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        summaries.append(json.loads(proc.stdout))
    old, new = summaries
    base = ["compare", tmp_path / "old", tmp_path / "new", "--json"]
    proc = run_cli(base, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    row = comparison(json.loads(proc.stdout), "diffbleu")
    assert (row["method"], row["group"], row["pairs"]) == ("nofuneval", "base_prompt", 47)
    assert row["old"] == pytest.approx(old["diffbleu_score@1"], abs=1e-12)
    assert row["new"] == pytest.approx(new["diffbleu_score@1"], abs=1e-12)
    drop = (new["diffbleu_score@1"] - old["diffbleu_score@1"]) / old["diffbleu_score@1"] * 100
    assert drop < -5
    gated = run_cli([*base, "--fail-on", "diffbleu:-5%", "--no-require-significance"], cwd=tmp_path)
    assert gated.returncode == 4, gated.stderr
    (violation,) = json.loads(gated.stdout)["gate"]["violations"]
    assert violation["metric"] == "diffbleu"
    assert violation["change"] == pytest.approx(drop, abs=1e-9)
    lenient = run_cli([*base, "--fail-on", f"diffbleu:-{abs(drop) + 1:.2f}%"], cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stderr
    pp = run_cli([*base, "--fail-on", "diffbleu:-2pp"], cwd=tmp_path)
    assert pp.returncode == 2 and "metrics shown in %" in pp.stderr


@pytest.fixture(scope="module")
def original_runs(run_cli, robustapi_runs, data_dir) -> tuple[Path, dict, dict]:
    """The same two runs checked again with ``--semantics original`` (copies: the verdicts
    are exported from the stored evaluations, nothing is scored again)."""
    tmp, _, _ = robustapi_runs
    summaries = []
    for name, answers in (("old", tmp / "answers.jsonl"), ("new", tmp / "worse.jsonl")):
        shutil.copytree(tmp / name, tmp / f"{name}-original")
        proc = run_cli(["robustapi", "check", "--answers", answers, "--out",
                        tmp / f"{name}-original", "--semantics", "original",
                        "--data-dir", data_dir, "--json"], cwd=tmp)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        summaries.append(json.loads(proc.stdout))
    return tmp, summaries[0], summaries[1]


def test_compare_reads_each_run_in_the_semantics_it_was_checked_with(
    run_cli, robustapi_runs, original_runs
) -> None:
    _, correct_old, correct_new = robustapi_runs
    tmp, old, new = original_runs
    assert old["semantics"] == new["semantics"] == "original"
    # the readings differ on these answers, so a compare in the wrong one would show
    assert old["misuse_rate"] != pytest.approx(correct_old["misuse_rate"], abs=1e-3)
    assert new["misuse_rate"] != pytest.approx(correct_new["misuse_rate"], abs=1e-3)
    base = ["compare", tmp / "old-original", tmp / "new-original", "--json"]
    proc = run_cli(base, cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    misuse = comparison(payload, "misuse_rate")
    executable = comparison(payload, "executable_rate")
    assert misuse["reading"] == executable["reading"] == "semantics=original"
    assert payload["readings"]["robustapi"] == {
        "old": {"semantics": "original"},
        "new": {"semantics": "original"},
    }
    assert any("both runs read with semantics=original" in n for n in payload["notes"])
    assert misuse["old"] == pytest.approx(old["misuse_rate"] * 100, abs=1e-9)
    assert misuse["new"] == pytest.approx(new["misuse_rate"] * 100, abs=1e-9)
    assert executable["old"] == pytest.approx(old["executable_rate"] * 100, abs=1e-9)
    assert executable["new"] == pytest.approx(new["executable_rate"] * 100, abs=1e-9)
    # the gate acts on the reading's own change, not the corrected checker's
    rise = (new["misuse_rate"] - old["misuse_rate"]) * 100
    correct_rise = (correct_new["misuse_rate"] - correct_old["misuse_rate"]) * 100
    assert abs(rise - correct_rise) > 0.5
    limit = (rise + correct_rise) / 2  # breached in one reading only
    gate = ["--fail-on", f"misuse_rate:+{limit:.3f}pp", "--no-require-significance"]
    gated = run_cli([*base, *gate], cwd=tmp)
    assert gated.returncode == (4 if rise > correct_rise else 0), gated.stderr
    in_correct = run_cli(["compare", tmp / "old", tmp / "new", "--json", *gate], cwd=tmp)
    assert in_correct.returncode == (0 if rise > correct_rise else 4), in_correct.stderr
    if gated.returncode == 4:
        (violation,) = json.loads(gated.stdout)["gate"]["violations"]
        assert violation["change"] == pytest.approx(rise, abs=1e-9)


def test_runs_read_in_different_semantics_are_refused_unless_asked(
    run_cli, robustapi_runs, original_runs
) -> None:
    _, _, correct_new = robustapi_runs
    tmp, old, _ = original_runs
    mixed = ["compare", tmp / "old-original", tmp / "new", "--json"]
    refused = run_cli(mixed, cwd=tmp)
    assert refused.returncode == 2 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert "semantics=original" in line and "semantics=correct" in line
    assert "--across-readings" in line
    asked = run_cli([*mixed, "--across-readings"], cwd=tmp)
    assert asked.returncode == 0, asked.stderr
    misuse = comparison(json.loads(asked.stdout), "misuse_rate")
    assert misuse["reading"] == "old semantics=original; new semantics=correct"
    assert misuse["old"] == pytest.approx(old["misuse_rate"] * 100, abs=1e-9)
    assert misuse["new"] == pytest.approx(correct_new["misuse_rate"] * 100, abs=1e-9)


def test_nofuneval_runs_compare_in_their_own_reading(run_cli, data_dir, tmp_path) -> None:
    """The same generations scored in NoFunEval's own reading (``--compat nofuneval``) and
    in beyondpass's: compare gives each compat run's own score@1 and refuses the mix."""
    # chain-of-thought answers: two of them are read differently (docs/nofuneval.md, 18.3 vs
    # 18.4 in Table 1's latency row for GPT-4)
    generations = data_dir / GENERATIONS.replace("base_prompt", "chain_of_thought")
    summaries = {}
    for name, compat in (("compat", ["--compat", "nofuneval"]), ("robust", [])):
        proc = run_cli(["nofuneval", "score", "--subset", "latency", "--generations",
                        generations, "--prompt", "chain_of_thought", "--out", tmp_path / name,
                        "--data-dir", data_dir, "--json", *compat], cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        summaries[name] = json.loads(proc.stdout)
    compat, robust = summaries["compat"], summaries["robust"]
    assert compat["diffbleu_score@1"] != pytest.approx(robust["diffbleu_score@1"], abs=1e-6)
    shutil.copytree(tmp_path / "compat", tmp_path / "compat-again")
    same = run_cli(["compare", tmp_path / "compat", tmp_path / "compat-again", "--json"],
                   cwd=tmp_path)  # fmt: skip
    assert same.returncode == 0, same.stderr
    row = comparison(json.loads(same.stdout), "diffbleu")
    assert row["reading"] == "reading=compat"
    assert row["old"] == row["new"] == pytest.approx(compat["diffbleu_score@1"], abs=1e-12)
    mixed = run_cli(["compare", tmp_path / "compat", tmp_path / "robust", "--json"],
                    cwd=tmp_path)  # fmt: skip
    assert mixed.returncode == 2
    assert "reading=compat" in mixed.stderr and "reading=robust" in mixed.stderr
    across = run_cli(["compare", tmp_path / "compat", tmp_path / "robust", "--json",
                      "--across-readings"], cwd=tmp_path)  # fmt: skip
    assert across.returncode == 0, across.stderr
    row = comparison(json.loads(across.stdout), "diffbleu")
    assert row["old"] == pytest.approx(compat["diffbleu_score@1"], abs=1e-12)
    assert row["new"] == pytest.approx(robust["diffbleu_score@1"], abs=1e-12)
