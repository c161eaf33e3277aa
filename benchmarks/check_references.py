"""Run every reference solution of every benchmark against its own tests.

Usage::

    python benchmarks/check_references.py [--data-dir ../shared/data]

The full counterpart of tests/benchmarks/test_benchmarks.py, which runs the same check
(tests/benchmarks/reference_check.py) on all of HumanEval, MBPP and the demo but only on a
seeded sample of HumanEval-ET and MBPP-ET (plus their broken tasks): every task, the sandbox
executor, the default 10 s limit (slow tasks: their own, task_notes.toml). Asserted: every
reference passes except the tasks listed as broken, and each of those really fails. Prints
one JSON line per benchmark and exits 1 when a check fails; record results in
docs/benchmarks.md ("Known-broken and slow tasks").
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time

from _common import REPO, argument_parser

sys.path.insert(0, str(REPO / "tests" / "benchmarks"))

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from reference_check import reference_evaluator, reference_failures  # noqa: E402

BENCHMARKS = ("humaneval", "humaneval-et", "mbpp", "mbpp-et", "demo")


def main() -> int:
    args = argument_parser(__doc__).parse_args()
    print(
        json.dumps(
            {"python": platform.python_version(), "cores": os.cpu_count(), "load": os.getloadavg()}
        )
    )
    evaluator = reference_evaluator()
    failed = False
    for name in BENCHMARKS:
        bench = load_benchmark(name, args.data_dir)
        start = time.perf_counter()
        unexpected, wrongly_listed = reference_failures(bench, evaluator)
        row = {
            "benchmark": name,
            "tasks": len(bench.tasks),
            "tests": sum(len(t.tests) for t in bench.tasks.values()),
            "broken": len(bench.known_broken),
            "unexpected_failures": unexpected,
            "listed_broken_but_passing": sorted(wrongly_listed),
            "seconds": round(time.perf_counter() - start, 1),
            "load": round(os.getloadavg()[0], 1),
        }
        failed = failed or bool(unexpected or wrongly_listed)
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
