"""``compare`` with no method installed beyond the core: it compares pass@1, the core's
headline, and gates it; metrics only a method supplies are refused by name.

The runs are written by the test into real run stores (two models on two benchmarks, each
task's verdict chosen here), and ``compare`` runs as a real process whose registry holds
only ``beyondpass.core`` (a ``sitecustomize`` narrows the built-in methods before the
command line starts, as an installation without the methods would be).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key

TASKS = [f"T/{i}" for i in range(24)]
CONDITIONS = ("plain", "terse")


def passes(version: str, bench: str, condition: str, task: str) -> bool:
    """The old model passes every task but each fourth; the new one loses the first ten
    humaneval tasks under 'plain' and nothing else."""
    k = int(task.split("/")[1])
    if version == "new" and bench == "humaneval" and condition == "plain" and k < 10:
        return False
    return k % 4 != 3


def write_run(run_dir: Path, version: str, model: str) -> None:
    with RunStore(run_dir) as store:
        store.set_meta("kind", "study")
        store.set_meta("study", {"name": version, "seed": 0})
        store.set_meta("benchmarks", {b: {"version": f"{b}-v1"} for b in ("humaneval", "mbpp")})
        store.set_meta("models", {model: {"spec": f"replay:{model}"}})
        store.set_meta("status", "complete")
        for bench in ("humaneval", "mbpp"):
            for condition in CONDITIONS:
                for task in TASKS:
                    key = sample_key(bench, task, model, condition, 0)
                    store.put_sample(
                        SampleRecord(
                            key=key,
                            benchmark=bench,
                            task_id=task,
                            model=model,
                            condition=condition,
                            sample_index=0,
                            raw="x",
                            code="x",
                            program="",
                            extraction={"status": "ok"},
                        )  # fmt: skip
                    )
                    ok = passes(version, bench, condition, task)
                    store.put_result(
                        ResultRecord(
                            key=key,
                            status="passed" if ok else "failed",
                            passed=ok,
                            metrics={"smell_density": 1.0},
                            details={},
                        )  # fmt: skip
                    )


@pytest.fixture(scope="module")
def core_only(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("core-only")
    write_run(base / "old", "old", "model-a")
    write_run(base / "new", "new", "model-b")
    site = base / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import beyondpass.registry as r\nr.BUILTIN_METHODS = ('beyondpass.core',)\n",
        encoding="utf-8",
    )
    return base, base / "old", base / "new"


def test_compare_needs_no_method_beyond_the_core(run_cli, core_only) -> None:
    base, old, new = core_only
    helped = run_cli(["--help"], cwd=base, pythonpath_first=[base / "site"])
    assert helped.returncode == 0 and "compare" in helped.stdout
    for command in ("robustapi", "nofuneval", "obfuseval", "prompts"):  # methods' commands
        assert command not in helped.stdout  # the narrowing took: only the core is here
    proc = run_cli(["compare", old, new, "--json"], cwd=base, pythonpath_first=[base / "site"])
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert {r["method"] for r in payload["comparisons"]} == {"core"}
    assert {r["metric"] for r in payload["comparisons"]} == {"pass@1"}
    cell = {(r["benchmark"], r["group"]): r for r in payload["comparisons"]}
    plain = cell[("humaneval", "plain")]
    expected_old = sum(passes("old", "humaneval", "plain", t) for t in TASKS) / len(TASKS)
    expected_new = sum(passes("new", "humaneval", "plain", t) for t in TASKS) / len(TASKS)
    assert plain["old"] == pytest.approx(expected_old * 100)
    assert plain["new"] == pytest.approx(expected_new * 100)
    assert plain["direction"] == "regressed" and plain["pairs"] == len(TASKS)
    assert cell[("mbpp", "plain")]["delta"] == pytest.approx(0.0)
    assert payload["pairs"][0] == "model-a vs model-b"


def test_the_core_alone_gates_pass_at_1_and_refuses_what_it_lacks(run_cli, core_only) -> None:
    base, old, new = core_only
    site = [base / "site"]
    fall = run_cli(["compare", old, new, "--fail-on", "pass@1[benchmark=humaneval]:-5pp",
                    "--no-require-significance", "--json"], cwd=base,
                   pythonpath_first=site)  # fmt: skip
    assert fall.returncode == 4, fall.stderr
    breaches = json.loads(fall.stdout)["gate"]["violations"]
    # the core's pass@1 is per prompt condition: only humaneval's 'plain' fell
    assert {(v["benchmark"], v["group"]) for v in breaches} == {("humaneval", "plain")}
    held = run_cli(["compare", old, new, "--fail-on", "pass@1[benchmark=mbpp]:-5pp"], cwd=base,
                   pythonpath_first=site)  # fmt: skip
    assert held.returncode == 0, held.stderr
    smell = run_cli(["compare", old, new, "--fail-on", "smell_density:+10%"], cwd=base,
                    pythonpath_first=site)  # fmt: skip
    assert smell.returncode == 2
    assert "no metric 'smell_density' in both runs" in smell.stderr
    assert "Traceback" not in smell.stderr
