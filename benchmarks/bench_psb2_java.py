"""Throughput of Java function mode on PSB2: every case of a problem in one JVM.

Usage::

    python benchmarks/bench_psb2_java.py [--random 10000] [--repeat 1]

Our Java reference functions (``methods/psb2/data/references/java``, all 25 problems) stand in
for one model's function-mode answers: each is compiled in the sandbox with the trusted
``FunctionRunner.java`` and run on its problem's edge cases and ``--random`` seeded random
cases through the default sandbox executor (workers = cores, problems concurrently). Each
is measured twice: with one case per problem (the fixed cost: compile and one JVM start)
and with all cases; the difference gives the cost of one more case. Prints one JSON line
with both, scaled to 25 problems when fewer have references: the measured wall time, and
the CPU time of this process and its sandboxed workers spread over the workers (what an
otherwise idle machine would take: the machine is shared, and wall time counts the others'
work too). Every case must pass within the epsilon (PSB2's documented data quirk aside),
else the script stops. Record results
in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import time

from _common import argument_parser, machine_cpu_s, tree_cpu_s

from beyondpass.execution import ExecutionLimits, ExecutionRequest, create_executor
from beyondpass.methods.psb2.analysis import within_epsilon
from beyondpass.methods.psb2.benchmark.data import QUIRKS
from beyondpass.methods.psb2.benchmark.loader import load
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS
from beyondpass.methods.psb2.drivers_java import JAVA_REFERENCES, java_reference_source
from beyondpass.methods.psb2.prompts import function_mode_request

LIMITS = ExecutionLimits(timeout_s=1800, test_timeout_s=10)


def _requests(bench, cases: int | None) -> list[ExecutionRequest]:
    out = []
    for name in JAVA_REFERENCES:
        tests = bench.tasks[PROBLEMS[name].hyphenated].tests
        source = java_reference_source(name)
        chosen = tests[:cases] if cases else tests
        out.append(function_mode_request("java", source, PROBLEMS[name], chosen, LIMITS))
    return out


def _run(executor, requests) -> tuple[float, float, int]:
    start, cpu = time.perf_counter(), machine_cpu_s()
    results = executor.run_many(requests)
    wall, cpu = time.perf_counter() - start, machine_cpu_s() - cpu
    n = 0
    for name, result in zip(JAVA_REFERENCES[: len(results)], results, strict=True):
        for test in result.tests:
            n += 1
            if str(test.status) == "passed" or within_epsilon(test.message):
                continue
            index = int(test.name.split("-")[1])
            assert test.name.startswith("edge") and (name, index) in QUIRKS, (
                f"{name} {test.name}: {test.status} {test.message}"
            )
        assert len(result.tests) == len(requests[JAVA_REFERENCES.index(name)].tests), (
            f"{name}: {result.status} {result.message}"
        )
    return wall, cpu, n


def _measure(bench, cases: int | None) -> tuple[float, float, float, int, int]:
    """One fresh executor (workers started before the clock): wall, machine CPU, own CPU
    (this process and its sandboxed workers), cases, workers."""
    executor = create_executor("sandbox")
    try:
        _run(executor, _requests(bench, 1)[:1])
        own = tree_cpu_s()
        wall, cpu, n = _run(executor, _requests(bench, cases))
        own = tree_cpu_s() - own
    finally:
        executor.close()
    return wall, cpu, own, n, executor.workers


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--random", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    bench = load(args.data_dir, n_random=args.random, language="java")
    runs = []
    for _ in range(args.repeat):
        fixed = _measure(bench, 1)
        full = _measure(bench, None)
        runs.append((full, fixed))
    (wall, cpu, own, cases, workers), (fixed_wall, _c, fixed_own, _n, _w) = min(runs)
    problems = len(JAVA_REFERENCES)
    per_case_ms = (wall - fixed_wall) / max(1, cases - problems) * 1000
    per_case_cpu_ms = (own - fixed_own) / max(1, cases - problems) * 1000
    print(
        json.dumps(
            {
                "runner": "java_function",
                "problems": problems,
                "cases": cases,
                "workers": workers,
                "wall_s": round(wall, 2),
                "machine_cpu_s": round(cpu, 2),
                "own_cpu_s": round(own, 2),
                "fixed_wall_s": round(fixed_wall, 2),
                "fixed_own_cpu_s": round(fixed_own, 2),
                "per_case_ms": round(per_case_ms, 3),
                "per_case_own_cpu_ms": round(per_case_cpu_ms, 3),
                "projected_25_problems_s": round(wall * 25 / problems, 1),
                "projected_25_problems_idle_s": round(own * 25 / problems / workers, 1),
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "cores": os.cpu_count(),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
