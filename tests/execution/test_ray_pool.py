"""The batch pool on Ray: the same metrics as the local pool, on a real local Ray instance.

Ray is started once per test process (the ``ray_pool`` fixture of conftest.py: 2 CPUs, no
dashboard). The recorded answers are real model output (HumanEval,
gpt-3.5-turbo-0613); the PSB2 answers are small hand-written programs in the three
languages the method analyses.
"""

from __future__ import annotations

import json
import random
import socket
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Candidate
from beyondpass.evaluators.setup import EvaluationSetup
from beyondpass.execution import BatchJob, ExecutorChoice, LocalPool, NodeLacksTool
from beyondpass.extraction.result import Extraction
from beyondpass.methods.psb2.quality import QualityEvaluator, quality_batch
from beyondpass.methods.psb2.smells import SmellEvaluator
from beyondpass.methods.robunfr.evaluators.nfr import NfrEvaluator


def candidate(task_id: str, code: str, language: str = "python") -> Candidate:
    task = Task(
        benchmark="hand",
        task_id=task_id,
        language=language,
        prompt="",
        entry_point=None,
        reference_solution="",
        tests=(),
        prompt_style="description",
    )
    return Candidate(task, Extraction("ok", code, code, "full"))


def recorded_answers(data_dir: Path, n: int) -> list[Candidate]:
    path = data_dir / "recorded" / "humaneval-gpt-3.5-turbo-0613.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    chosen = random.Random(20240611).sample(rows, n)
    return [candidate(r["task_id"], r["solution"]) for r in chosen]


def as_plain(evaluations) -> list[tuple[dict, dict]]:
    return [(ev.metrics, ev.details) for ev in evaluations]


def test_nfr_metrics_on_ray_equal_the_local_pool(ray_pool, data_dir: Path) -> None:
    cands = recorded_answers(data_dir, 11)
    cands.append(candidate("twice", cands[0].extraction.code))  # deduplicated, both get it
    local = NfrEvaluator(workers=2).evaluate(cands)
    seen: list[int] = []
    # 4 programs per task: three Ray tasks, each with its own supervised pylint worker
    remote = NfrEvaluator(workers=2, batch_size=4, pool=ray_pool).evaluate(
        cands, on_result=lambda i, ev: seen.append(i)
    )
    assert as_plain(remote) == as_plain(local)
    assert sorted(seen) == list(range(len(cands)))
    assert all("pylint_refactor" in ev.metrics for ev in remote)  # measured, not skipped
    assert sum(ev.metrics["pylint_convention"] for ev in remote) > 0


# two near-identical Python answers: the Python smells of a batch go to one task
PY_A = """\
def total(values):
    result = 0
    for value in values:
        if value > 0:
            result += value
        else:
            result -= 1
    return result
"""
PY_B = PY_A.replace("total", "summed") + "\nprint(summed([1, -2, 3]))\n"
CPP = """\
#include <iostream>
int main() {
    int n = 0, s = 0;
    std::cin >> n;
    for (int i = 0; i < n; i++) { int x; std::cin >> x; if (x > 0) { s += x; } }
    std::cout << s << std::endl;
    return 0;
}
"""
CPP_SMELLY = '#include <cstdio>\nint main() { int a[3]; a[3] = 1; printf("%d", a[3]); }\n'
JAVA = """\
import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        System.out.println(n * 2);
    }
}
"""


def psb2_answers() -> list[Candidate]:
    return [
        candidate("p1", PY_A),
        candidate("p2", PY_B),
        candidate("p3", "def f(:\n    pass\n"),
        candidate("c1", CPP, "cpp"),
        candidate("c2", CPP_SMELLY, "cpp"),
        candidate("c3", CPP.replace("s += x", "s += x * 2"), "cpp"),
        candidate("j1", JAVA, "java"),
        candidate("r1", "fn main() {}", "rust"),
    ]


def test_psb2_quality_and_smells_on_ray_equal_the_local_pool(ray_pool) -> None:
    cands = psb2_answers()
    for evaluator in (QualityEvaluator, SmellEvaluator):
        local = evaluator(pool=LocalPool()).evaluate(cands)
        remote = evaluator(pool=ray_pool).evaluate(cands)
        assert as_plain(remote) == as_plain(local), evaluator.name
    smells = as_plain(remote)
    assert smells[0][1]["smell_rules"] and smells[1][1]["smell_rules"]
    assert smells[4][0]["smells"] > 0  # cppcheck's out-of-bounds and more, from a worker


def test_a_node_without_the_analyser_is_one_line_naming_node_and_tool(monkeypatch) -> None:
    # The check a Ray worker runs before a batch, run here: a second machine without
    # cppcheck is not available, and a PATH without it is what such a node looks like to
    # the check (shutil.which). On a real Ray worker: the next test (a worker started with
    # a reduced PATH through runtime_env fails to start at all, so it lacks a package).
    from beyondpass.execution.pool import check_needs

    job = SmellEvaluator(pool=LocalPool()).job("cpp")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(NodeLacksTool) as caught:
        check_needs(job, "node-b (10.0.0.2)")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("node node-b (10.0.0.2) lacks cppcheck, needed for code smells")
    assert "apt-get install cppcheck" in message


def test_a_real_ray_worker_refuses_a_job_its_node_cannot_run(ray_pool) -> None:
    # the function is never called: the worker checks the job's needs first. It is a real
    # module-level function of beyondpass, so the worker can import the job at all.
    job = BatchJob(quality_batch, None, "a job for this test", modules=("a_package_no_node_has",))
    with pytest.raises(NodeLacksTool) as caught:
        ray_pool.map(job, ["an item", "another"])
    message = str(caught.value)
    import ray

    node = f"{socket.gethostname()} ({ray.util.get_node_ip_address()})"  # named by the worker
    assert "\n" not in message
    assert message.startswith(
        f"node {node} lacks the Python package a_package_no_node_has, needed for a job for "
        "this test — install beyondpass with the same extras on every node"
    )


def test_the_pool_comes_from_the_executor_choice() -> None:
    assert isinstance(ExecutorChoice().pool(), LocalPool)
    assert ExecutorChoice("subprocess").pool().name == "local"
    ray_choice = ExecutorChoice("ray", ray_address="auto")
    pool = ray_choice.pool()
    assert pool.name == "ray" and pool._conn.address == "auto"  # joins nothing yet
    setup = EvaluationSetup(executor_choice=ray_choice)
    nfr = setup.evaluator("nfr")
    assert nfr.batches is setup.pool() and not setup.executor_started
    setup.close()
