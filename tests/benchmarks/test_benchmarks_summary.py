"""`beyondpass benchmarks list` does not generate PSB2's random cases (rendering them is
what made listing slow), yet lists what a full load gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_summary, summary_only
from beyondpass.methods.psb2.benchmark import loader as psb2_benchmark


def test_listing_writes_no_psb2_random_cases(run_cli, data_dir: Path, tmp_path: Path) -> None:
    assert not list((data_dir / "psb2").glob("*-random.json"))  # else nothing is generated
    cache = tmp_path / "cache"
    proc = run_cli(
        ["benchmarks", "list", "--data-dir", data_dir, "--json"],
        cwd=tmp_path,
        env={"BEYONDPASS_CACHE_DIR": str(cache)},
    )
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert [rows[n]["n_tasks"] for n in ("psb2", "psb2-cpp", "psb2-java")] == [25, 25, 25]
    assert "10000 random cases" in rows["psb2"]["coverage"]
    assert not (cache / "psb2-random").exists()


def test_a_summary_is_the_full_benchmark_without_generated_cases(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "cache"))
    full = psb2_benchmark.load(data_dir, n_random=3)

    calls: list[str] = []
    real = psb2_benchmark.random_cases

    def counted(name: str, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(psb2_benchmark, "random_cases", counted)
    psb2_benchmark._random_tests.cache_clear()
    monkeypatch.setattr(psb2_benchmark, "load_psb2", lambda d: psb2_benchmark.load(d, n_random=3))
    summary = load_summary("psb2", data_dir)
    assert calls == [] and not summary_only()  # the flag ends with the summary
    fields = ("name", "version", "source", "coverage", "known_broken")
    assert [getattr(summary, f) for f in fields] == [getattr(full, f) for f in fields]
    assert list(summary.tasks) == list(full.tasks)
    for tid, task in summary.tasks.items():
        assert len(task.tests) == task.metadata["n_edge"] == len(full.tasks[tid].tests) - 3
    # outside a summary, the same loader generates them
    psb2_benchmark.load(data_dir, n_random=3)
    assert len(calls) == 25
