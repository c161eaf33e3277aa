"""Throughput of PSB2 function mode in C++ or Python: batched, on 10,000 random cases.

Usage::

    python benchmarks/bench_psb2_throughput.py [--language cpp|python] [--cases 10000]
                                               [--single-cases 300]

C++: every problem with a C++ reference function (``psb2/data/references/cpp``) is run the way a
model's function-mode answer is: the reference's code, the generated batched driver
appended, compiled once in the sandbox (``g++ -std=c++17 -O2``), then run on the
problem's first ``--cases`` seeded random cases through the default sandbox executor
(workers = cores, problems concurrently; many cases per process, each with its own
deadline, compared by the judge). The same answers with the one-case-per-process driver
run on ``--single-cases`` cases of each problem, for the per-case cost without batching.
Python: our 25 reference functions with the generated driver and its trailer, run by the
Python function runner (every case of a problem in one process); without the trailer
they run one process per case, as Python function mode did before.
Each mode is measured twice: with one case per problem (the fixed cost: compile and first
launch) and with all of them; the difference gives the cost of one more case. Prints one
JSON line per run (wall time, machine CPU time, the CPU time of this process and its
sandboxed workers, cases, load) and per mode the projection
to all 25 problems x 10,000 cases: 25 fixed costs (as measured, problems concurrently on
the workers) plus 250,000 cases at the measured marginal rate.
Every case must pass (the references are checked against the Python reference's outputs),
so a wrong number cannot hide behind a fast one. Record results in docs/performance.md.
"""

from __future__ import annotations

import inspect
import json
import os
import platform
import time

from _common import argument_parser, machine_cpu_s, tree_cpu_s

from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor
from beyondpass.methods.psb2.benchmark import reference
from beyondpass.methods.psb2.benchmark.loader import load
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS
from beyondpass.methods.psb2.drivers_cpp import reference_names, reference_source
from beyondpass.methods.psb2.prompts import function_mode_request

LIMITS = ExecutionLimits(timeout_s=1800, test_timeout_s=10)


def _request(language: str, name: str, tests, batch: bool) -> ExecutionRequest:
    """Batched: the typed call gets the batched runner; without it, a process per case."""
    p = PROBLEMS[name]
    if language == "python":
        source = inspect.getsource(getattr(reference, name))
    else:
        source = reference_source(p)
    return function_mode_request(language, source, p, tests, LIMITS, batch=batch)


def _measure(executor, bench, names: list[str], cases: int, batch: bool, language: str) -> dict:
    requests = []
    for name in names:
        tests = bench.tasks[PROBLEMS[name].hyphenated].tests[-cases:]  # random cases only
        requests.append(_request(language, name, tests, batch))
    start, cpu, own = time.perf_counter(), machine_cpu_s(), tree_cpu_s()
    results = executor.run_many(requests)
    wall, cpu = time.perf_counter() - start, machine_cpu_s() - cpu
    own = tree_cpu_s() - own
    bad = {
        n: r.message for n, r in zip(names, results, strict=True) if r.status is not Status.PASSED
    }
    if bad:
        raise SystemExit(f"not every case passed: {bad}")
    return {
        "language": language,
        "mode": "batched" if batch else "process_per_case",
        "problems": len(names),
        "cases": sum(len(r.tests) for r in results),
        "wall_s": round(wall, 2),
        "machine_cpu_s": round(cpu, 2),
        "own_cpu_s": round(own, 2),
        "load_1min": round(os.getloadavg()[0], 1),
    }


def _projection(one: dict, many: dict) -> dict:
    """25 problems' fixed cost plus 250,000 cases at the marginal rate of this run."""
    problems = one["problems"]
    fixed_s = one["wall_s"] / problems  # per problem, workers included
    extra = many["cases"] - one["cases"]
    per_case_s = (many["wall_s"] - one["wall_s"]) / extra
    own_per_case_s = (many["own_cpu_s"] - one["own_cpu_s"]) / extra
    return {
        "language": many["language"],
        "mode": many["mode"],
        "fixed_s_per_problem": round(fixed_s, 3),
        "ms_per_case": round(1000 * per_case_s, 4),
        "own_cpu_ms_per_case": round(1000 * own_per_case_s, 4),
        "projected_25x10000_s": round(25 * fixed_s + 250_000 * per_case_s, 1),
    }


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--single-cases", type=int, default=300)
    parser.add_argument("--language", choices=("cpp", "python"), default="cpp")
    args = parser.parse_args()
    language = args.language
    names = reference_names() if language == "cpp" else sorted(PROBLEMS)
    bench = load(args.data_dir, n_random=args.cases, name=f"psb2-{language}", language=language)
    # every run compiles: the fixed cost measured is the compile's (execution/builds.py)
    executor = create_executor("sandbox", compile_cache=False)
    try:
        print(json.dumps({"python": platform.python_version(), "workers": executor.workers}))
        for batch, cases in ((True, args.cases), (False, args.single_cases)):
            if cases <= 1:
                continue
            one = _measure(executor, bench, names, 1, batch, language)
            many = _measure(executor, bench, names, cases, batch, language)
            print(json.dumps(one))
            print(json.dumps(many))
            print(json.dumps(_projection(one, many)))
    finally:
        executor.close()


if __name__ == "__main__":
    main()
