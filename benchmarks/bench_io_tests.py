"""Cost of one I/O test case (one launch of the whole program) in the sandbox executor.

Usage::

    python benchmarks/bench_io_tests.py [--samples 100] [--cases 10] [--workers N]

Runs ``--samples`` samples of a small stdin/stdout program ("read two integers, print their
sum"), each with ``--cases`` I/O tests, through the default sandbox executor; then the same
programs as call-style tests (the function called ``--cases`` times in one process), for
comparison. Every I/O case is one fresh process forked from the warm fork server, given its
input and compared by the judge. Prints one JSON line: wall time and machine CPU time per
case of each kind (CPU from ``/proc/stat``: every process, sandboxes included; run on an
otherwise idle machine). Record results in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import time

from _common import argument_parser, machine_cpu_s

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionRequest, Status, create_executor

IO_PROGRAM = "a, b = map(int, input().split())\nprint(a + b)\n"
CALL_PROGRAM = "def add(a, b):\n    return a + b\n"


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    io_tests = tuple(
        TestCase(f"c{i}", stdin=f"{i} {2 * i}\n", expected_stdout=f"{3 * i}\n")
        for i in range(args.cases)
    )
    call_tests = tuple(
        TestCase(f"c{i}", code=f"assert add({i}, {2 * i}) == {3 * i}") for i in range(args.cases)
    )
    executor = create_executor("sandbox", workers=args.workers)
    try:
        executor.run(ExecutionRequest(IO_PROGRAM, io_tests))  # workers up before the clock
        result = {"samples": args.samples, "cases_per_sample": args.cases}
        for kind, program, tests in (
            ("io", IO_PROGRAM, io_tests),
            ("call", CALL_PROGRAM, call_tests),
        ):
            requests = [ExecutionRequest(program, tests) for _ in range(args.samples)]
            start, cpu = time.perf_counter(), machine_cpu_s()
            verdicts = executor.run_many(requests)
            wall, cpu = time.perf_counter() - start, machine_cpu_s() - cpu
            assert all(v.status is Status.PASSED for v in verdicts), "a sample did not pass"
            cases = args.samples * args.cases
            result[f"{kind}_seconds"] = round(wall, 2)
            result[f"{kind}_ms_per_case"] = round(wall * 1000 / cases, 2)
            result[f"{kind}_cpu_ms_per_case"] = round(cpu * 1000 / cases, 2)
        result.update(
            workers=executor.workers,
            isolation=executor.metadata().get("isolation"),
            cpus=os.cpu_count(),
            python=platform.python_version(),
        )
    finally:
        executor.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
