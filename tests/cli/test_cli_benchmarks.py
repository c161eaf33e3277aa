"""`beyondpass benchmarks list|show` as a user runs them."""

from __future__ import annotations

import gzip
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

EXPECTED_SIZES = {
    "humaneval": 164,
    "humaneval-et": 164,
    "mbpp": 427,
    "mbpp-et": 397,
    "demo": 8,
    "demo-nfr": 4,
    "robustapi": 1208,
    "robustapi-demo": 4,
    "psb2": 25,
    "psb2-edge": 25,
    "psb2-cpp": 25,
    "psb2-java": 25,
    "psb2-cpp-edge": 25,
    "psb2-java-edge": 25,
    "psb2-demo-python-edge": 2,
    "psb2-demo-cpp-edge": 2,
    "psb2-demo-java-edge": 2,
}
#: the demo's benchmarks, shipped with the package: listed with their size without data
SHIPPED = ("demo", "demo-nfr", "robustapi-demo", "psb2-demo-python-edge", "psb2-demo-cpp-edge",
           "psb2-demo-java-edge")  # fmt: skip


def cli_json(run_cli, cwd: Path, *args: str | Path, **kwargs: Any) -> Any:
    proc = run_cli([*args, "--json"], cwd=cwd, **kwargs)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def documented_notes(kind: str, benchmark: str) -> dict[str, dict[str, Any]]:
    """Entries of task_notes.toml, read straight from the file."""
    text = (resources.files("beyondpass.benchmarks") / "task_notes.toml").read_text("utf-8")
    entries = tomllib.loads(text).get(kind, [])
    return {e["task_id"]: e for e in entries if e["benchmark"] == benchmark}


def demo_task_ids() -> list[str]:
    path = resources.files("beyondpass.demo") / "data" / "tasks.jsonl"
    return [json.loads(line)["task_id"] for line in path.read_text("utf-8").splitlines() if line]


# -- list ----------------------------------------------------------------------------------
def test_list_with_data(run_cli, data_dir: Path, tmp_path: Path) -> None:
    rows = cli_json(run_cli, tmp_path, "benchmarks", "list", "--data-dir", data_dir)
    rows = [r for r in rows if not r["name"].startswith("nofuneval-")]  # test_nofuneval_cli
    assert [r["name"] for r in rows] == list(EXPECTED_SIZES)
    by_name = {r["name"]: r for r in rows}
    for name, size in EXPECTED_SIZES.items():
        assert by_name[name]["n_tasks"] == size, name
        assert "unavailable" not in by_name[name]
        assert len(by_name[name]["version"]) == 16
    assert by_name["mbpp-et"]["coverage"].startswith("397 of 427")
    assert by_name["mbpp"]["coverage"].startswith("427 of 427")
    for name in EXPECTED_SIZES:
        assert by_name[name]["known_broken"] == len(documented_notes("broken", name)), name
    assert by_name["humaneval-et"]["known_broken"] > 0 and by_name["mbpp-et"]["known_broken"] > 0


def test_list_without_data_still_lists_everything(run_cli, tmp_path: Path) -> None:
    """Downloads allowed (``BEYONDPASS_OFFLINE`` unset), as for a new user: listing says
    what is missing and fetches nothing."""
    proc = run_cli(
        ["benchmarks", "list", "--json"],
        cwd=tmp_path,
        env={"BEYONDPASS_CACHE_DIR": str(tmp_path / "empty-cache")},
        unset=["BEYONDPASS_DATA", "BEYONDPASS_OFFLINE"],
    )
    assert proc.returncode == 0, proc.stderr
    assert "downloading" not in proc.stderr
    rows = json.loads(proc.stdout)
    by_name = {r["name"]: r for r in rows if not r["name"].startswith("nofuneval-")}
    assert list(by_name) == list(EXPECTED_SIZES)
    for name in SHIPPED:  # shipped with the package
        assert by_name[name]["n_tasks"] == EXPECTED_SIZES[name], name
    for name in ("humaneval", "humaneval-et", "mbpp", "mbpp-et", "robustapi"):
        assert "n_tasks" not in by_name[name]
        assert "not found (looked in " in by_name[name]["unavailable"]
        assert "--data-dir" in by_name[name]["unavailable"]
    assert not (tmp_path / "empty-cache" / "data").exists()  # nothing was downloaded


# -- show a task ---------------------------------------------------------------------------
def test_show_humaneval_task(run_cli, data_dir: Path, tmp_path: Path) -> None:
    with gzip.open(data_dir / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as fh:
        row = json.loads(fh.readline())
    assert row["task_id"] == "HumanEval/0"
    task = cli_json(
        run_cli, tmp_path, "benchmarks", "show", "humaneval", "HumanEval/0", "--data-dir", data_dir
    )
    assert task["benchmark"] == "humaneval"
    assert task["task_id"] == "HumanEval/0"
    assert task["language"] == "python"
    assert task["entry_point"] == row["entry_point"] == "has_close_elements"
    assert task["prompt_style"] == "completion"
    assert task["prompt"] == row["prompt"]
    assert task["reference_solution"] == row["prompt"] + row["canonical_solution"]
    assert task["n_tests"] == len(task["tests"]) == 1
    assert row["test"] in task["tests"][0]
    assert "check(has_close_elements)" in task["tests"][0]
    assert task["known_broken"] is None
    assert task["test_setup"] == ""


def test_show_mbpp_resolves_bare_number(run_cli, data_dir: Path, tmp_path: Path) -> None:
    rows = json.loads((data_dir / "mbpp" / "sanitized-mbpp.json").read_text(encoding="utf-8"))
    row = next(r for r in rows if r["task_id"] == 11)
    task = cli_json(run_cli, tmp_path, "benchmarks", "show", "mbpp", "11", "--data-dir", data_dir)
    assert task["task_id"] == "MBPP/11"
    assert task["benchmark"] == "mbpp"
    assert task["entry_point"] == "remove_Occ"
    assert task["prompt_style"] == "description"
    assert row["test_list"][0] in task["prompt"]
    assert task["tests"] == row["test_list"]
    assert task["n_tests"] == len(row["test_list"])

    text = run_cli(
        ["benchmarks", "show", "mbpp", "11", "--data-dir", data_dir], cwd=tmp_path
    )  # the human-readable form names the canonical id too
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("MBPP/11 (mbpp, python, entry point remove_Occ)")


def test_show_known_broken_task(run_cli, data_dir: Path, tmp_path: Path) -> None:
    reason = documented_notes("broken", "mbpp-et")["MBPP/75"]["reason"]
    task = cli_json(
        run_cli, tmp_path, "benchmarks", "show", "mbpp-et", "MBPP/75", "--data-dir", data_dir
    )
    assert task["known_broken"] == reason
    assert task["n_tests"] > 100


# -- show a benchmark ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mbpp-et", "humaneval-et"])
def test_show_benchmark_lists_known_broken(
    run_cli, data_dir: Path, tmp_path: Path, name: str
) -> None:
    info = cli_json(run_cli, tmp_path, "benchmarks", "show", name, "--data-dir", data_dir)
    broken = documented_notes("broken", name)
    slow = documented_notes("slow", name)
    assert broken, "task_notes.toml documents broken tasks for this benchmark"
    assert info["known_broken"] == {tid: e["reason"] for tid, e in broken.items()}
    assert info["slow_tasks"] == {tid: float(e["timeout_s"]) for tid, e in slow.items()}
    assert info["n_tasks"] == EXPECTED_SIZES[name] == len(info["task_ids"])
    assert set(info["known_broken"]) <= set(info["task_ids"])


def test_show_mbpp_et_coverage(run_cli, data_dir: Path, tmp_path: Path) -> None:
    info = cli_json(run_cli, tmp_path, "benchmarks", "show", "mbpp-et", "--data-dir", data_dir)
    assert info["coverage"].startswith("397 of 427 sanitized MBPP tasks")
    assert "30 have no MBPP-ET tests" in info["coverage"]
    sanitized = json.loads((data_dir / "mbpp" / "sanitized-mbpp.json").read_text("utf-8"))
    missing = {f"MBPP/{r['task_id']}" for r in sanitized} - set(info["task_ids"])
    assert len(missing) == 30
    listed = info["coverage"].split(":", 1)[1].rstrip(")").split(",")
    assert {f"MBPP/{n.strip()}" for n in listed} == missing


def test_show_demo_needs_no_data(run_cli, tmp_path: Path) -> None:
    info = cli_json(run_cli, tmp_path, "benchmarks", "show", "demo", unset=["BEYONDPASS_DATA"])
    assert info["task_ids"] == demo_task_ids()
    assert info["known_broken"] == {}


# -- errors --------------------------------------------------------------------------------
def test_show_unknown_task(run_cli, data_dir: Path, tmp_path: Path) -> None:
    proc = run_cli(
        ["benchmarks", "show", "humaneval", "HumanEval/999", "--data-dir", data_dir],
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert "'HumanEval/999'" in lines[0] and "HumanEval/0" in lines[0]
    assert proc.stdout == ""


def test_show_unknown_benchmark(run_cli, tmp_path: Path) -> None:
    proc = run_cli(["benchmarks", "show", "humanevalx"], cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "'humanevalx'" in lines[0]
    for name in EXPECTED_SIZES:
        assert name in lines[0]
