"""``scores.jsonl`` and ``summary.json`` of ``nofuneval score``, exported from the run store.

The evaluators score; this module only lays their stored results out the way the command
always wrote them (docs/nofuneval.md), so existing scripts keep reading the same fields and
numbers: one line per generation (classification: per row and sample, both orderings) and
the summary. The summary's computations are the ones Table 1 and the report use
(:func:`edit.samples.score_at_ks`, :func:`edit.speedup.runtime_summary`,
:func:`oracles.score.oracle_summary`, :func:`classify.choices.score_choices`). How runtime
rows were timed and how the oracle judged are read from the evaluators' metadata the run
recorded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from statistics import mean
from typing import Any, Protocol

from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import DataError
from beyondpass.store.run_store import ResultRecord, RunStore
from beyondpass.study.answer_files import Answered, write_json_atomic, write_jsonl_atomic


class ExportedKind(Protocol):
    """What the exports read of the answers-file kind (``answer_file.GenerationsFile``,
    which calls them: this module does not import it back)."""

    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def classify(self) -> bool: ...
    @property
    def compat(self) -> str | None: ...
    @property
    def runs_programs(self) -> bool: ...
    @property
    def add_ons(self) -> tuple[str, ...]: ...


SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"


def write_exports(
    kind: ExportedKind, out_dir: Path, bench: Benchmark, lines: list[Answered]
) -> dict[str, Any]:
    """Write both files (each replaced whole, never half-written); return ``{"nofuneval":
    summary}`` for the caller's summary."""
    with RunStore(out_dir, create=False) as store:
        recorded = {e.name: e.metadata for e in store.evaluators()}
    if kind.classify:
        scores, summary = _classification(kind, bench, lines)
    else:
        scores, summary = _edits(kind, bench, lines, recorded)
    summary["run_dir"] = str(out_dir)
    write_jsonl_atomic(out_dir / SCORES_FILE, scores)
    write_json_atomic(out_dir / SUMMARY_FILE, summary)
    return {"nofuneval": summary, "scores_path": str(out_dir / SCORES_FILE)}


def _result(answered: Answered) -> ResultRecord:
    if answered.stored is None or answered.stored.result is None:
        raise DataError(f"line {answered.row.line}: no result stored — run the scoring again")
    return answered.stored.result


def _edits(
    kind: ExportedKind,
    bench: Benchmark,
    lines: list[Answered],
    recorded: dict[str, dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    scores: list[dict[str, Any]] = []
    failures: dict[int, dict[str, Any]] = {}
    for a in lines:
        res = _result(a)
        row = int(a.row.extra["row"])
        line = {
            "row": row,
            "sample": int(a.row.extra["sample"]),
            "diffbleu": res.metrics["diffbleu"],
            "template_followed": bool(res.metrics["template_followed"]),
        }
        if kind.add_ons:
            line.update(_oracle_fields(res))
        if kind.runs_programs:
            line.update(_runtime_fields(res))
            if line.get("source_correct") is False and row not in failures:
                failures[row] = {
                    "row": row,
                    "status": res.details.get("source_status", ""),
                    "message": str(res.details.get("source_message", ""))[:200],
                }
        scores.append(line)
    summary = diffbleu_summary(scores, bench)
    summary.update(reading="compat" if kind.compat else "robust", prompt=kind.options["prompt"])
    if kind.add_ons:
        from beyondpass.methods.nofuneval.oracles.score import oracle_summary

        how = dict(recorded.get("nofuneval-oracle") or {})
        for key in ("evaluator", "compat"):
            how.pop(key, None)
        summary.update(oracle_summary(scores, how))
    if kind.runs_programs:
        from beyondpass.methods.nofuneval.edit.speedup import runtime_summary

        timing = dict((recorded.get("nofuneval-edit") or {}).get("runtime") or {})
        timing.pop("compat", None)
        metas = {t.metadata["row"]: t.metadata for t in bench.tasks.values()}
        sources = {s["row"]: str(metas[s["row"]]["source_code"]) for s in scores}
        ordered = [failures[r] for r in sorted(failures)]
        summary.update(runtime_summary(scores, sources, ordered, timing))
    return scores, summary


def diffbleu_summary(scores: list[dict[str, Any]], bench: Benchmark) -> dict[str, Any]:
    """Rows and samples scored, the template-followed rate and DiffBLEU score@k."""
    from beyondpass.methods.nofuneval.edit.samples import score_at_ks

    per_row: dict[int, list[float]] = defaultdict(list)
    for s in scores:
        per_row[s["row"]].append(s["diffbleu"])
    summary: dict[str, Any] = {
        "benchmark": bench.name,
        "benchmark_version": bench.version,
        "rows_scored": len(per_row),
        "rows_in_subset": len(bench.tasks),
        "samples": len(scores),
        "template_followed_rate": mean(bool(s["template_followed"]) for s in scores),
    }
    summary.update({f"diffbleu_score@{k}": v for k, v in score_at_ks(per_row).items()})
    return summary


def _runtime_fields(res: ResultRecord) -> dict[str, Any]:
    """The runtime record the evaluator stored (an answer without a program has one too,
    status ``no_code``); a result without one (stored by an older evaluator, which kept no
    record for such answers) gets the same: wrong, speed-up 1.0."""
    fields = res.details.get("runtime")
    if isinstance(fields, dict):
        return dict(fields)
    return {"correct": False, "status": res.status, "speedup": 1.0, "improved": False}


def _oracle_fields(res: ResultRecord) -> dict[str, Any]:
    details = dict(res.details.get("nofuneval-oracle") or {})
    verdict = {"status": details.pop("oracle", "no_oracle"), **details}
    return {"oracle": verdict, "diffbleu_x_oracle": res.metrics.get("diffbleu_x_oracle")}


def _classification(
    kind: ExportedKind, bench: Benchmark, lines: list[Answered]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from beyondpass.methods.nofuneval.classify.choices import score_choices

    choices: dict[tuple[int, int], dict[str, str | None]] = defaultdict(dict)
    for a in lines:
        res = _result(a)
        key = (int(a.row.extra["row"]), int(a.row.extra["sample"]))
        choices[key][str(a.row.extra["ordering"])] = res.details.get("choice")
    metas = {t.metadata["row"]: t.metadata for t in bench.tasks.values()}
    scores, found = score_choices(choices, metas, bench.name)
    summary = {
        "benchmark": bench.name,
        "benchmark_version": bench.version,
        "reading": "compat" if kind.compat else "robust",
        **found,
    }
    return scores, summary
