"""Run the sandbox conformance suite many times in a row beside CPU-burning processes.

Usage::

    python benchmarks/bench_conformance.py [--runs 20] [--burners 4]

A verdict that depends on load is a defect: the suite (every launcher, every level this
machine offers, tests/execution/test_sandbox_conformance.py) must pass every time while
``--burners`` processes keep every core busy. Each run is a fresh ``pytest`` process (one
worker, so the burners are the only company); the script prints one JSON line per run
(passed, failed, seconds, the failing tests) and a summary line, and exits 1 when any run
failed. Not part of CI: it takes about a minute and a half per run here. Record results
in docs/performance.md.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
import time

from _common import REPO, argument_parser

SUITE = "tests/execution/test_sandbox_conformance.py"


def _burn() -> None:
    while True:
        pass


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--burners", type=int, default=4)
    args = parser.parse_args()

    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(args.burners)]
    for burner in burners:
        burner.start()
    runs = []
    try:
        for index in range(1, args.runs + 1):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", SUITE],
                cwd=REPO,
                capture_output=True,
                text=True,
                env={**os.environ, "BEYONDPASS_DATA": args.data_dir},
            )
            seconds = round(time.perf_counter() - start, 1)
            tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|error)", tail)}
            failing = re.findall(r"^FAILED (\S+)", done.stdout, re.MULTILINE)
            run = {
                "run": index,
                "exit": done.returncode,
                "passed": counts.get("passed", 0),
                "failed": counts.get("failed", 0) + counts.get("error", 0),
                "seconds": seconds,
                "failing": failing,
            }
            runs.append(run)
            print(json.dumps(run), flush=True)
    finally:
        for burner in burners:
            burner.terminate()
    bad = [r for r in runs if r["exit"] != 0]
    summary = {
        "runs": len(runs),
        "failed_runs": len(bad),
        "burners": args.burners,
        "cores": os.cpu_count(),
        "tests_per_run": max((r["passed"] + r["failed"] for r in runs), default=0),
        "seconds_per_run": round(sum(r["seconds"] for r in runs) / max(1, len(runs)), 1),
    }
    print(json.dumps(summary), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
