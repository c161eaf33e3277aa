"""The heavy stages on a local Ray instance against the local pool, with a projection to N nodes.

Usage::

    python benchmarks/bench_ray_pool.py [--data-dir ../shared/data] [--repeat 10]
        [--psb2-repeat 40] [--limit N] [--nodes 1,2,4,8]

Two stages, each run through the real CLI as a subprocess, once with the local pool
(the default executor) and once with ``--executor ray`` (a private local Ray instance with
all the machine's CPUs, started and shut down by the command):

- ``nfr``: ``beyondpass evaluate --nfr`` on ``bench_evaluate.py``'s file (HumanEval's 164
  canonical solutions x ``--repeat``, 1640 lines): test execution and RobuNFR's NFR metrics;
- ``psb2-quality``: ``beyondpass rescore RUN --evaluator psb2-quality`` on a run of
  ``evaluate --benchmark psb2-edge`` made beforehand (not timed): the 25 PSB2 problems x
  ``--psb2-repeat``, answered in turn by ``bench_psb2_quality.py``'s Python programs. Only
  the quality stage is timed (the run's verdicts are not recomputed). C++ and Java answers
  are left out: their benchmarks carry 10,000 random cases per problem, so making the run
  to rescore would take most of an hour.

Each figure is the command's wall time and the CPU time the whole machine spent meanwhile
(``/proc/stat``: Ray's processes included; run on an otherwise idle machine). Both pools
must give the same results (``results.jsonl`` and the stage's stored metrics and details,
timings aside), else the script exits 1: the figures are of correct work.

The projection to N nodes like this one (``c`` cores each), from quantities measured here:

- ``F``: the Ray command's wall time on one answer (start-up, loading, Ray's start and
  shutdown, one batch): paid whatever the cluster's size;
- ``D``: the driver's own CPU time (the ``beyondpass`` process, not its workers) beyond the
  one-answer run: reading, extracting, storing, scheduling — it stays on the head node;
- ``R``: the rest of the machine's CPU time beyond the one-answer run: the workers (tests,
  analysers) and Ray's per-batch cost; it spreads over every core of the cluster.

projected(N) lies between ``F + max(D, R / (N c))`` (the driver overlaps the workers
completely) and ``F + D + R / (N c)`` (not at all); N = 1 is printed against the measured
wall time as a check of the model. Assumed: the nodes are as fast as this one; the work
cuts into at least ``N c`` batches (Ray's executor and pool cut a run into about two
batches per CPU slot unless that makes batches larger than their maximum); answers and
results cross the network at no cost (a local instance measures none); joining a running
cluster (``--ray-address``) skips Ray's start-up, so ``F`` is then an upper bound. Ray's
cost per batch is measured apart (no-op batches of one item): a larger cluster cuts a run
finer, and each extra batch adds about that much.

Prints a Markdown section for docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import (
    REPO,
    argument_parser,
    humaneval_problems,
    machine_cpu_s,
    write_humaneval_samples,
)

sys.path.insert(0, str(REPO / "src"))

from bench_psb2_quality import PROGRAMS, answers  # noqa: E402

from beyondpass.execution import BatchContext, BatchJob  # noqa: E402
from beyondpass.jsonl import read_objects  # noqa: E402
from beyondpass.methods.psb2.benchmark.loader import load as load_psb2  # noqa: E402
from beyondpass.store.run_store import RunStore  # noqa: E402

#: run instead of ``python -m beyondpass``: the same CLI, and the driver's own CPU time
#: (user + system of its threads, not of its child processes) written when it exits
DRIVER = """
import atexit, os, resource, sys


def record():
    used = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_DRIVER_CPU"], "w") as fh:
        fh.write(str(used.ru_utime + used.ru_stime))


atexit.register(record)
from beyondpass.cli.app import main

sys.argv = ["beyondpass", *sys.argv[1:]]
main()
"""
EXEC_TIME = ("exec_time_ms", "exec_time_stdev_ms", "exec_time_ref")


@dataclass
class Timing:
    wall_s: float
    cpu_s: float  # the whole machine's
    driver_cpu_s: float  # the beyondpass process's own


def run_cli(args: list[Any], scratch: Path) -> Timing:
    """``beyondpass ARGS`` as a subprocess, timed; its output must be a JSON summary."""
    record = scratch / "driver-cpu.txt"
    env = {**os.environ, "BENCH_DRIVER_CPU": str(record)}
    cmd = [sys.executable, "-c", DRIVER, *map(str, args)]
    start, cpu = time.perf_counter(), machine_cpu_s()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    wall, used = time.perf_counter() - start, machine_cpu_s() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"beyondpass {' '.join(map(str, args))} failed:\n{proc.stderr}")
    json.loads(proc.stdout)
    return Timing(wall, used, float(record.read_text()))


def stored(run: Path, evaluator: str) -> dict[str, Any]:
    """What the stage stored per sample: status, verdict, metrics (timings aside), details."""
    with RunStore(run, create=False) as store:
        rows = store.evaluations(evaluator)
    return {
        e.key: (
            e.status,
            e.passed,
            {k: v for k, v in e.metrics.items() if k not in EXEC_TIME},
            e.details if evaluator != "functional" else None,
        )
        for e in rows
    }


def results_file(run: Path) -> list[dict]:
    lines = read_objects(run / "results.jsonl", '{"task_id": ..., "passed": ...}')
    return [{k: v for k, v in line.items() if k not in EXEC_TIME} for _, line in lines]


def same_results(local: Path, ray: Path, evaluators: tuple[str, ...]) -> list[str]:
    """Where the two runs differ (nothing, if both pools did the same work)."""
    differences = []
    if results_file(local) != results_file(ray):
        differences.append("results.jsonl")
    for name in evaluators:
        ours, theirs = stored(local, name), stored(ray, name)
        if ours != theirs:
            keys = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
            differences.append(f"{name}: {len(keys)} samples, e.g. {keys[:3]}")
        elif not ours:
            differences.append(f"{name}: nothing stored")
    return differences


# -- the two stages --------------------------------------------------------------------------
def nfr_stage(scratch: Path, data_dir: str, lines: list[str], name: str, ray: bool) -> Timing:
    """``evaluate --nfr`` on these sample lines into ``scratch/nfr-NAME``."""
    samples = scratch / f"humaneval-{len(lines)}.jsonl"
    samples.write_text("".join(lines))
    out = scratch / f"nfr-{name}"
    shutil.rmtree(out, ignore_errors=True)
    args = ["evaluate", "--benchmark", "humaneval", "--samples", samples, "--nfr"]
    args += ["--data-dir", data_dir, "--out", out, "--json"]
    timing = run_cli([*args, *(["--executor", "ray"] if ray else [])], scratch)
    with RunStore(out, create=False) as store:  # where the tests ran, as the run recorded it
        executor = store.get_meta("executor")["executor"]
    if executor != ("ray" if ray else "sandbox"):
        raise SystemExit(f"{out}: the tests ran on {executor}")
    return timing


def psb2_run(scratch: Path, data_dir: str, n: int, repeat: int) -> Path:
    """A run of ``evaluate --benchmark psb2-edge`` on ``n`` answers, to rescore (untimed)."""
    tasks = list(load_psb2(data_dir, n_random=0, name="psb2-edge").tasks.values())
    rows = [(t, code) for _ in range(repeat) for t, code in answers(tasks, PROGRAMS["python"])]
    samples = scratch / f"psb2-{n}.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": t.task_id, "response": code}) + "\n" for t, code in rows[:n])
    )
    run = scratch / f"psb2-run-{n}"
    args = ["evaluate", "--benchmark", "psb2-edge", "--samples", samples]
    args += ["--answer-format", "whole-program", "--data-dir", data_dir, "--out", run, "--json"]
    run_cli(args, scratch)
    return run


def quality_stage(scratch: Path, data_dir: str, run: Path, name: str, ray: bool) -> Timing:
    """``rescore RUN --evaluator psb2-quality`` on a fresh copy of ``run``, ``quality-NAME``."""
    out = scratch / f"quality-{name}"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(run, out)
    args = ["rescore", out, "--evaluator", "psb2-quality", "--data-dir", data_dir]
    args += ["--no-report", "--json"]
    return run_cli([*args, *(["--executor", "ray"] if ray else [])], scratch)


# -- Ray's cost per batch --------------------------------------------------------------------
def no_op(_: None, items: list[Any], ctx: BatchContext) -> list[Any]:
    return items


def ray_batch_cost(batches: int) -> dict[str, float]:
    """A private Ray instance with the machine's CPUs: its start (first batch included), then
    ``batches`` no-op batches of one item -> wall and machine CPU ms per batch."""
    from beyondpass.execution.ray_pool import RayPool

    job = BatchJob(no_op, None, "no-op batches", batch_size=1)
    pool = RayPool()
    start = time.perf_counter()
    pool.map(job, list(range(os.cpu_count() or 1)))  # Ray started, a worker per CPU warm
    started = time.perf_counter() - start
    start, cpu = time.perf_counter(), machine_cpu_s()
    assert pool.map(job, list(range(batches))) == list(range(batches))
    wall, used = time.perf_counter() - start, machine_cpu_s() - cpu
    pool.close()
    return {
        "ray_start_s": started,
        "batch_wall_ms": wall * 1000 / batches,
        "batch_cpu_ms": used * 1000 / batches,
    }


# -- the report ------------------------------------------------------------------------------
def projection(full: Timing, one: Timing, cores: int, nodes: int) -> tuple[float, float]:
    """(lower, upper) projected wall seconds on ``nodes`` nodes of ``cores`` cores."""
    fixed = one.wall_s
    driver = max(0.0, full.driver_cpu_s - one.driver_cpu_s)
    rest = max(0.0, (full.cpu_s - one.cpu_s) - driver)
    spread = rest / (nodes * cores)
    return fixed + max(driver, spread), fixed + driver + spread


def report(stages: dict[str, dict[str, Any]], batch: dict[str, float], args: Any) -> str:
    cores = os.cpu_count() or 1
    date = time.strftime("%Y-%m-%d")
    import ray

    lines = [
        "## The heavy stages on Ray: local pool vs a local Ray instance",
        "",
        "```bash",
        " ".join(["python", "benchmarks/bench_ray_pool.py", *sys.argv[1:]]),
        "```",
        "",
        f"{date}, {cores} CPUs, Python {platform.python_version()}, Ray {ray.__version__}, "
        f"load (1-min) {args.load_at_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the "
        "end. Both pools gave the same results "
        "(checked sample by sample).",
        "",
        "| stage | answers | local: wall / machine CPU | Ray: wall / machine CPU | Ray / local "
        "(wall / CPU) | CPU per answer, Ray | F: Ray on 1 answer | D: driver CPU | R: rest |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in stages.items():
        local, ray_full, one = s["local"], s["ray"], s["ray_one"]
        # as measured: a negative difference says the run was too small for the noise
        driver = ray_full.driver_cpu_s - one.driver_cpu_s
        rest = ray_full.cpu_s - one.cpu_s - driver
        per_answer = (ray_full.cpu_s - one.cpu_s) / max(1, s["n"] - 1)
        lines.append(
            f"| {name} | {s['n']} | {local.wall_s:.2f} s / {local.cpu_s:.2f} s | "
            f"{ray_full.wall_s:.2f} s / {ray_full.cpu_s:.2f} s | "
            f"**{ray_full.wall_s / local.wall_s:.2f}x** / {ray_full.cpu_s / local.cpu_s:.2f}x | "
            f"{per_answer * 1000:.2f} ms | "
            f"{one.wall_s:.2f} s | {driver:.2f} s | {rest:.2f} s |"
        )
    nodes = [int(n) for n in args.nodes.split(",")]
    lines += [
        "",
        f"Ray's own cost: start-up {batch['ray_start_s']:.2f} s (a private instance, first "
        f"batch included); {batch['batch_wall_ms']:.2f} ms of wall and "
        f"{batch['batch_cpu_ms']:.2f} ms of machine CPU per batch (no-op batches of one item).",
        "",
        f"Projected wall time on N nodes like this one ({cores} cores each): between "
        "F + max(D, R / (N x cores)) and F + D + R / (N x cores); N = 1 against the measured "
        "Ray wall time.",
        "",
        "| stage | measured, N = 1 | " + " | ".join(f"N = {n}" for n in nodes) + " |",
        "|---|---|" + "---|" * len(nodes),
    ]
    for name, s in stages.items():
        cells = []
        for n in nodes:
            low, high = projection(s["ray"], s["ray_one"], cores, n)
            cells.append(f"{low:.1f}-{high:.1f} s")
        lines.append(f"| {name} | {s['ray'].wall_s:.1f} s | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=10, help="HumanEval x REPEAT (1640)")
    parser.add_argument("--psb2-repeat", type=int, default=40, help="PSB2's 25 x REPEAT")
    parser.add_argument("--limit", type=int, default=None, help="first N answers per stage")
    parser.add_argument("--nodes", default="1,2,4,8", help="cluster sizes to project to")
    parser.add_argument("--batches", type=int, default=200, help="no-op Ray batches")
    args = parser.parse_args()
    args.load_at_start = os.getloadavg()[0]
    # this checkout's beyondpass in every process: the commands, and the Ray workers of the
    # instance this script starts (they inherit the environment)
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), inherited]))

    stages: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ray-pool-") as tmp:
        scratch = Path(tmp)
        he = scratch / "humaneval.jsonl"
        write_humaneval_samples(he, humaneval_problems(args.data_dir), args.repeat)
        lines = he.read_text().splitlines(keepends=True)[: args.limit]
        nfr: dict[str, Any] = {"n": len(lines)}
        nfr["ray_one"] = nfr_stage(scratch, args.data_dir, lines[:1], "ray-one", ray=True)
        nfr["local"] = nfr_stage(scratch, args.data_dir, lines, "local", ray=False)
        nfr["ray"] = nfr_stage(scratch, args.data_dir, lines, "ray", ray=True)
        differ = same_results(scratch / "nfr-local", scratch / "nfr-ray", ("functional", "nfr"))
        stages["evaluate --nfr"] = nfr

        n = min(25 * args.psb2_repeat, args.limit or 25 * args.psb2_repeat)
        one_run = psb2_run(scratch, args.data_dir, 1, args.psb2_repeat)
        run = psb2_run(scratch, args.data_dir, n, args.psb2_repeat)
        quality: dict[str, Any] = {"n": n}
        quality["ray_one"] = quality_stage(scratch, args.data_dir, one_run, "ray-one", ray=True)
        quality["local"] = quality_stage(scratch, args.data_dir, run, "local", ray=False)
        quality["ray"] = quality_stage(scratch, args.data_dir, run, "ray", ray=True)
        differ += same_results(
            scratch / "quality-local", scratch / "quality-ray", ("psb2-quality",)
        )
        stages["rescore psb2-quality"] = quality

    if differ:
        raise SystemExit("the pools gave different results: " + "; ".join(differ))
    print(report(stages, ray_batch_cost(args.batches), args))


if __name__ == "__main__":
    main()
