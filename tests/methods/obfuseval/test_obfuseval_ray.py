"""ObfusEval's heavy stages on Ray give what they give locally, on a real local Ray instance.

Verification of transformed tasks goes to the run's executor through the generic transform
context (``registry.TransformContext``), project mode's repeated test suites through the
run's batch pool (``ProjectEvaluator.job``). Ray is the test process's one instance (the
session fixture ``ray_pool``: 2 CPUs, no dashboard); the project is the smallest the
project tests use (inflection from its sdist, prepared once per run by conftest.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("libcst")
pytest.importorskip("ray")

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.benchmarks.task import Benchmark, TestCase  # noqa: E402
from beyondpass.benchmarks.transforms import (  # noqa: E402
    SubsetOptions,
    TransformChoice,
    apply_transform,
    subset,
)
from beyondpass.evaluators.base import Candidate  # noqa: E402
from beyondpass.execution import (  # noqa: E402
    ExecutorChoice,
    LocalPool,
    NodeLacksTool,
    create_executor,
)
from beyondpass.extraction import extract  # noqa: E402
from beyondpass.methods.obfuseval.project.benchmark import (  # noqa: E402
    TASKS_FILE,
    load,
    project_record,
    record_id,
    reference_rows,
    write_record,
)
from beyondpass.methods.obfuseval.project.evaluator import ProjectEvaluator  # noqa: E402
from beyondpass.methods.obfuseval.project.runner import tool_versions  # noqa: E402
from beyondpass.methods.obfuseval.transform import (  # noqa: E402
    ObfuscateOptions,
    obfuscate_benchmark,
)
from beyondpass.registry import TransformContext  # noqa: E402
from beyondpass.store.run_store import RunStore  # noqa: E402
from beyondpass.study.config import study_from_dict  # noqa: E402
from beyondpass.study.runner import StudyRunner  # noqa: E402

SEED = 5
#: tasks of each benchmark in the sample (seeded ``subset``)
SAMPLE = 3
OPTIONS = ObfuscateOptions(levels=["symbol", "structure"])


@pytest.fixture(scope="module")
def ray_executor(ray_pool: Any) -> Any:
    """The ray executor on the test process's Ray instance (joined first through the pool,
    so closing the executor leaves the instance to the pool)."""
    ray_pool.metadata()
    executor = create_executor(
        "ray", batch_size=2, init_options={"num_cpus": 2, "include_dashboard": False}
    )
    yield executor
    executor.close()


def _sample(data_dir: Path) -> tuple[Benchmark, str]:
    """A few HumanEval and MBPP tasks; the first one's tests made to fail, so verification
    (not only the static refusals) excludes a variant on both executors."""
    tasks = {}
    for name in ("humaneval", "mbpp"):
        full = load_benchmark(name, data_dir)
        tasks.update(subset(full, SubsetOptions(size=SAMPLE), SEED).tasks)
    broken = next(iter(tasks))
    tasks[broken] = replace(tasks[broken], tests=(TestCase("t0", "assert 1 == 2"),))
    bench = load_benchmark("humaneval", data_dir)
    return replace(bench, tasks=tasks, id_aliases={}), broken


def test_verification_on_ray_keeps_exactly_the_variants_kept_locally(data_dir, ray_executor):
    sample, broken = _sample(data_dir)
    local, report = obfuscate_benchmark(sample, OPTIONS, SEED)
    context = TransformContext(executor=ray_executor)
    choice = TransformChoice("obfuscate", OPTIONS.model_dump(), SEED)
    on_ray = apply_transform(sample, choice, lambda: context)

    expected = report.as_dict()
    assert expected["executor"]["executor"] == "sandbox"
    assert context.ran["executor"]["executor"] == "ray"
    assert context.ran["executor"]["inner"]["isolation"] == expected["executor"]["isolation"]
    assert (context.ran["n_variants"], context.ran["n_verified"]) == (
        expected["n_variants"],
        expected["n_verified"],
    )
    assert expected["n_variants"] == 2 * SAMPLE
    assert 0 < expected["n_verified"] < expected["n_variants"]
    failed = {o["task_id"]: o["reason"] for o in expected["excluded"]}
    assert failed[broken].startswith("verification failed")
    assert failed[broken].endswith("the original reference fails its tests too")
    assert sorted(on_ray.tasks) == sorted(local.tasks)
    for tid, task in local.tasks.items():
        mine = on_ray.tasks[tid]
        assert (mine.prompt, mine.reference_solution, mine.tests) == (
            task.prompt,
            task.reference_solution,
            task.tests,
        )


def test_a_study_on_ray_verifies_on_ray_and_records_it(ray_pool, tmp_path):
    """``StudyRunner`` with the ray executor: the transform gets the run's executor through
    the generic context and the run's metadata says so, beside the transform's record."""
    demo = load_benchmark("demo")
    local, report = obfuscate_benchmark(demo, ObfuscateOptions(), SEED)
    answers = tmp_path / "answers.jsonl"
    rows = [{"task_id": t, "response": task.reference_solution} for t, task in local.tasks.items()]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    raw = {
        "name": "obfuscated-demo-on-ray",
        "seed": SEED,
        "benchmarks": [{"name": "demo", "transform": {"name": "obfuscate"}}],
        "models": [{"spec": f"replay:{answers}", "label": "reference"}],
    }
    ray_pool.metadata()  # the run joins this instance (and leaves it running)
    config = study_from_dict(raw, tmp_path / "study.toml")
    outcome = StudyRunner(config, tmp_path / "run", executor=ExecutorChoice("ray")).run()
    assert outcome.complete and outcome.scored == len(local.tasks) > 0
    # the locally obfuscated references pass: the tasks verified on Ray are the same tasks
    assert [s.pass_at[1] for s in outcome.summaries] == [1.0]
    with RunStore(tmp_path / "run", create=False) as store:
        meta = store.get_meta("benchmarks")["demo"]
        scored_on = store.get_meta("executor")
    ran = meta["transform_ran"]
    assert ran["executor"]["executor"] == "ray" == scored_on["executor"]
    assert report.executor["executor"] == "sandbox"
    assert (ran["n_variants"], ran["n_verified"]) == (len(demo.tasks), len(local.tasks))
    assert "ran" not in meta["transform"] and meta["n_tasks"] == len(local.tasks)


def _project(projects: Any, folder: Path, n_tasks: int, **project: Any) -> Benchmark:
    """The prepared inflection project, its first ``n_tasks`` tasks, as a run loads it
    (``project`` overrides parts of its description)."""
    prepared = projects["prepared"]["inflection"]
    record = project_record(replace(prepared, tasks=prepared.tasks[:n_tasks]), 0, tool_versions())
    record["project"].update(project)
    folder.mkdir(parents=True)
    write_record(record, folder / TASKS_FILE)
    return load(str(folder), record_id(record))


def _candidates(bench: Benchmark) -> list[Candidate]:
    """The project's own function, renamed as in the obfuscated prompt, for the first task
    (mapped back, it passes); a wrong one for the second task (it imports, its tests fail)."""
    first, second = list(bench.tasks.values())
    record = first.metadata["project_record"]
    (row,) = [r for r in reference_rows(record, ["obfuscated"]) if r["task_id"] == first.task_id]
    out = [Candidate(first, extract(row["response"], first), row["response"], "obfuscated")]
    wrong = f"```python\ndef {second.entry_point}(*args, **kwargs):\n    return 'nope'\n```"
    out.append(Candidate(second, extract(wrong, second), wrong, "original"))
    return out


def _figures(evaluations: list[Any]) -> tuple[float, float]:
    """CPR and TPR of the answers judged."""
    n = len(evaluations)
    return (
        sum(e.metrics["compiled"] for e in evaluations) / n,
        sum(bool(e.passed) for e in evaluations) / n,
    )


def test_project_suites_on_ray_give_the_same_verdicts_cpr_and_tpr(projects, ray_pool, tmp_path):
    # one run of the suite per answer instead of the project's three: the time budget
    bench = _project(projects, tmp_path / "run", n_tasks=2, repeats=1)
    candidates = _candidates(bench)
    here = ProjectEvaluator(None, LocalPool()).evaluate(candidates)
    seen: list[int] = []
    ray = ProjectEvaluator(None, ray_pool)
    there = ray.evaluate(candidates, on_result=lambda i, _: seen.append(i))
    assert [vars(e) for e in there] == [vars(e) for e in here]
    assert _figures(there) == _figures(here) == (1.0, 0.5)
    assert [e.status for e in here] == ["passed", "failed"]
    assert here[1].metrics["tests_failing"] == here[1].metrics["tests_run"] > 0
    assert sorted(seen) == [0, 1]
    assert ray.metadata()["pool"] == "ray"


def test_a_worker_without_the_project_source_stops_in_one_line(projects, ray_pool, tmp_path):
    gone = tmp_path / "elsewhere" / "inflection-0.5.1.tar.gz"
    bench = _project(projects, tmp_path / "run", n_tasks=2, sdist=str(gone))
    with pytest.raises(NodeLacksTool) as caught:
        ProjectEvaluator(None, ray_pool).evaluate(_candidates(bench)[:1])
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("node ") and f"lacks the project source {gone}" in message
