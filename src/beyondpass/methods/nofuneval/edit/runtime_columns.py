"""Table 1's runtime-efficiency columns, from the per-sample results a study stored.

For each model, benchmark and prompt condition whose samples carry the ``nofuneval-edit``
evaluator's runtime metrics (``speedup``, ``runtime_correct``, ``runtime_improved``):
Average Speedup@k, Correct@k and Improved@k — score@k,n over each task's n samples, the
mean over tasks (``speedup.runtime_at_k``, the same computation as ``nofuneval score``) —
for k = 1 and, when every such cell has the same n > 1, k = n. A Table 1 cell is the
lowest and highest value over the prompt conditions, each marked with its condition, as for
DiffBLEU (:mod:`.table1_cells`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from beyondpass.analysis.formatting import percent
from beyondpass.methods.nofuneval.edit.speedup import runtime_at_k
from beyondpass.methods.nofuneval.edit.table1_cells import table1_cells

#: stored metric -> the key runtime_at_k reads
_METRICS = {"speedup": "speedup", "runtime_correct": "correct", "runtime_improved": "improved"}
_LABELS = {"speedup": "Speedup", "correct": "Correct", "improved": "Improved"}
RUNTIME_NOTE = (
    " Runtime efficiency: Average Speedup@k, Correct@k (%), Improved@k (%) — score@k,n over"
    " each task's n samples, min – max over prompt conditions."
)


def runtime_scores(rows: Sequence[Any]) -> dict[tuple[str, str, str], dict[str, float]]:
    """(model, benchmark, condition) -> {"speedup@1": ..., "correct@1": ..., ...}."""
    found: dict[tuple[str, str, str], dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for row in rows:
        metrics = row.result.metrics if row.result is not None else {}
        if "speedup" not in metrics:
            continue
        s = row.sample
        task = found[(s.model, s.benchmark, s.condition)][s.task_id]
        for stored, key in _METRICS.items():
            task[key].append(float(metrics[stored]))
    return {key: runtime_at_k(per_task) for key, per_task in found.items()}


def runtime_columns(
    rows: Sequence[Any], models: Sequence[str], benchmarks: Sequence[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """Extra Table 1 columns (headers, and each model's cells): for every benchmark with
    runtime results, Speedup@k, Correct@k (%), Improved@k (%), each cell the span over
    conditions drawn by Table 1's one cell builder."""
    scores = runtime_scores(rows)
    ks = {int(name.split("@")[1]) for values in scores.values() for name in values}
    n_values = {k for k in ks if k > 1}
    shown = [1, *n_values] if len(n_values) == 1 else [1]
    head: list[str] = []
    cells: dict[str, list[str]] = {m: [] for m in models}
    for bench in benchmarks:
        if not any(b == bench for _, b, _ in scores):
            continue
        for k in shown:
            for key, label in _LABELS.items():
                head.append(f"{bench} {label}@{k}")
                metric = {
                    where: values[f"{key}@{k}"]
                    for where, values in scores.items()
                    if where[1] == bench and f"{key}@{k}" in values
                }
                fmt = _speedup if key == "speedup" else _percent
                for model, cell in table1_cells(metric, models, [bench], fmt):
                    cells[model].append(cell)
    return head, cells


def _speedup(value: float) -> str:
    return f"{value:.3f}"


def _percent(value: float) -> str:
    return percent(value, 1)
