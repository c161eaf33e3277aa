"""``beyondpass evaluate --nfr``: the results.jsonl fields and the ``--json`` summary that
others rely on, checked against values computed independently of the evaluator."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from beyondpass.execution.sandboxed import call_timing
from beyondpass.methods.robunfr.evaluators.code_metrics import count_code
from beyondpass.store.run_store import RunStore
from pylint_oracle import pylint_oracle

BASE_FIELDS = {
    "task_id", "index", "line", "status", "passed", "message", "extraction", "tests_passed",
    "tests_run", "known_broken",
}  # fmt: skip
NFR_FIELDS = {
    "code", "loc", "pylint_refactor", "pylint_convention", "exception_handling",
    "smell_density", "unreadability_density", "exception_density", "exec_time_ms",
    "exec_time_stdev_ms", "exec_time_ref",
}  # fmt: skip
STATIC = ("loc", "pylint_refactor", "pylint_convention", "exception_handling")
DENSITIES = {
    "smell_density": "pylint_refactor",
    "unreadability_density": "pylint_convention",
    "exception_density": "exception_handling",
}

CAREFUL_ADD = (
    "```python\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Add two integers; refuse anything else."""\n'
    "    try:\n"
    "        return a + b\n"
    "    except TypeError as exc:\n"
    '        raise ValueError("add needs numbers") from exc\n'
    "```\n"
)
ROWS = [
    {"task_id": "demo/add", "response": CAREFUL_ADD},  # passed, 2 handling statements
    {"task_id": "demo/add", "completion": "    return a - b\n"},  # failed
    {"task_id": "demo/add", "response": "Add the numbers, then return the sum."},  # no_code
    {"task_id": "demo/add", "completion": "    return (a +\n"},  # syntax_error
    {
        "task_id": "demo/is_palindrome",
        "solution": "def is_palindrome(text):\n"
        "    cleaned = text.lower().replace(' ', '')\n"
        "    if cleaned == cleaned[::-1]:\n"
        "        return True\n"
        "    else:\n"
        "        return False\n",
    },  # passed, smells
]
STATUSES = ["passed", "failed", "no_code", "syntax_error", "passed"]


def write_samples(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def evaluate(run_cli, cwd: Path, *extra: str) -> dict[str, Any]:
    args = ["evaluate", "--benchmark", "demo", "--samples", "samples.jsonl", "--out", "OUT"]
    proc = run_cli([*args, *extra, "--json"], cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def read_results(cwd: Path) -> list[dict[str, Any]]:
    text = (cwd / "OUT" / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_evaluate_nfr_fields_and_summary(run_cli, tmp_path: Path) -> None:
    write_samples(tmp_path / "samples.jsonl")
    summary = evaluate(run_cli, tmp_path, "--nfr")
    results = read_results(tmp_path)
    assert [r["status"] for r in results] == STATUSES
    for r in results:
        assert set(r) == BASE_FIELDS | NFR_FIELDS

    # no code / syntax error: no metric is defined
    assert results[2]["code"] == ""
    assert "return (a +" in results[3]["code"]
    for r in results[2:4]:
        assert all(r[f] is None for f in NFR_FIELDS - {"code"})

    # static metrics: the documented definitions and the pylint command, on `code`
    with_code = [0, 1, 4]
    for i in with_code:
        r = results[i]
        counts = count_code(r["code"])
        oracle = pylint_oracle(r["code"], "sample.py", tmp_path / f"oracle{i}")
        expected = {
            "loc": counts.loc,
            "exception_handling": counts.exception_handling,
            "pylint_refactor": sum(m["type"] == "refactor" for m in oracle),
            "pylint_convention": sum(m["type"] == "convention" for m in oracle),
        }
        assert {k: r[k] for k in STATIC} == expected, r["code"]
        for density, count in DENSITIES.items():
            assert r[density] == pytest.approx(r[count] * 10 / r["loc"])
    assert "def add(a: int, b: int) -> int:" in results[0]["code"]
    assert results[0]["exception_handling"] == 2
    assert results[4]["pylint_refactor"] >= 2  # no-else-return, simplifiable-if-statement
    assert "Return the sum of a and b." in results[1]["code"]  # the prompt + the body

    # execution time: passing samples only, from 5 timed runs of each test
    for r in results:
        if r["passed"]:
            assert isinstance(r["exec_time_ms"], float) and r["exec_time_ms"] > 0
            assert isinstance(r["exec_time_ref"], float) and r["exec_time_ref"] > 0
            assert isinstance(r["exec_time_stdev_ms"], float) and r["exec_time_stdev_ms"] >= 0
        else:
            assert r["exec_time_ms"] is None and r["exec_time_ref"] is None
            assert r["exec_time_stdev_ms"] is None
    with RunStore(tmp_path / "OUT", create=False) as store:
        rows = list(store.rows())
        evaluators = store.get_meta("evaluators")
        assert store.get_meta("executor")["timing_repeats"] == 5
        assert store.get_meta("executor")["timing"]["version"] == call_timing.METHOD_VERSION
    passed = [row for row in rows if row.result.passed]
    assert len(passed) == 2
    for row in passed:
        times = [t["times_ns"] for t in row.result.details["tests"]]
        assert all(len(t) == 5 for t in times)
        mean_sum_ms = sum(sum(t) / 5 for t in times) / 1e6
        assert row.result.metrics["exec_time_ms"] == pytest.approx(mean_sum_ms)
        per_run_ms = [sum(t[r] for t in times) / 1e6 for r in range(5)]
        stdev_ms = statistics.stdev(per_run_ms)
        assert row.result.metrics["exec_time_stdev_ms"] == pytest.approx(stdev_ms)
        for test in row.result.details["tests"]:
            assert test["time_mean_ns"] == pytest.approx(statistics.mean(test["times_ns"]))
            assert test["time_stdev_ns"] == pytest.approx(statistics.stdev(test["times_ns"]))
        in_units = [t["times_ref"] for t in row.result.details["tests"]]
        median_sum = sum(statistics.median(t) for t in in_units)
        assert row.result.metrics["exec_time_ref"] == pytest.approx(median_sum)
    assert [e["evaluator"] for e in evaluators] == ["functional", "nfr"]
    assert evaluators[1]["pylint"]["pylint"]

    # the summary: means over the samples where each metric is defined
    nfr = summary["nfr"]
    for field in sorted(NFR_FIELDS - {"code"}):
        values = [r[field] for r in results if r[field] is not None]
        assert nfr["n"][field] == len(values)
        assert nfr["means"][field] == pytest.approx(sum(values) / len(values))
    assert nfr["n"]["loc"] == 3 and nfr["n"]["exec_time_ms"] == 2
    assert "passing" in nfr["over"]
    assert nfr["without_metrics"] == {"no_code": 1, "syntax_error": 1}


def test_nfr_after_a_plain_evaluation_rescores(run_cli, tmp_path: Path) -> None:
    """Results stored without timing or NFR metrics are not passed off as NFR results."""
    write_samples(tmp_path / "samples.jsonl")
    plain = evaluate(run_cli, tmp_path)
    assert "nfr" not in plain
    assert all(set(r) == BASE_FIELDS for r in read_results(tmp_path))

    with_nfr = evaluate(run_cli, tmp_path, "--nfr")
    results = read_results(tmp_path)
    assert [r["status"] for r in results] == STATUSES
    assert results[0]["loc"] == count_code(results[0]["code"]).loc
    assert results[0]["exec_time_ms"] > 0
    assert with_nfr["pass@1"] == plain["pass@1"]

    text = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", "samples.jsonl", "--out", "OUT", "--nfr"],
        cwd=tmp_path,
    )
    assert text.returncode == 0, text.stderr
    assert "NFR means: loc" in text.stdout and "exec_time_ms" in text.stdout
