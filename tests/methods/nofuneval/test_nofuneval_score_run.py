"""``beyondpass nofuneval score`` is ``evaluate`` into a run store: its files are exports of
the evaluators' stored results, the run works with ``report`` and ``rescore``, a refused
second scoring leaves the run as it was, and a run killed with SIGKILL resumes without
scoring again what was stored."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.evaluators.setup import EvaluationSetup
from beyondpass.extraction import extract
from beyondpass.store.run_store import RunStore
from nofuneval_data import nofuneval_dir, rows
from nofuneval_helpers import score_cli
from pause_points import run_until_paused

LATENCY = "generations/latency/gpt-4/{}/generated_outputs.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def _score(run_cli, tmp_path, subset, gens, out, *args):
    proc = score_cli(
        run_cli, tmp_path, "--subset", subset, "--generations", gens, "--out", out, "--json", *args
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_exported_scores_are_the_evaluators_results(run_cli, tmp_path):
    """Every scores.jsonl line is what the store holds for that answer, and what the
    nofuneval-edit evaluator gives for the answer read in the compat format."""
    gens = nofuneval_dir() / LATENCY.format("one_shot")
    out = tmp_path / "out"
    summary = _score(run_cli, tmp_path, "latency", gens, out, "--compat", "nofuneval")
    assert summary["run_dir"] == str(out)
    assert json.loads((out / "summary.json").read_text()) == summary
    scores = _lines(out / "scores.jsonl")
    with RunStore(out, create=False) as store:
        stored = {(r.sample.task_id, r.sample.sample_index): r for r in store.rows()}
        reader = store.get_meta("samples")["reader"]
    assert reader["name"] == "nofuneval-generations"
    assert reader["options"]["prompt"] == "one_shot"  # resolved from the folder, recorded
    assert len(stored) == len(scores) == 47
    bench = load_benchmark("nofuneval-latency", str(nofuneval_dir().parent))
    with EvaluationSetup() as setup:
        edit = setup.evaluator("nofuneval-edit", {"compat": "nofuneval"})
        candidates = []
        for s in scores:
            row = stored[(str(s["row"]), s["sample"])]
            assert row.sample.condition == "one_shot"
            assert s["diffbleu"] == row.result.metrics["diffbleu"]
            assert s["template_followed"] is row.result.metrics["template_followed"]
            task = bench.tasks[str(s["row"])]
            fmt = "nofuneval-edit-compat"
            found = extract(row.sample.raw, task, fmt, "one_shot")
            candidates.append(_candidate(task, found, row.sample.raw, "one_shot"))
        direct = edit.evaluate(candidates)
    assert [s["diffbleu"] for s in scores] == [e.metrics["diffbleu"] for e in direct]
    mean = sum(s["diffbleu"] for s in scores) / len(scores)
    assert summary["diffbleu_score@1"] == pytest.approx(mean, abs=1e-12)


def _candidate(task, extraction, raw, condition):
    from beyondpass.evaluators.base import Candidate

    return Candidate(task, extraction, raw, condition)


def test_classification_lines_pair_the_stored_choices(run_cli, tmp_path):
    data = rows("humanevalclassify.jsonl")
    lines = [
        {"row": 0, "ordering": "left", "generation": data[0]["classification_left_label"]},
        {"row": 0, "ordering": "right", "generation": "Code-B is faster"},
        {"row": 1, "ordering": "left", "generation": "banana"},
    ]
    gens = tmp_path / "c.jsonl"
    gens.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "out"
    _score(run_cli, tmp_path, "humanevalclassify", gens, out, "--compat", "nofuneval")
    with RunStore(out, create=False) as store:
        stored = {(r.sample.task_id, r.sample.condition): r.result for r in store.rows()}
    ids = [str(data[n].get("unique_id", n)) for n in (0, 1)]
    got = {(s["row"], s["sample"]): s for s in _lines(out / "scores.jsonl")}
    assert got[(0, 0)]["left"] == stored[(ids[0], "classification_left")].details["choice"]
    assert got[(0, 0)]["right"] is None  # compat: the first word must be the letter
    assert got[(1, 0)]["left"] is None and got[(1, 0)]["missing"] == ["right"]


def test_report_rescore_and_a_refused_second_reading(run_cli, tmp_path):
    gens = nofuneval_dir() / LATENCY.format("base_prompt")
    out = tmp_path / "out"
    _score(run_cli, tmp_path, "latency", gens, out)
    scores = (out / "scores.jsonl").read_text()
    summary = json.loads((out / "summary.json").read_text())

    report = run_cli(["report", out], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "nofuneval-latency (DiffBLEU)" in (out / "report.md").read_text()
    assert "None" not in report.stdout  # LaTeX tables without a JSON twin

    (out / "scores.jsonl").write_text("stale\n")
    data = str(nofuneval_dir().parent)
    again = run_cli(["rescore", out, "--data-dir", data], cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (out / "scores.jsonl").read_text() == scores  # written again from the store
    assert json.loads((out / "summary.json").read_text()) == summary

    before = (out / "run.sqlite3").read_bytes()
    refused = score_cli(
        run_cli, tmp_path, "--subset", "latency", "--generations", gens, "--out", out,
        "--compat", "nofuneval",
    )  # fmt: skip
    assert refused.returncode == 2
    assert "read as" in refused.stderr and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (out / "scores.jsonl").read_text() == scores
    assert (out / "run.sqlite3").read_bytes() == before


def _verdicts(run_dir: Path) -> dict[str, tuple[float, str]]:
    """Stored verdict rows: sample key -> (when stored, metrics)."""
    with sqlite3.connect(run_dir / "run.sqlite3", timeout=5) as conn:
        found = conn.execute(
            "SELECT key, created_at, metrics FROM evaluations WHERE status IS NOT NULL"
        ).fetchall()
    return {key: (created, metrics) for key, created, metrics in found}


def test_a_killed_score_resumes_without_scoring_stored_results_again(tmp_path, monkeypatch):
    """SIGKILL once two edits are scored (tests/pause_points.py: stopped there, however
    loaded the machine is); the same command then scores only the rest. That an edit which
    never ends is a ``timeout`` is test_nofuneval_runtime.py's
    test_an_edit_that_never_ends_is_a_timeout; here a wrong edit's status is exported."""
    data = rows("runtime_efficiency.jsonl")
    lines = []
    for n in range(4):  # two edits per row, each run and timed on the row's cases
        lines.append({"row": n, "generation": "```python\n" + data[n]["target_code"] + "\n```"})
        lines.append({"row": n, "generation": data[n]["source_code"]})
    lines[2] = {"row": 1, "generation": "print(0)\n"}  # a wrong edit, scored after the kill
    gens = tmp_path / "rt.jsonl"
    gens.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "out"
    args = [
        "nofuneval", "score", "--subset", "runtime_efficiency", "--generations", str(gens),
        "--runs", "2", "--workers", "1", "--out", str(out), "--json",
    ]  # fmt: skip
    monkeypatch.setenv("BEYONDPASS_DATA", str(nofuneval_dir().parent))
    stored = run_until_paused(args, tmp_path, "nofuneval-edit", after=2)
    before = _verdicts(out)
    assert sorted(before) == sorted(stored) and len(before) == 2

    done = subprocess.run(
        [sys.executable, "-m", "beyondpass", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    after = _verdicts(out)
    assert len(after) == len(lines)
    assert all(after[k] == v for k, v in before.items())  # kept, not scored again
    scores = _lines(out / "scores.jsonl")
    assert [(s["row"], s["sample"]) for s in scores] == [(n, i) for n in range(4) for i in (0, 1)]
    assert [s["correct"] for s in scores] == [i != 2 for i in range(len(lines))]
    assert scores[2]["status"] == "failed"
    assert all(s["speedup"] == 1.0 for s in scores[1::2])  # the source: not an edit
    summary = json.loads(done.stdout)
    assert summary["samples"] == len(lines)
    assert summary["correct@1"] == pytest.approx(7 / 8)
    assert summary["timing"]["runs_per_case"] == 2
