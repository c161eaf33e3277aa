"""NoFunEval scoring speed: DiffBLEU per 1000 rows, sandboxed correctness per problem.

DiffBLEU: gpt-4's four published latency files (188 answers), NoFunEval's reading, scored
``--repeat`` times; reported per 1000 answers. Runtime efficiency: every row's target_code
on its CodeNet cases through the sandboxed executor (2 workers); reported per problem.
Speed-up: every row's source_code and target_code (or the first ``--rows``), ``--runs``
timed runs per case (CPU time; ``--compat``: wall clock), the speed-up of the target over
the source per row; wall time per problem, and per-row results to ``--out`` (JSONL).
``--compare-ray``: the speed-ups timed twice locally and once on a local Ray instance, and
how far Ray's differ from the local ones against how far the two local runs differ.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from _common import argument_parser

from beyondpass.execution import create_executor
from beyondpass.methods.nofuneval.benchmark import load_subset
from beyondpass.methods.nofuneval.edit.diffbleu import DiffBleu
from beyondpass.methods.nofuneval.edit.runtime import (
    check_programs,
    measure_programs,
    speedup,
    welch_faster,
)
from beyondpass.methods.nofuneval.extraction.readers import compat_extract, published_answer
from beyondpass.methods.nofuneval.files.generations import generation_lines

KINDS = ("base_prompt", "one_shot", "chain_of_thought", "coding_concepts")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=25, help="timed runs per case (0: skip)")
    parser.add_argument("--rows", type=int, default=0, help="first N rows only (0: all)")
    parser.add_argument("--compat", action="store_true", help="NoFunEval's wall-clock timing")
    parser.add_argument("--out", default="", help="per-row speed-up results (JSONL)")
    parser.add_argument("--only-speedup", action="store_true")
    parser.add_argument(
        "--compare-ray",
        action="store_true",
        help="speed-ups on a local Ray instance against two local runs (their noise)",
    )
    args = parser.parse_args()
    if not args.only_speedup:
        _diffbleu_and_correctness(args)
    if args.runs > 0:
        _speedup(args)


def _speedup(args) -> None:
    if args.compare_ray:
        _compare_ray(args)
        return
    executor = create_executor("sandbox", workers=2)
    try:
        rows, wall, python = _speedup_rows(args, executor)
    finally:
        executor.close()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    both = sum(r["source_correct"] and r["target_correct"] for r in rows)
    faster = sum(r["speedup"] > 1 for r in rows)
    method = "wall clock" if args.compat else "CPU time"
    print(
        f"speed-up ({method}, {args.runs} runs per case, Python {python}): {len(rows)} "
        f"problems, source and target both correct on {both}, target significantly faster "
        f"(speed-up > 1) on {faster}; {wall:.1f} s ({wall / len(rows):.2f} s per problem, "
        "source and target, 2 workers)"
    )


def _speedup_rows(args, executor) -> tuple[list[dict], float, str]:
    """Every row's source and target timed on ``executor``; the per-row speed-ups, the
    wall time and the Python version."""
    bench = load_subset("runtime_efficiency", args.data_dir)
    tasks = list(bench.tasks.values())[: args.rows or None]
    items = [(t, t.metadata[k]) for t in tasks for k in ("source_code", "target_code")]
    python = executor.metadata().get("python", "") or executor.metadata().get("inner", {}).get(
        "python", ""
    )
    start = time.perf_counter()
    measured = measure_programs(items, executor, args.compat, args.runs)
    wall = time.perf_counter() - start
    rows = []
    for t, src, tgt in zip(tasks, measured[::2], measured[1::2], strict=True):
        value, improved = speedup(src.times_s, tgt.times_s, src.correct and tgt.correct)
        rows.append(
            {
                "row": t.metadata["row"],
                "problem_id": t.metadata.get("problem_id"),
                "source_correct": src.correct,
                "target_correct": tgt.correct,
                "source_status": src.status,
                "target_status": tgt.status,
                "message": (tgt.message or src.message)[:200],
                "speedup": value,
                "improved": improved,
                "p_value": welch_faster(src.times_s, tgt.times_s),
                "observations": [len(src.times_s), len(tgt.times_s)],
                "timing_error": tgt.timing_error or src.timing_error,
            }
        )
    return rows, wall, python


def _compare_ray(args) -> None:
    """Speed-ups on a local Ray instance against the local pool's own run-to-run noise:
    the same rows timed twice locally (2 sandbox workers) and once on Ray (2 CPUs, each
    timed program holding a whole CPU); per row, the speed-up's relative difference between
    the two local runs (the noise) and between the first local run and Ray."""
    from beyondpass.execution import ExecutorChoice

    runs = {}
    for name in ("local-1", "local-2", "ray"):
        if name == "ray":
            executor = ExecutorChoice("ray").build()
        else:
            executor = create_executor("sandbox", workers=2)
        try:
            runs[name], wall, _ = _speedup_rows(args, executor)
        finally:
            executor.close()
        print(f"{name}: {len(runs[name])} rows in {wall:.1f} s")
    base = runs["local-1"]
    print(
        "| comparison | rows | same correctness | same `improved` | median relative "
        "speed-up difference (rows improved in either) | 90th percentile |"
    )
    print("|---|---|---|---|---|---|")
    for other in ("local-2", "ray"):
        same = [
            a["source_correct"] == b["source_correct"]
            and a["target_correct"] == b["target_correct"]
            for a, b in zip(base, runs[other], strict=True)
        ]
        diffs = sorted(
            abs(b["speedup"] - a["speedup"]) / a["speedup"]
            for a, b in zip(base, runs[other], strict=True)
            if a["improved"] or b["improved"]
        )
        agree = sum(a["improved"] == b["improved"] for a, b in zip(base, runs[other], strict=True))
        median = diffs[len(diffs) // 2] if diffs else float("nan")
        p90 = diffs[int(0.9 * (len(diffs) - 1))] if diffs else float("nan")
        print(
            f"| local-1 vs {other} | {len(base)} | {sum(same)} | {agree} | "
            f"{100 * median:.1f}% | {100 * p90:.1f}% |"
        )


def _diffbleu_and_correctness(args) -> None:
    root = os.path.join(args.data_dir, "nofuneval", "generations", "latency", "gpt-4")
    answers = []
    for kind in KINDS:
        path = Path(root, kind, "generated_outputs.jsonl")
        answers += [(kind, obj) for _, obj in generation_lines(path)]
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        with DiffBleu() as scorer:
            for kind, g in answers:
                code = compat_extract(published_answer(g["generated_answers"]), kind, g["pl"])
                scorer.score(g["source_code"], g["target_code"], code.code, g["pl"])
        best = min(best, time.perf_counter() - start)
    print(
        f"DiffBLEU: {len(answers)} answers in {best:.2f} s "
        f"({1000 * best / len(answers):.1f} s per 1000), best of {args.repeat}"
    )

    bench = load_subset("runtime_efficiency", args.data_dir)
    tasks = list(bench.tasks.values())
    executor = create_executor("sandbox", workers=2)
    try:
        start = time.perf_counter()
        results = check_programs([(t, t.metadata["target_code"]) for t in tasks], executor)
        wall = time.perf_counter() - start
    finally:
        executor.close()
    print(
        f"runtime correctness: {len(tasks)} problems, {sum(r.correct for r in results)} "
        f"correct, {wall:.1f} s ({wall / len(tasks):.2f} s per problem, 2 workers)"
    )


if __name__ == "__main__":
    main()
