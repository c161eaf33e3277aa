"""Verify every HumanEval and sanitized MBPP task at each obfuscation level set.

Usage::

    python benchmarks/bench_obfuseval_levels.py [--data-dir ../shared/data]

The full-benchmark counterpart of tests/methods/obfuseval/test_obfuseval_benchmarks.py,
which runs the same checks (tests/methods/obfuseval/obfuseval_checks.py) on a seeded sample
of 40 tasks per benchmark: every task of both benchmarks at each level alone, the two
combinations the issue names and all three, seed 0, one variant, default limits, one sandbox
batch per (benchmark, levels).
Asserted: >= 98% of the tasks verified, <= 2% refused by the renamer, every exclusion with
a reason, every kept variant really changed and compilable, and at each level set with the
symbol level no identifier of the entry point or its parameters left in the prompt, its code
or the tests. Prints one JSON line per pair and exits 1 when a check fails; record results
in docs/obfuseval.md ("Verification").
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time

from _common import REPO, argument_parser

sys.path.insert(0, str(REPO / "tests" / "methods" / "obfuseval"))

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.methods.obfuseval.transform import (  # noqa: E402
    ObfuscateOptions,
    obfuscate_benchmark,
)
from obfuseval_checks import LEVEL_SETS, name_problems, variant_problems  # noqa: E402


def main() -> int:
    args = argument_parser(__doc__).parse_args()
    print(
        json.dumps(
            {"python": platform.python_version(), "cores": os.cpu_count(), "load": os.getloadavg()}
        )
    )
    failed = False
    for name in ("humaneval", "mbpp"):
        bench = load_benchmark(name, args.data_dir)
        for levels in LEVEL_SETS:
            start = time.perf_counter()
            out, report = obfuscate_benchmark(bench, ObfuscateOptions(levels=list(levels)), 0)
            seconds = time.perf_counter() - start
            problems: list[str] = variant_problems(bench, out, report, levels)
            if "symbol" in levels:
                problems += [f"{t}: {p}" for t, p in name_problems(bench, out).items()]
            n = len(bench.tasks)
            refused = [o for o in report.excluded if o.reason.startswith("not obfuscated")]
            if len(report.verified) < 0.98 * n:
                problems.append(f"only {len(report.verified)} of {n} verified")
            if len(refused) > 0.02 * n:
                problems.append(f"{len(refused)} of {n} refused")
            failed = failed or bool(problems)
            row = {
                "benchmark": name,
                "levels": "+".join(levels),
                "tasks": n,
                "verified": len(report.verified),
                "excluded": {o.task_id: o.reason for o in report.excluded},
                "seconds": round(seconds, 1),
                "load": round(os.getloadavg()[0], 1),
                "problems": problems,
            }
            print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
