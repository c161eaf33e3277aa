"""Throughput of the C++, Java and Python runners on I/O tests in the sandbox executor.

Usage::

    python benchmarks/bench_lang_runners.py [--programs 4] [--cases 2000] [--jvm-cases 100]

Per runner, ``--programs`` copies of a small stdin/stdout program ("read two integers,
print their sum"; distinct sources, so each is compiled) each run on ``--cases`` I/O tests
through the default sandbox executor (workers = cores, programs concurrently): C++ one
process per test, Java batched (many tests per JVM), Java one JVM per test (on
``--jvm-cases`` tests: it is slow), Python one process per test. Each is measured twice:
with one test per program (the fixed cost: compile and first launch) and with all of
them; the difference gives the cost of one more test. Prints one JSON line per runner and
the extrapolation to 25 problems x 10,000 cases (one model's answers in one language):
25 fixed costs spread over the workers plus 250,000 tests at the measured rate. Record
results in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import time

from _common import argument_parser, machine_cpu_s

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, Status, create_executor
from beyondpass.execution.languages import io_request

PROGRAMS = {
    "cpp": "#include <iostream>\n// copy {n}\nint main() {{ long long a, b; std::cin >> a >> b; "
    'std::cout << a + b << "\\n"; }}\n',
    "java": "import java.util.Scanner;\n// copy {n}\npublic class Main {{\n"
    "  public static void main(String[] args) {{\n    Scanner in = new Scanner(System.in);\n"
    "    System.out.println(in.nextLong() + in.nextLong());\n  }}\n}}\n",
    "python": "# copy {n}\na, b = map(int, input().split())\nprint(a + b)\n",
}
RUNNERS = (  # name, language, batched
    ("cpp", "cpp", True),
    ("java_batched", "java", True),
    ("java_jvm_per_case", "java", False),
    ("python", "python", True),
)
LIMITS = ExecutionLimits(timeout_s=1800, test_timeout_s=10)


def _run(executor, language: str, batch: bool, programs: int, cases: int) -> tuple[float, float]:
    tests = [
        TestCase(f"c{i}", stdin=f"{i} {2 * i}\n", expected_stdout=f"{3 * i}\n")
        for i in range(cases)
    ]
    requests = [
        io_request(language, PROGRAMS[language].format(n=n), tests, LIMITS, batch)
        for n in range(programs)
    ]
    start, cpu = time.perf_counter(), machine_cpu_s()
    results = executor.run_many(requests)
    wall, cpu = time.perf_counter() - start, machine_cpu_s() - cpu
    failed = [(r.status, r.message) for r in results if r.status is not Status.PASSED]
    assert not failed, f"{language}: a program did not pass: {failed[:1]}"
    return wall, cpu


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--programs", type=int, default=4)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--jvm-cases", type=int, default=100)
    parser.add_argument("--only", nargs="*", default=None, help="runner names to measure")
    args = parser.parse_args()
    # every run compiles: the fixed cost measured is the compile's (execution/builds.py)
    executor = create_executor("sandbox", compile_cache=False)
    workers = executor.workers
    try:
        _run(executor, "python", True, workers, 1)  # workers up before the clock
        for name, language, batch in RUNNERS:
            if args.only and name not in args.only:
                continue
            cases = args.jvm_cases if name == "java_jvm_per_case" else args.cases
            fixed_wall, _ = _run(executor, language, batch, args.programs, 1)
            wall, cpu = _run(executor, language, batch, args.programs, cases)
            total = args.programs * cases
            per_case = (wall - fixed_wall) / (args.programs * (cases - 1))
            fixed_per_program = fixed_wall * workers / args.programs
            # 25 problems: their fixed costs over the workers, then 250,000 tests
            extrapolated = 25 * fixed_per_program / workers + 250_000 * per_case
            print(
                json.dumps(
                    {
                        "runner": name,
                        "programs": args.programs,
                        "cases_per_program": cases,
                        "seconds": round(wall, 2),
                        "cases_per_second": round(total / wall, 1),
                        "marginal_ms_per_case": round(per_case * 1000, 3),
                        "cpu_ms_per_case": round(cpu * 1000 / total, 3),
                        "fixed_s_per_program": round(fixed_per_program, 2),
                        "extrapolated_25x10000_s": round(extrapolated, 1),
                        "workers": workers,
                        "isolation": executor.metadata().get("isolation"),
                        "cpus": os.cpu_count(),
                        "python": platform.python_version(),
                        "load_before": os.getloadavg()[0],
                    }
                ),
                flush=True,
            )
    finally:
        executor.close()


if __name__ == "__main__":
    main()
