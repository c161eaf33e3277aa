"""Benchmark loaders on the real data, and the reference-solution check of every task."""

from __future__ import annotations

import json

import pytest

from beyondpass import registry
from beyondpass.benchmarks import load_benchmark, task_notes
from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.base import Candidate
from beyondpass.evaluators.functional import FunctionalEvaluator
from beyondpass.execution import ExecutionLimits, create_executor
from beyondpass.extraction.result import Extraction

EXPECTED_SIZES = {"humaneval": 164, "humaneval-et": 164, "mbpp": 427, "mbpp-et": 397, "demo": 8}


@pytest.mark.parametrize("name", sorted(EXPECTED_SIZES))
def test_loader_sizes_and_shape(name, data_dir):
    bench = load_benchmark(name, data_dir)
    assert len(bench) == EXPECTED_SIZES[name]
    assert len(bench.version) == 16
    for task in bench.tasks.values():
        assert task.language == "python" and task.tests and task.entry_point
        compile(task.reference_solution, task.task_id, "exec")


def test_humaneval_et_keeps_each_assert_as_a_test(data_dir):
    bench = load_benchmark("humaneval-et", data_dir)
    sizes = [len(t.tests) for t in bench.tasks.values()]
    assert min(sizes) >= 12 and max(sizes) <= 143


def test_mbpp_prompt_shows_one_example_test_and_keeps_ids(data_dir):
    bench = load_benchmark("mbpp", data_dir)
    task = bench.tasks["MBPP/2"]
    assert task.prompt_style == "description"
    assert task.tests[0].code in task.prompt
    assert all(t.code not in task.prompt for t in task.tests[1:])
    assert bench.resolve_id(2) == bench.resolve_id("Mbpp/2") == "MBPP/2"


def test_mbpp_et_reports_its_coverage_of_sanitized_mbpp(data_dir):
    bench = load_benchmark("mbpp-et", data_dir)
    assert bench.coverage.startswith("397 of 427 sanitized MBPP tasks (30 have no MBPP-ET tests")
    sanitized = json.loads((data_dir / "mbpp" / "sanitized-mbpp.json").read_text())
    missing = {f"MBPP/{r['task_id']}" for r in sanitized} - set(bench.tasks)
    assert len(missing) == 30
    assert all(m.split("/")[1] in bench.coverage for m in missing)
    assert all(len(t.tests) == 102 for t in bench.tasks.values())


def test_unknown_benchmark_names_the_valid_ones():
    with pytest.raises(ConfigError) as err:
        load_benchmark("humaneval-plus-plus")
    assert "humaneval" in str(err.value) and "mbpp-et" in str(err.value)


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataError) as err:
        load_benchmark("humaneval", tmp_path / "nope")
    assert "does not exist" in str(err.value) and "--data-dir" in str(err.value)


def test_every_task_note_names_a_real_task(data_dir):
    notes = task_notes()
    for kind in ("broken", "slow"):
        for entry in notes[kind]:
            assert entry["benchmark"] in registry.benchmarks()
            assert entry["task_id"] in load_benchmark(entry["benchmark"], data_dir).tasks
            assert entry["reason"]


@pytest.fixture(scope="module")
def evaluator():
    return FunctionalEvaluator(create_executor("sandbox"), ExecutionLimits(timeout_s=10))


@pytest.mark.parametrize("name", ["humaneval", "humaneval-et", "mbpp", "mbpp-et", "demo"])
def test_reference_solutions_pass_except_documented_broken_tasks(name, data_dir, evaluator):
    """Every reference passes its own tests; each listed broken task really fails."""
    bench = load_benchmark(name, data_dir)
    tasks = list(bench.tasks.values())
    candidates = [
        Candidate(t, Extraction("ok", t.reference_solution, t.reference_solution, "full"))
        for t in tasks
    ]
    verdicts = evaluator.evaluate(candidates)
    failing = {t.task_id: v for t, v in zip(tasks, verdicts, strict=True) if not v.passed}
    unexpected = {
        tid: v.details.get("message") for tid, v in failing.items() if tid not in bench.known_broken
    }
    assert unexpected == {}
    assert set(failing) == set(bench.known_broken)
