"""RobuNFR's headline metrics: the NFR metrics of its tables (seed section 3.2), per task.

A task's value is the mean of its samples' values (:func:`.analysis.metrics.sample_value`:
execution time over passing samples only), per prompt condition; the mean over tasks is
the cell RobuNFR's tables average over prompts. Only RobuNFR's own conditions count when a
run holds other methods' too: their tests are timed as well (the timing is the run's), but
their times are not RobuNFR's metric. ``compare`` gates these through RobuNFR's
own version comparison (its groups, trade-offs and inconsistencies); the profile report
shows them beside the other methods' headline metrics.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from statistics import mean
from typing import Any

from beyondpass.analysis.headline import Observation
from beyondpass.methods.robunfr.analysis.data import own_rows
from beyondpass.methods.robunfr.analysis.metrics import sample_value
from beyondpass.store.run_store import Row

Values = Callable[[Sequence[Row], Mapping[str, Any]], Iterator[Observation]]


def _per_task(metric: str) -> Values:
    def values(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
        found: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
        for row in own_rows(meta, rows):
            value = sample_value(row, metric) if metric in _carried(row) else None
            if value is not None:
                s = row.sample
                found[(s.benchmark, s.model, s.condition, s.task_id)].append(value)
        for (bench, model, condition, task), vals in found.items():
            yield Observation(bench, model, condition, task, mean(vals))

    return values


def _carried(row: Row) -> dict[str, Any]:
    return row.result.metrics if row.result is not None else {}


smell_density = _per_task("smell_density")
unreadability_density = _per_task("unreadability_density")
exception_density = _per_task("exception_density")
exec_time_ms = _per_task("exec_time_ms")
