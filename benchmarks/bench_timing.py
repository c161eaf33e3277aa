"""Noise floor of the performance metric: the same samples timed in separate runs.

Usage::

    python benchmarks/bench_timing.py [--data-dir ../shared/data] [--runs 5] [--repeats 5]
        [--executor sandbox]

Each run is a fresh executor (fresh sandboxed workers) that executes HumanEval's 164
canonical solutions with every test repeated ``--repeats`` times in the same warmed child
(``perf_counter_ns`` around each test only). Per run and task, the task's time is the sum
over its tests of the *median* of the repeats. Across runs, the coefficient of variation
(stdev / mean) of each task's time is reported: its median, 90th percentile, and the share
of tasks at or below 3%. It also measures the machine's own noise with no harness at all:
one plain function timed the same way (median of 25 calls) 8 times in one process, 0.5 s
apart (``machine_cv``) — no executor can be steadier than the machine. Prints one JSON
line; record it in docs/performance.md.
"""

from __future__ import annotations

import json
import statistics
import sys

from _common import REPO, argument_parser

sys.path.insert(0, str(REPO / "src"))

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.execution import ExecutionRequest, create_executor  # noqa: E402


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--executor", default="sandbox")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()

    tasks = list(load_benchmark("humaneval", args.data_dir).tasks.values())
    requests = [
        ExecutionRequest(program=t.reference_solution, tests=t.tests, timing_repeats=args.repeats)
        for t in tasks
    ]
    per_task: list[list[float]] = [[] for _ in tasks]
    per_task_ref: list[list[float]] = [[] for _ in tasks]
    for _ in range(args.runs):
        executor = create_executor(args.executor, workers=args.workers)
        try:
            results = executor.run_many(requests)
        finally:
            executor.close()
        for i, result in enumerate(results):
            assert result.passed, (tasks[i].task_id, result.message)
            per_task[i].append(sum(statistics.median(t.times_ns) for t in result.tests) / 1e6)
            per_task_ref[i].append(sum(statistics.median(t.times_ref) for t in result.tests))
    cvs = sorted(_cv(v) for v in per_task)
    cvs_ref = sorted(_cv(v) for v in per_task_ref)
    machine = _machine_noise()
    slow = [_cv(v) for v in per_task if statistics.mean(v) >= 0.1]
    print(
        json.dumps(
            {
                "tasks": len(tasks),
                "runs": args.runs,
                "repeats": args.repeats,
                "executor": args.executor,
                "workers": args.workers,
                "median_cv": round(statistics.median(cvs), 4),
                "p90_cv": round(cvs[int(0.9 * (len(cvs) - 1))], 4),
                "share_cv_le_3pct": round(sum(c <= 0.03 for c in cvs) / len(cvs), 3),
                "ref_median_cv": round(statistics.median(cvs_ref), 4),
                "ref_p90_cv": round(cvs_ref[int(0.9 * (len(cvs_ref) - 1))], 4),
                "ref_share_cv_le_3pct": round(sum(c <= 0.03 for c in cvs_ref) / len(cvs_ref), 3),
                "tasks_ge_0.1ms": len(slow),
                "share_cv_le_3pct_ge_0.1ms": round(sum(c <= 0.03 for c in slow) / len(slow), 3)
                if slow
                else None,
                "machine_cv": round(statistics.pstdev(machine) / statistics.mean(machine), 4),
            }
        )
    )


def _cv(values: list[float]) -> float:
    return statistics.pstdev(values) / statistics.mean(values)


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def _machine_noise() -> list[float]:
    """Medians of 25 timed calls of a fixed function, 8 times, 0.5 s apart, one process."""
    import time

    for _ in range(5):
        _spin(2000)
    medians = []
    for _ in range(8):
        times = []
        for _ in range(25):
            start = time.perf_counter_ns()
            _spin(2000)
            times.append(time.perf_counter_ns() - start)
        medians.append(statistics.median(times))
        time.sleep(0.5)
    return medians


if __name__ == "__main__":
    main()
