"""NoFunEval's headline metrics, per task (one NoFunEval row), for the profile report and
``compare``.

- ``diffbleu``: the metric Table 1 shows for the benchmark (DiffBLEU, or DiffBLEU x oracle
  for security and maintainability when the oracle ran; :func:`.report.table1_metric`), a
  task's value the mean over its samples: the mean over tasks is score@1,n as the report
  computes it (:func:`.report.condition_scores`).
- ``speedup``: runtime-efficiency rows, the mean speed-up of a task's samples that have one.
- ``classify_accuracy``: a task is right when both orderings of a pair name the right
  program, averaged over its sample indexes (:func:`.report.classify_cells`); the group
  pools both orderings.

The stored results were scored in the reading the run was made with (:func:`reading`):
``compare`` reads each run in its own and refuses to set two readings side by side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from statistics import mean
from typing import Any

from beyondpass.analysis.headline import ALL_CONDITIONS, Observation
from beyondpass.analysis.meta import as_dict, recorded_evaluators
from beyondpass.methods.nofuneval.report import MICRO, classify_cells, table1_metric, task_values
from beyondpass.store.run_store import Row


def _task_means(rows: Sequence[Row], metric: str) -> Iterator[Observation]:
    for (model, bench, condition), tasks in task_values(rows, metric).items():
        for task, values in tasks.items():
            yield Observation(bench, model, condition, task, mean(values))


def diffbleu(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    by_bench: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_bench[row.sample.benchmark].append(row)
    for bench, bench_rows in by_bench.items():
        yield from _task_means(bench_rows, table1_metric(bench, bench_rows))


def speedup(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    yield from _task_means(rows, "speedup")


def classify_accuracy(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    for (model, bench), cell in classify_cells(rows).items():
        if bench == MICRO:
            continue  # a pool of the requirements' own cells, not a benchmark of the run
        for task, accuracy in cell.task_accuracy.items():
            yield Observation(bench, model, ALL_CONDITIONS, task, accuracy)


def reading(meta: Mapping[str, Any]) -> dict[str, str]:
    """How a run's NoFunEval answers were read and scored: ``compat`` (NoFunEval's own
    extraction and scoring, ``--compat nofuneval``) or ``robust`` (beyondpass's); nothing
    for a run no NoFunEval evaluator scored."""
    recorded = recorded_evaluators(meta)
    ours = [e for e in recorded if str(e.get("evaluator", "")).startswith("nofuneval-")]
    if not ours:
        return {}
    # runs stored before the edit evaluator recorded ``compat`` kept it with its timing
    compat = any(e.get("compat") or as_dict(e.get("runtime")).get("compat") for e in ours)
    return {"reading": "compat" if compat else "robust"}
