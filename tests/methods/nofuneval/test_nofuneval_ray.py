"""NoFunEval on Ray: the static oracle on the batch pool and the timed runtime runs on the
Ray executor give the verdicts of the local pool and executor; each timed sample records
its node and CPU model; a timed batch reserves whole CPUs; a speed-up never mixes nodes.

One local Ray instance (conftest's ``ray_pool``, 2 CPUs) serves the pool and the executor.
No assertion depends on how fast anything runs.
"""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest

from beyondpass.execution import (
    ExecutionRequest,
    ExecutorChoice,
    LocalPool,
    NodeLacksTool,
    cpu_model,
    create_executor,
    node_name,
)
from beyondpass.methods.nofuneval.benchmark import load_subset
from beyondpass.methods.nofuneval.edit.runtime import Measurement, cases, check_programs
from beyondpass.methods.nofuneval.edit.speedup import edit_fields, other_nodes
from beyondpass.methods.nofuneval.oracles.check import OracleItem, tools
from beyondpass.methods.nofuneval.oracles.evaluator import OracleEvaluator, OracleOptions
from nofuneval_helpers import need_analysers

#: security rows: none mapped (1), SQL injection (8), world-writable (25), null test (18)
ROWS = (1, 8, 25, 18)
UNUSED = "codeql-home/codeql-repo/python/ql/src/Imports/UnusedImport.ql"
#: runtime row 0 is correct, row 17's source uses fractions.gcd (gone since Python 3.9)
RUNTIME_ROWS = ("0", "17")


@pytest.fixture(scope="module")
def oracle_items(data_dir) -> list[OracleItem]:
    """Each row judged with its target and with its source as the edit."""
    need_analysers("cppcheck", "gcc")
    with (data_dir / "nofuneval" / "security.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    items = []
    for n in ROWS:
        r = rows[n]
        for edit in (r["target_code"], r["source_code"]):
            items.append(OracleItem(r["pl"], r["codeql_check"], r["source_code"], edit))
    return items


@pytest.fixture(scope="module")
def ray_executor(ray_pool):
    """The Ray executor as ``--executor ray`` builds it (one CPU per task)."""
    ray_pool.metadata()  # the pool's Ray first: this executor joins it, never shuts it down
    ex = ExecutorChoice("ray").build()
    yield ex
    ex.close()


@pytest.fixture(scope="module")
def bench(data_dir):
    return load_subset("runtime_efficiency", data_dir)


def test_oracle_verdicts_on_ray_are_the_local_pools(ray_pool, oracle_items):
    evaluator = OracleEvaluator.build(OracleOptions(engine="open"), SimpleNamespace(pool=ray_pool))
    assert evaluator.pool is ray_pool
    job = evaluator.job(oracle_items)
    assert job.tools == ("bandit", "cppcheck", "gcc")
    local = LocalPool().map(job, oracle_items)  # judge() on all items at once, as before
    assert {"pass", "fail", "no_oracle"} <= {v.status for v in local}
    # batches of two: every verdict must be the one judged with all items together
    on_ray = ray_pool.map(dataclasses.replace(job, batch_size=2), oracle_items)
    assert on_ray == local


def test_a_node_without_an_analyser_is_one_line_naming_node_and_tool(ray_pool, oracle_items):
    source = "import os\nimport sys\n\nprint(sys.argv)\n"
    unused = OracleItem("python", UNUSED, source, source)
    assert tools([unused, oracle_items[-1]], use_codeql=False) == ("cppcheck", "gcc", "pylint")
    assert tools([unused], use_codeql=True) == ("codeql",)
    job = OracleEvaluator(OracleOptions(engine="open")).job(oracle_items[:2])
    assert job.tools == ()  # row 1 has no stand-in: nothing is run, nothing is required
    lacking = dataclasses.replace(job, tools=("cppcheck-not-installed",))
    with pytest.raises(NodeLacksTool) as info:
        ray_pool.map(lacking, oracle_items[:2])
    message = str(info.value)
    assert "\n" not in message and "cppcheck-not-installed" in message
    assert message.startswith("node ") and "the static oracle" in message


def test_runtime_correctness_on_ray_is_the_local_executors(bench, ray_executor):
    tasks = [bench.tasks[r] for r in RUNTIME_ROWS]
    items = [(t, str(t.metadata["source_code"])) for t in tasks]
    items.append((tasks[0], "print(0)\n"))
    local = create_executor("sandbox", workers=2)
    try:
        expected = check_programs(items, local)
    finally:
        local.close()
    assert [(c.correct, c.status) for c in expected] == [
        (True, "passed"), (False, "error"), (False, "failed")
    ]  # fmt: skip
    assert check_programs(items, ray_executor) == expected


def test_a_timed_batch_reserves_whole_cpus(bench, ray_executor):
    half = create_executor("ray", num_cpus_per_task=0.5)  # untimed: two tasks share a CPU
    assert half.task_options(timed=False) == {"num_cpus": 0.5}
    assert half.task_options(timed=True) == {"num_cpus": 1}
    two_at_once = create_executor("ray", inner_options={"workers": 2})
    assert two_at_once.task_options(timed=True) == {"num_cpus": 2}
    task = bench.tasks["0"]
    program = str(task.metadata["source_code"])
    untimed = ExecutionRequest(program, cases(task, False))
    timed = dataclasses.replace(untimed, timing_repeats=1, io_timing=True)
    requests = [untimed] * 5 + [timed] * 5
    plan = half.plan(requests)  # cut as one run, a batch would hold items 4 and 5
    assert sorted(i for b in plan for i in b) == list(range(10))
    assert all(len({requests[i] is timed for i in b}) == 1 for b in plan)
    results = half.run_many([untimed, timed])
    assert all(r.passed for r in results) and results[1].tests[0].times_ns
    # what Ray granted each task (not what was asked): a whole CPU for the timed batch
    assert [r.ran_on["cpus"] for r in results] == [0.5, 1.0]
    assert results[1].ran_on["node"] == node_name() and results[1].ran_on["cpu_model"]
    half.close()  # joined the tests' Ray: leaves it running


def test_each_timed_sample_records_its_node_and_cpu_model(bench, ray_executor):
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction
    from beyondpass.methods.nofuneval.edit.evaluator import DiffBleuEvaluator, EditOptions

    task = bench.tasks["0"]
    target = str(task.metadata["target_code"])
    candidate = Candidate(task, Extraction("ok", target, target, "full"))
    (ev,) = DiffBleuEvaluator(EditOptions(runs=1), ray_executor).evaluate([candidate])
    timing = ev.details["timing"]
    assert timing["executor"] == "ray"
    # the worker's node: this machine as Ray names it (host and address)
    assert timing["node"] == timing["source_node"] == node_name() != ""
    assert "(" in timing["node"]
    assert timing["cpu_model"] == timing["source_cpu_model"] == cpu_model() != ""
    assert ev.details["runtime"]["correct"] is True
    assert "timing_error" not in ev.details["runtime"]  # one node: the speed-up is computed


def test_no_speedup_from_times_of_two_nodes():
    source = Measurement(True, "passed", "", (2.0, 2.1, 1.9, 2.0), node="a", cpu_model="X")
    fast = Measurement(True, "passed", "", (1.0, 1.1, 0.9, 1.0), node="a", cpu_model="X")
    elsewhere = dataclasses.replace(fast, node="b", cpu_model="Y")
    same = edit_fields(source, fast, "print(1)", "print(2)", 4)
    assert same["improved"] is True and same["speedup"] == pytest.approx(2.0, rel=0.1)
    apart = edit_fields(source, elsewhere, "print(1)", "print(2)", 4)
    assert (apart["speedup"], apart["improved"], apart["p_value"]) == (1.0, False, None)
    assert apart["timing_error"] == other_nodes(source, elsewhere)
    assert "source was timed on a (X), the edit on b (Y)" in apart["timing_error"]
    # a source timed before nodes were recorded (none stored): compared as before
    unknown = dataclasses.replace(source, node="", cpu_model="")
    assert edit_fields(unknown, elsewhere, "print(1)", "print(2)", 4)["improved"] is True
