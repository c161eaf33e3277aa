"""Headline metrics: each method's few numbers, as cells with a 95% CI, for any run.

A method declares its headline metrics (:class:`beyondpass.registry.HeadlineSpec`) with a
function that reads a run's rows into :class:`Observation`: one value per pairing unit
(task, question, row) of a benchmark x model x group, and a weight. A cell's estimate is
the weighted mean of its units' values, so a method's own figure comes out exactly: a mean
over tasks (weight 1 each) or a pooled rate (RobustAPI's misuse rate: each question's share
of misusing answers among its compilable ones, weighted by how many compiled). Its 95% CI is
a percentile bootstrap over units (the run's seed, common random numbers across cells), and
two runs are compared unit by unit (:func:`beyondpass.analysis.cells.compare_cells`).

The profile report shows these cells side by side for every model of a run; ``compare``
pairs them across two runs for its table and its gate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from beyondpass.analysis.cells import CellStats
from beyondpass.analysis.metrics import UNITS
from beyondpass.analysis.ordering import natural_key
from beyondpass.analysis.stats import BOOTSTRAP_RESAMPLES, weighted_bootstrap_ci
from beyondpass.evaluators.base import counts_for_pass
from beyondpass.store.run_store import Row

#: the group of a cell that pools every prompt condition
ALL_CONDITIONS = "all"


@dataclass(frozen=True)
class Observation:
    """One pairing unit's value in one benchmark x model x group."""

    benchmark: str
    model: str
    group: str  # a prompt condition, or ALL_CONDITIONS
    unit: str  # the task, question or row id two runs are paired on
    value: float
    weight: float = 1.0


@dataclass(frozen=True)
class HeadlineCell:
    """One headline metric of one benchmark x model x group."""

    method: str
    metric: str
    benchmark: str
    model: str
    group: str
    stats: CellStats  # avg and ci in display scale; task_values: the units' values


def headline_cells(
    rows: Sequence[Row], meta: Mapping[str, Any], *, seed: int = 0
) -> list[HeadlineCell]:
    """Every registered headline metric's cells in a run (methods in registration order)."""
    from beyondpass import registry

    out: list[HeadlineCell] = []
    for spec, method in registry.specs("headlines"):
        values = registry.resolve(spec.values, method, needs_extra=False)
        scale = UNITS[spec.unit][0]
        groups: dict[tuple[str, str, str], list[Observation]] = defaultdict(list)
        for obs in values(rows, meta):
            groups[(obs.benchmark, obs.model, obs.group)].append(obs)
        for (bench, model, group), observations in sorted(groups.items()):
            stats = cell_of(spec.metric, observations, scale, seed=seed)
            if stats is not None:
                out.append(HeadlineCell(method.name, spec.metric, bench, model, group, stats))
    return out


def run_readings(meta: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Per method, the options this run was made with that change its headline numbers
    (``Method.headline_reading``); methods whose numbers have one reading are left out."""
    from beyondpass import registry

    out: dict[str, dict[str, str]] = {}
    for ref, m in registry.specs("headline_reading"):
        found = registry.resolve(ref, m, needs_extra=False)(meta)
        if found:
            out[m.name] = {str(k): str(v) for k, v in found.items()}
    return out


def reading_text(reading: Mapping[str, str]) -> str:
    """``semantics=original``: how messages and tables name a reading."""
    return ", ".join(f"{k}={v}" for k, v in sorted(reading.items()))


def cell_of(
    metric: str, observations: Iterable[Observation], scale: float, *, seed: int = 0
) -> CellStats | None:
    """The weighted estimate, its bootstrap CI and the per-unit values of one cell."""
    sums: dict[str, float] = defaultdict(float)
    weights: dict[str, float] = defaultdict(float)
    for obs in observations:
        if obs.weight > 0 and math.isfinite(obs.value):
            sums[obs.unit] += obs.value * obs.weight
            weights[obs.unit] += obs.weight
    units = sorted(sums, key=natural_key)
    if not units:
        return None
    w = np.array([weights[u] for u in units])
    v = np.array([sums[u] / weights[u] for u in units]) * scale
    avg = float((w * v).sum() / w.sum())
    lo, hi = weighted_bootstrap_ci(v, w, seed=seed, resamples=BOOTSTRAP_RESAMPLES)
    ci = (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None
    task_values = {u: float(x) for u, x in zip(units, v, strict=True)}
    weighed = {u: float(x) for u, x in zip(units, w, strict=True)}
    return CellStats(metric, avg, None, ci, [avg], task_values, None, len(units), weighed)


def pass_observations(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    """Pass@1 (core's headline): each task's share of passing samples, every benchmark and
    prompt condition; the mean over tasks is the pass@1 of the run's results table. Only
    where tests ran: a sample whose verdict has no pass/fail (an edit only scored, a misuse
    check, a classification label) is left out, so no benchmark gets a pass@1 that no test
    stands behind; those methods' own headline metrics say what their verdicts mean."""
    per_task: dict[tuple[str, str, str, str], list[bool]] = defaultdict(list)
    for row in rows:
        if counts_for_pass(row.result):
            s = row.sample
            per_task[(s.benchmark, s.model, s.condition, s.task_id)].append(row.result.passed)  # type: ignore[union-attr]
    for (bench, model, condition, task), passed in per_task.items():
        yield Observation(bench, model, condition, task, sum(passed) / len(passed))


def index_cells(
    cells: Iterable[HeadlineCell],
) -> dict[tuple[str, str, str, str, str], HeadlineCell]:
    """Cells by (method, metric, benchmark, group, model)."""
    return {(c.method, c.metric, c.benchmark, c.group, c.model): c for c in cells}


def arm_of(meta: Mapping[str, Any], benchmark: str, group: str) -> str:
    """The arm of a run that asked ``group`` of ``benchmark`` ("" in a run without arms)."""
    arms = meta.get("arms")
    if not isinstance(arms, dict):
        return ""
    holding = [
        name
        for name, arm in arms.items()
        if isinstance(arm, dict) and benchmark in arm.get("benchmarks", ())
    ]
    for name in holding:
        if group in arms[name].get("conditions", ()):
            return str(name)
    return str(holding[0]) if holding else ""


__all__ = [
    "ALL_CONDITIONS",
    "HeadlineCell",
    "Observation",
    "arm_of",
    "cell_of",
    "headline_cells",
    "index_cells",
    "pass_observations",
    "reading_text",
    "run_readings",
]
