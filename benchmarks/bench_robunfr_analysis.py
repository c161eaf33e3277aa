"""The RobuNFR analysis at the paper's size: one model, the whole design, every table.

Usage::

    python benchmarks/bench_robunfr_analysis.py [--out DIR] [--models 1] [--plots]

Writes a synthetic run of the built-in design (HumanEval 164, HumanEval-ET 164, MBPP 427,
MBPP-ET 397 tasks x 90 samples: Function-Only x 10 repeats + 4 NFRs x 10 prompts x 2
workflows) per model into a real run store, with seeded random verdicts and NFR metrics, then
times reading it, the analysis (every cell's AVG, STDEV, bootstrap CI; every paired test),
building every table, and with ``--plots`` the whole report. CPU seconds are the stable
figure on a shared machine. Prints one JSON object; record it in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from beyondpass.methods.robunfr.analysis import analyse, robunfr_tables
from beyondpass.methods.robunfr.prompts import load_templates, robunfr_plan
from beyondpass.report import render_report
from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key

SIZES = {"humaneval": 164, "humaneval-et": 164, "mbpp": 427, "mbpp-et": 397}


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def write(run_dir: Path, models: list[str]) -> int:
    plan = robunfr_plan(load_templates(), function_only_repeats=10)
    count = 0
    with RunStore(run_dir) as store:
        store.set_meta("study", {"name": "bench", "seed": 0, "config": {}})
        store.set_meta("benchmarks", {b: {"version": "bench"} for b in SIZES})
        store.set_meta("models", {m: {"spec": f"bench:{m}"} for m in models})
        store.set_meta(
            "conditions",
            {
                c.id: {
                    "workflow": c.workflow,
                    "steps": [asdict(s) for s in c.steps],
                    "metadata": dict(c.metadata),
                    "repeats": c.repeats,
                    "samples_per_task": c.repeats,
                }
                for c in plan.conditions
            },
        )
        store.set_meta("sampling", {"n": 1, "temperature": 0.0})
        for bench, size in SIZES.items():
            for model in models:
                for cond in plan.conditions:
                    for t in range(size):
                        for i in range(cond.repeats):
                            rnd = random.Random(f"{bench}|{model}|{cond.id}|{t}|{i}")
                            passed = rnd.random() < 0.75
                            metrics = {
                                "smell_density": rnd.uniform(0, 1),
                                "unreadability_density": rnd.uniform(0, 4),
                                "exception_density": rnd.uniform(0, 0.5),
                            }
                            if passed:
                                metrics["exec_time_ms"] = rnd.uniform(5, 100)
                            key = sample_key(bench, f"T/{t}", model, cond.id, i)
                            store.put_sample(
                                SampleRecord(
                                    key,
                                    bench,
                                    f"T/{t}",
                                    model,
                                    cond.id,
                                    i,
                                    "",
                                    "",
                                    "",
                                    {"status": "ok"},
                                )
                            )
                            store.put_result(
                                ResultRecord(key, "passed" if passed else "failed", passed, metrics)
                            )
                            count += 1
    return count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="Run directory to (re)use.")
    ap.add_argument("--models", type=int, default=1)
    ap.add_argument("--plots", action="store_true", help="Also render the report with plots.")
    args = ap.parse_args()
    run_dir = args.out or Path(tempfile.mkdtemp(prefix="bench-robunfr-")) / "run"
    models = [f"model-{i}" for i in range(args.models)]
    result: dict[str, object] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "models": args.models,
    }
    if not (run_dir / "run.sqlite3").exists():
        t0 = time.perf_counter()
        result["samples_written"] = write(run_dir, models)
        result["write_s"] = round(time.perf_counter() - t0, 1)
    t0, c0 = time.perf_counter(), cpu()
    with RunStore(run_dir, create=False) as store:
        meta, rows = store.all_meta(), list(store.rows())
    result["samples"] = len(rows)
    result["read_s"] = round(time.perf_counter() - t0, 2)
    t1, c1 = time.perf_counter(), cpu()
    an = analyse(meta, rows)
    result["analyse_s"] = round(time.perf_counter() - t1, 2)
    result["analyse_cpu_s"] = round(cpu() - c1, 2)
    t2 = time.perf_counter()
    tables = robunfr_tables(an)
    result["tables"] = len(tables)
    result["tables_s"] = round(time.perf_counter() - t2, 2)
    result["analysis_total_cpu_s"] = round(cpu() - c0, 2)
    if args.plots:
        t3, c3 = time.perf_counter(), cpu()
        render_report(run_dir)
        result["report_s"] = round(time.perf_counter() - t3, 1)
        result["report_cpu_s"] = round(cpu() - c3, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
