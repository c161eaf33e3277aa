"""Benchmark loaders on the real data, and the reference-solution check of every task."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from beyondpass import registry
from beyondpass.benchmarks import load_benchmark, task_notes
from beyondpass.benchmarks.task import Benchmark
from beyondpass.benchmarks.transforms import SubsetOptions, subset
from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.functional import FunctionalEvaluator
from reference_check import reference_evaluator, reference_failures

EXPECTED_SIZES = {"humaneval": 164, "humaneval-et": 164, "mbpp": 427, "mbpp-et": 397, "demo": 8,
                  "demo-nfr": 4}  # fmt: skip


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
    loaded: dict[str, Benchmark] = {}  # each benchmark read once, not once per note
    for kind in ("broken", "slow"):
        for entry in notes[kind]:
            name = entry["benchmark"]
            assert name in registry.named("benchmarks")
            if name not in loaded:
                loaded[name] = load_benchmark(name, data_dir)
            assert entry["task_id"] in loaded[name].tasks
            assert entry["reason"]


#: the extended benchmarks' 58,000 tests take minutes (MBPP-ET/123's alone ~105 s): here a
#: seeded sample of their tasks plus every task listed as broken; every task of every
#: benchmark: benchmarks/check_references.py (results in docs/benchmarks.md)
SAMPLED = {"humaneval-et": 40, "mbpp-et": 40}


@pytest.fixture(scope="module")
def evaluator() -> FunctionalEvaluator:
    return reference_evaluator()


def _checked(bench: Benchmark) -> Benchmark:
    """All of ``bench``, or for an extended benchmark its seeded sample and broken tasks."""
    size = SAMPLED.get(bench.name)
    if size is None:
        return bench
    keep = set(subset(bench, SubsetOptions(size=size), seed=0).tasks) | set(bench.known_broken)
    return replace(bench, tasks={tid: t for tid, t in bench.tasks.items() if tid in keep})


@pytest.mark.parametrize(
    "name", ["humaneval", "humaneval-et", "mbpp", "mbpp-et", "demo", "demo-nfr"]
)
def test_reference_solutions_pass_except_documented_broken_tasks(name, data_dir, evaluator):
    """Every checked reference passes its own tests; each listed broken task really fails."""
    bench = _checked(load_benchmark(name, data_dir))
    unexpected, wrongly_listed = reference_failures(bench, evaluator)
    assert unexpected == {}
    assert wrongly_listed == set()
