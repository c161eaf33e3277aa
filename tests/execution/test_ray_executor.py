"""Scale-out on Ray: the same verdicts as the local executor, on a real local Ray instance.

Ray is the session's instance (conftest's ``ray_pool``: 2 CPUs, no dashboard), started once
for every test file that uses it (tests/scheduling.py).
"""

from __future__ import annotations

import json

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor
from beyondpass.execution.ray_executor import plan_batches

TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))
PROGRAMS = [
    "def inc(x):\n    return x + 1\n",
    "def inc(x):\n    return x\n",
    "def inc(x):\n    raise ValueError('no')\n",
    "def inc(x):\n    while True:\n        pass\n",
    "import os\nos._exit(0)\n",
    "class A:\n    def __eq__(self, o):\n        return True\ndef inc(x):\n    return A()\n",
    "x = bytearray(8 * 1024**3)\n",
    "import ctypes\nctypes.string_at(0)\n",
    "def inc(x:\n",
]


def requests() -> list[ExecutionRequest]:
    limits = ExecutionLimits(timeout_s=2, memory_mb=512)
    return [ExecutionRequest(program=p, tests=TESTS, limits=limits) for p in PROGRAMS] * 3


@pytest.fixture(scope="module")
def ray_executor(ray_pool):
    """The Ray executor on the session's Ray instance (it joins it, never shuts it down)."""
    ray_pool.metadata()
    ex = create_executor("ray", batch_size=4)
    yield ex
    ex.close()


def signature(result) -> tuple:
    return result.status, [(t.name, t.status) for t in result.tests]


def test_ray_gives_the_same_verdicts_as_the_local_executor(ray_executor):
    local = create_executor("sandbox", workers=2)
    try:
        expected = [signature(r) for r in local.run_many(requests())]
    finally:
        local.close()
    seen: list[int] = []
    results = ray_executor.run_many(requests(), on_result=lambda i, r: seen.append(i))
    assert [signature(r) for r in results] == expected
    assert sorted(seen) == list(range(len(PROGRAMS) * 3))
    statuses = {r.status for r in results}
    assert {Status.PASSED, Status.FAILED, Status.ERROR, Status.TIMEOUT, Status.MEMORY} <= statuses


def test_ray_metadata_comes_from_a_worker(ray_executor):
    meta = ray_executor.metadata()
    assert meta["executor"] == "ray"
    assert meta["cluster_cpus"] == 2.0
    assert meta["inner"]["executor"] == "sandbox"
    assert meta["isolation"] == meta["inner"]["isolation"]


def test_plan_batches_cover_every_request_once():
    for n, size, slots in [(1, 64, 2), (10, 4, 2), (100, 64, 2), (7, 3, 8)]:
        batches = plan_batches(n, size, slots)
        assert [i for b in batches for i in b] == list(range(n))
        assert all(1 <= len(b) <= size for b in batches)


def test_evaluate_cli_on_ray(run_cli, tmp_path, data_dir):
    samples = tmp_path / "answers.jsonl"
    samples.write_text(
        json.dumps({"task_id": "HumanEval/0", "completion": "    return False\n"})
        + "\n"
        + json.dumps({"task_id": "HumanEval/53", "completion": "    return x + y\n"})
        + "\n"
    )
    out = tmp_path / "out"
    proc = run_cli(
        [
            "evaluate",
            "--benchmark",
            "humaneval",
            "--samples",
            samples,
            "--out",
            out,
            "--executor",
            "ray",
            "--json",
        ],
        cwd=tmp_path,
        env={"BEYONDPASS_DATA": str(data_dir)},
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["pass@1"] == 0.5
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["failed", "passed"]
    # each sample records where it ran and how it was isolated, as the run says
    from beyondpass.store.run_store import RunStore

    with RunStore(out, create=False) as store:
        meta = store.all_meta()
        ran_on = [r.result.details["ran_on"] for r in store.rows()]
    assert {r["isolation"] for r in ran_on} == {meta["executor"]["isolation"]}
    assert all(r["node"] and r["cpu_model"] and r["cpus"] > 0 for r in ran_on)


def _result(node: str, isolation: str):
    from beyondpass.execution import ExecutionResult

    result = ExecutionResult(status=Status.PASSED)
    result.ran_on = {"node": node, "isolation": isolation}
    return result


def test_a_node_isolating_less_than_the_run_records_stops_the_run():
    # the rule the driver applies to each returned batch, on results as two nodes would
    # return them (one machine here cannot have a second node without bubblewrap)
    from beyondpass.execution.ray_executor import RayExecutor, RayExecutorError

    ex = RayExecutor(init_options={"num_cpus": 2, "include_dashboard": False})
    ex._check_isolation([_result("node-a", "bwrap"), _result("node-a", "bwrap")])
    with pytest.raises(RayExecutorError) as caught:
        ex._check_isolation([_result("node-b (10.0.0.2)", "unshare")])
    message = str(caught.value)
    assert "\n" not in message
    assert "node node-b (10.0.0.2) isolates samples at the 'unshare' level, not 'bwrap'" in message
    assert "--isolation unshare" in message
