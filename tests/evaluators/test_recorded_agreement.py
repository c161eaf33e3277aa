"""Acceptance on real model output: beyondpass's verdicts on recorded gpt-3.5-turbo-0613
answers agree with the verdicts their authors published (field ``is_solved``).

The few disagreements are known and listed exactly, so any new one fails the test:

* HumanEval/38 and /50: the answers call helper functions that the prompt defines;
  beyondpass runs an answer with its prompt's context, the original harness did not.
* MBPP (both ways of scoring): answers that use ``math`` or ``re`` without importing them
  (the original harness evidently had them in scope; beyondpass fails them with NameError),
  and answers the authors marked unsolved that pass the very same tests here.
* MBPP against the recorded file's own tests (``file:`` benchmark), in addition: a task
  whose test calls a function other than the one its prompt names (MBPP/338).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

HUMANEVAL_FILE = "humaneval-gpt-3.5-turbo-0613.jsonl"
MBPP_FILE = "mbpp-gpt-3.5-turbo-0613.jsonl"

HUMANEVAL_DISAGREE = {"HumanEval/38", "HumanEval/50"}
MBPP_SANITIZED_DISAGREE = {"MBPP/244", "MBPP/293", "MBPP/451", "MBPP/133", "MBPP/437", "MBPP/448"}
MBPP_OWN_TESTS_DISAGREE = {
    "MBPP/210", "MBPP/214", "MBPP/244", "MBPP/293", "MBPP/338", "MBPP/403", "MBPP/451",
    "MBPP/495", "MBPP/45", "MBPP/123", "MBPP/133", "MBPP/164", "MBPP/181", "MBPP/231",
    "MBPP/319", "MBPP/359", "MBPP/437", "MBPP/448", "MBPP/482", "MBPP/485",
}  # fmt: skip


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def verdict(value: object) -> bool:
    """The authors' ``is_solved``: a bool, or the string "True"/"False"."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip() in ("True", "False"):
        return value.strip() == "True"
    raise AssertionError(f"unexpected is_solved value {value!r}")


def no_whitespace(text: str) -> str:
    return re.sub(r"\s+", "", text)


def asserts_in_check(test: str) -> list[str]:
    return [line.strip() for line in test.splitlines() if line.strip().startswith("assert")]


class Replay:
    """One `beyondpass evaluate --json` over a recorded file."""

    def __init__(self, recorded: list[dict[str, Any]], summary: dict[str, Any], cwd: Path):
        self.recorded = recorded
        self.summary = summary
        self.results = read_jsonl(cwd / summary["results_path"])

    def pairs(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        assert len(self.results) == len(self.recorded)
        return list(zip(self.recorded, self.results, strict=True))

    def disagreeing(self, only: set[str] | None = None) -> tuple[int, set[str]]:
        """(number of tasks compared, ids where beyondpass and is_solved disagree)."""
        compared, differ = 0, set()
        for rec, res in self.pairs():
            if res["status"] == "skipped" or (only is not None and rec["task_id"] not in only):
                continue
            assert res["task_id"] == rec["task_id"]
            compared += 1
            if res["passed"] != verdict(rec["is_solved"]):
                differ.add(rec["task_id"])
        return compared, differ


def _replay(run_cli, cwd: Path, recorded_path: Path, *args: str | Path) -> Replay:
    proc = run_cli(
        ["evaluate", "--samples", recorded_path, "--out", "OUT", "--json", *args],
        cwd=cwd,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return Replay(read_jsonl(recorded_path), json.loads(proc.stdout), cwd)


@pytest.fixture(scope="module")
def recorded_dir(data_dir: Path) -> Path:
    return data_dir / "recorded"


@pytest.fixture(scope="module")
def humaneval_replay(run_cli, data_dir: Path, recorded_dir: Path, tmp_path_factory) -> Replay:
    cwd = tmp_path_factory.mktemp("recorded-humaneval")
    return _replay(
        run_cli, cwd, recorded_dir / HUMANEVAL_FILE,
        "--benchmark", "humaneval", "--data-dir", data_dir,
    )  # fmt: skip


@pytest.fixture(scope="module")
def mbpp_replay(run_cli, data_dir: Path, recorded_dir: Path, tmp_path_factory) -> Replay:
    cwd = tmp_path_factory.mktemp("recorded-mbpp")
    return _replay(
        run_cli, cwd, recorded_dir / MBPP_FILE,
        "--benchmark", "mbpp", "--data-dir", data_dir, "--skip-unknown-tasks",
    )  # fmt: skip


@pytest.fixture(scope="module")
def mbpp_own_tests_replay(run_cli, recorded_dir: Path, tmp_path_factory) -> Replay:
    cwd = tmp_path_factory.mktemp("recorded-mbpp-file")
    path = recorded_dir / MBPP_FILE
    return _replay(run_cli, cwd, path, "--benchmark", f"file:{path}")


# -- HumanEval -----------------------------------------------------------------------------
def test_humaneval_agreement(humaneval_replay: Replay) -> None:
    summary = humaneval_replay.summary
    assert (summary["n_samples"], summary["n_tasks"], summary["n_skipped"]) == (164, 164, 0)
    compared, differ = humaneval_replay.disagreeing()
    assert compared == 164
    assert (compared - len(differ)) / compared >= 0.97
    assert differ == HUMANEVAL_DISAGREE
    passed = [res["passed"] for _, res in humaneval_replay.pairs()]
    assert summary["pass@1"] == pytest.approx(sum(passed) / 164, abs=1e-12)


def test_humaneval_disagreements_are_the_helper_function_answers(
    humaneval_replay: Replay,
) -> None:
    for rec, res in humaneval_replay.pairs():
        if rec["task_id"] in HUMANEVAL_DISAGREE:
            assert res["passed"] and not verdict(rec["is_solved"])


# -- MBPP: answers on the full 500-task split, scored against sanitized MBPP ----------------
def _sanitized(data_dir: Path) -> dict[str, dict[str, Any]]:
    rows = json.loads((data_dir / "mbpp" / "sanitized-mbpp.json").read_text(encoding="utf-8"))
    return {f"MBPP/{r['task_id']}": r for r in rows}


def test_mbpp_scores_only_the_sanitized_tasks(mbpp_replay: Replay, data_dir: Path) -> None:
    sanitized = _sanitized(data_dir)
    statuses = [res["status"] for res in mbpp_replay.results]
    assert len(statuses) == 500
    assert statuses.count("skipped") == 243
    assert len(statuses) - statuses.count("skipped") == 257
    for rec, res in mbpp_replay.pairs():
        assert (res["status"] == "skipped") == (rec["task_id"] not in sanitized)
        if res["status"] == "skipped":
            assert res["passed"] is False
    summary = mbpp_replay.summary
    assert (summary["n_samples"], summary["n_skipped"], summary["n_tasks"]) == (257, 243, 257)


def test_mbpp_agreement_where_tests_are_unchanged(mbpp_replay: Replay, data_dir: Path) -> None:
    sanitized = _sanitized(data_dir)
    unchanged = {
        rec["task_id"]
        for rec in mbpp_replay.recorded
        if rec["task_id"] in sanitized
        and [no_whitespace(a) for a in asserts_in_check(rec["test"])]
        == [no_whitespace(t) for t in sanitized[rec["task_id"]]["test_list"]]
    }
    assert len(unchanged) == 207
    compared, differ = mbpp_replay.disagreeing(only=unchanged)
    assert compared == 207
    assert (compared - len(differ)) / compared >= 0.97
    assert differ == MBPP_SANITIZED_DISAGREE


# -- MBPP: answers scored against the very tests they were recorded with -------------------
def test_mbpp_agreement_on_its_own_tests(mbpp_own_tests_replay: Replay) -> None:
    summary = mbpp_own_tests_replay.summary
    assert (summary["n_samples"], summary["n_skipped"], summary["n_tasks"]) == (500, 0, 500)
    compared, differ = mbpp_own_tests_replay.disagreeing()
    assert compared == 500
    assert (compared - len(differ)) / compared >= 0.95
    assert differ == MBPP_OWN_TESTS_DISAGREE
