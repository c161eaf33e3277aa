"""Static NFR metrics for 1640 samples: in-process pylint on batches vs one ``pylint`` per file.

Usage::

    python benchmarks/bench_nfr_metrics.py [--data-dir ../shared/data] [--repeat 10]
        [--workers 1] [--baseline-limit N]

The samples are HumanEval's 164 canonical solutions x ``--repeat``, assembled into candidate
programs exactly as ``evaluate`` does. Three timings, each from a cold start:

- ``NfrEvaluator`` with ``dedupe=False``: every sample analysed (no content-hash cache);
- ``NfrEvaluator`` with ``dedupe=True``: identical programs analysed once (the cache);
- the baseline: ``python -m pylint --rcfile <the same rc> FILE``, one process per sample,
  ``--workers`` of them at a time (the evaluator uses as many worker processes).

Each timing is reported as wall-clock seconds and as CPU seconds (user + system of this
process and of every process it waited for: the pylint workers, the pylint commands). On a
machine shared with other work the CPU figure is the stable one; the wall figure depends on
the load at the moment.

The baseline's messages are compared with the evaluator's, sample by sample (every message
symbol and line, hence the Refactor and Convention counts); any difference makes the script
exit 1. Prints one JSON object; record it in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _common import REPO, argument_parser

sys.path.insert(0, str(REPO / "src"))

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.evaluators.base import Candidate  # noqa: E402
from beyondpass.extraction import extract  # noqa: E402
from beyondpass.methods.robunfr.evaluators.nfr import NfrEvaluator  # noqa: E402
from beyondpass.methods.robunfr.evaluators.pylint_batch import versions, write_rcfile  # noqa: E402


def cpu_seconds() -> float:
    """User + system time of this process and of its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def baseline_one(program: str, index: int, scratch: Path, rcfile: Path) -> list[str]:
    """One ``pylint`` process on one file; its non-informational messages as line:symbol."""
    path = scratch / f"m_sample_{index:05d}.py"
    path.write_text(program, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYLINT")}
    env["PYLINTHOME"] = str(scratch / ".pylint.d")
    proc = subprocess.run(
        [sys.executable, "-m", "pylint", "--rcfile", str(rcfile), "--output-format=json", path],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode & 32:
        raise SystemExit(f"pylint usage error on {path}: {proc.stderr.strip()}")
    messages = json.loads(proc.stdout)
    return sorted(f"{m['line']}:{m['symbol']}" for m in messages if m["type"] != "info")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--baseline-limit",
        type=int,
        default=None,
        help="run the baseline on the first N samples only (quick checks; no ratio printed)",
    )
    args = parser.parse_args()

    bench = load_benchmark("humaneval", args.data_dir)
    once = [Candidate(t, extract(t.reference_solution, t)) for t in bench.tasks.values()]
    assert all(c.extraction.ok for c in once)
    candidates = once * args.repeat
    n = len(candidates)
    load_before = os.getloadavg()

    timings: dict[str, float] = {}
    results = {}
    for dedupe in (False, True):
        evaluator = NfrEvaluator(workers=args.workers, dedupe=dedupe)
        label = f"batched_{'with' if dedupe else 'without'}_cache"
        start, cpu = time.perf_counter(), cpu_seconds()
        results[dedupe] = evaluator.evaluate(candidates)
        timings[f"{label}_s"] = time.perf_counter() - start
        timings[f"{label}_cpu_s"] = cpu_seconds() - cpu
    worker_rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    count = n if args.baseline_limit is None else min(n, args.baseline_limit)
    with tempfile.TemporaryDirectory(prefix="bench-nfr-") as tmp:
        scratch = Path(tmp)
        rcfile = write_rcfile(scratch)
        start, cpu = time.perf_counter(), cpu_seconds()
        with ThreadPoolExecutor(args.workers) as pool:
            baseline = list(
                pool.map(
                    lambda i: baseline_one(candidates[i].extraction.program, i, scratch, rcfile),
                    range(count),
                )
            )
        timings["baseline_process_per_file_s"] = time.perf_counter() - start
        timings["baseline_process_per_file_cpu_s"] = cpu_seconds() - cpu

    mismatches = []
    category_totals: Counter[str] = Counter()
    for i in range(count):
        for dedupe in (False, True):
            ev = results[dedupe][i]
            ours = sorted(ev.details.get("pylint_messages", ["<no pylint counts>"]))
            if ours != baseline[i]:
                mismatches.append(
                    {"sample": i, "dedupe": dedupe, "ours": ours, "pylint": baseline[i]}
                )
    for ev in results[False]:
        category_totals["refactor"] += ev.metrics.get("pylint_refactor", 0)
        category_totals["convention"] += ev.metrics.get("pylint_convention", 0)

    report = {
        "samples": n,
        "unique_programs": len({c.extraction.program for c in candidates}),
        "workers": args.workers,
        "baseline_samples": count,
        **{k: round(v, 2) for k, v in timings.items()},
        "worker_max_rss_mb": round(worker_rss_mb),
        "identical_messages": not mismatches,
        "mismatches": mismatches[:5],
        "refactor_messages": category_totals["refactor"],
        "convention_messages": category_totals["convention"],
        **versions(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in load_before],
    }
    if count == n:
        for kind in ("s", "cpu_s"):
            base = timings[f"baseline_process_per_file_{kind}"]
            for cache in ("without", "with"):
                ratio = base / timings[f"batched_{cache}_cache_{kind}"]
                report[f"speedup_{cache}_cache_{'wall' if kind == 's' else 'cpu'}"] = round(
                    ratio, 1
                )
    print(json.dumps(report, indent=2))
    if mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
