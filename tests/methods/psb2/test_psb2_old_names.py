"""Runs, study files and commands that use the evaluators' former names (``psb2_quality``,
``psb2_smells``, before they were hyphenated like every other evaluator) keep working: a run
stored by that release (tests/data/store-v2, made with it) reports and rescores to the same
numbers under the new names, and the old names still select the evaluators."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tarfile
from pathlib import Path

from psb2_study import run_gcd_study

V2 = Path(__file__).parents[2] / "data" / "store-v2"


def _unpack(name: str, into: Path) -> Path:
    with tarfile.open(V2 / f"{name}.tgz") as tar:
        tar.extractall(into, filter="data")
    return into / name


def _evaluators(run: Path) -> list[str]:
    with sqlite3.connect(run / "run.sqlite3") as db:
        names = db.execute("SELECT name FROM evaluators ORDER BY position").fetchall()
        stored = db.execute("SELECT DISTINCT evaluator FROM evaluations").fetchall()
    assert {n for (n,) in stored} == {n for (n,) in names}
    return [n for (n,) in names]


def test_a_stored_run_reports_the_same_tables_as_the_release_that_made_it(
    run_cli, tmp_path: Path
) -> None:
    run = _unpack("psb2-study", tmp_path)
    proc = run_cli(["report", str(run)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _evaluators(run) == ["functional", "psb2-quality", "psb2-smells"]
    # pass ratios and the quality table, number for number, as that release wrote them
    expected = (V2 / "psb2-study-tables.tex").read_text(encoding="utf-8")
    assert (run / "psb2_tables.tex").read_text(encoding="utf-8") == expected
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "| psb2-edge | 1.00 | 5.67 | 5.33 | 2.33 | 0.67 |" in report
    assert "Evaluator psb2-quality:" in report and "psb2_quality" not in report


def test_rescoring_a_stored_run_by_the_old_names_gives_the_same_numbers(
    run_cli, tmp_path: Path
) -> None:
    run = _unpack("psb2-evaluate", tmp_path)
    before = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    shutil.copy(V2 / "answers.jsonl", tmp_path / "answers.jsonl")  # recorded under /tmp/fx2
    proc = run_cli(
        [
            "rescore",
            str(run),
            "--evaluator",
            "psb2_quality",
            "--evaluator",
            "psb2_smells",
            "--samples",
            str(tmp_path / "answers.jsonl"),
            "--workers",
            "1",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    after = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert after == before  # recomputed, and every metric is what the old release stored
    assert any(r["smells"] for r in after) and all(r["lloc"] for r in after)
    # recomputed in place: the evaluators the run had, not a second one under the old name
    assert _evaluators(run) == ["functional", "psb2-quality", "psb2-smells"]
    with sqlite3.connect(run / "run.sqlite3") as db:
        (history,) = db.execute("SELECT value FROM meta WHERE key = 'rescores'").fetchone()
    assert [e["evaluator"] for e in json.loads(history)[-1]["evaluators"]] == [
        "psb2-quality",
        "psb2-smells",
    ]


def test_a_study_file_naming_the_old_evaluators_gets_the_new_ones(run_cli, tmp_path: Path) -> None:
    evaluation = """
        [evaluation]
        evaluators = ["psb2_quality"]
        [evaluation.psb2_smells]
        timeout_s = 120
        """
    run = run_gcd_study(run_cli, tmp_path, "old", evaluation, "--no-report")
    assert _evaluators(run) == ["functional", "psb2-quality", "psb2-smells"]
