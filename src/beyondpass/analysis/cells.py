"""Cell statistics and paired comparisons: what every analysis table and ``compare`` stand on.

A *cell* is one metric of one (benchmark, model, group): a :class:`Matrix` of per (unit,
task) values, where the units are what its STDEV is taken across (prompts, repeated runs).
Its AVG is the mean of the unit values, STDEV their sample standard deviation, and the 95%
CI a percentile bootstrap over tasks. Two cells are compared task by task
(:func:`compare_cells`): Wilcoxon signed-rank on per-task values, McNemar's exact test when
both sides are one pass/fail verdict per task, with the paired and Welch t-tests alongside.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from beyondpass.analysis.metrics import PASS, metric_def
from beyondpass.analysis.ordering import natural_key
from beyondpass.analysis.stats import (
    BOOTSTRAP_RESAMPLES,
    NAN,
    StatResult,
    bootstrap_avg_ci,
    bootstrap_delta_ci,
    holm,
    mcnemar_exact,
    paired_t,
    welch_t,
    wilcoxon_paired,
)

DEFAULT_ALPHA = 0.05


@dataclass
class Matrix:
    """Per (unit, task) values of one metric; ``nan`` where a unit has no value for a task."""

    units: list[str]
    tasks: list[str]
    values: np.ndarray
    verdicts: dict[str, bool] | None = None  # one unit, one sample per task: the verdicts


@dataclass
class CellStats:
    """AVG, STDEV and CI of one (benchmark, model, group, metric), in display scale."""

    metric: str
    avg: float | None
    sd: float | None
    ci: tuple[float, float] | None
    unit_values: list[float]
    task_values: dict[str, float]
    verdicts: dict[str, bool] | None
    n_tasks: int
    #: each task's (unit's) weight in ``avg`` when it is a weighted mean (headline metrics)
    weights: dict[str, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "avg": self.avg,
            "sd": self.sd,
            "ci95": list(self.ci) if self.ci else None,
            "units": len(self.unit_values),
            "unit_values": self.unit_values,
            "tasks": self.n_tasks,
        }


def cell_stats(m: Matrix, metric: str, *, seed: int = 0) -> CellStats:
    scale = metric_def(metric).scale
    data = m.values * scale
    unit_values = []
    for row in data:
        finite = row[np.isfinite(row)]
        if len(finite):
            unit_values.append(float(finite.mean()))
    task_values: dict[str, float] = {}
    for j, t in enumerate(m.tasks):
        col = data[:, j]
        finite = col[np.isfinite(col)]
        if len(finite):
            task_values[t] = float(finite.mean())
    avg = statistics.fmean(unit_values) if unit_values else None
    sd = statistics.stdev(unit_values) if len(unit_values) >= 2 else None
    ci = None
    if unit_values:
        lo, hi = bootstrap_avg_ci(data, seed=seed, resamples=BOOTSTRAP_RESAMPLES)
        ci = (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None
    return CellStats(metric, avg, sd, ci, unit_values, task_values, m.verdicts, len(task_values))


@dataclass
class Comparison:
    """``other`` against ``base`` on the tasks both have, with every test."""

    metric: str
    base: CellStats
    other: CellStats
    delta: float | None
    delta_pct: float | None
    primary: StatResult
    t_paired: StatResult
    t_seed: StatResult
    p_adj: float = NAN
    alpha: float = DEFAULT_ALPHA

    @property
    def significant(self) -> bool:
        return math.isfinite(self.p_adj) and self.p_adj < self.alpha

    @property
    def direction(self) -> str:
        """``improved``, ``regressed`` or ``unchanged`` (by the metric's better direction)."""
        if self.delta is None or self.delta == 0:
            return "unchanged"
        better = (self.delta > 0) == metric_def(self.metric).higher_is_better
        return "improved" if better else "regressed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "base": self.base.as_dict(),
            "other": self.other.as_dict(),
            "delta": self.delta,
            "delta_pct": self.delta_pct,
            "direction": self.direction,
            "primary": self.primary.as_dict(),
            "paired_t": self.t_paired.as_dict(),
            "seed_t": self.t_seed.as_dict(),
            "p_holm": self.p_adj if math.isfinite(self.p_adj) else None,
            "significant": self.significant,
        }


def pct_change(base: float | None, other: float | None) -> float | None:
    if base is None or other is None or base == 0:
        return None
    return (other - base) / abs(base) * 100.0


def compare_cells(base: CellStats, other: CellStats, *, alpha: float = DEFAULT_ALPHA) -> Comparison:
    common = sorted(set(base.task_values) & set(other.task_values), key=natural_key)
    a = [base.task_values[t] for t in common]
    b = [other.task_values[t] for t in common]
    if (
        base.metric == PASS
        and base.verdicts is not None
        and other.verdicts is not None
        and all(t in base.verdicts and t in other.verdicts for t in common)
    ):
        primary = mcnemar_exact(
            [base.verdicts[t] for t in common], [other.verdicts[t] for t in common]
        )
    else:
        primary = wilcoxon_paired(a, b)
    delta = None if base.avg is None or other.avg is None else other.avg - base.avg
    return Comparison(
        metric=base.metric,
        base=base,
        other=other,
        delta=delta,
        delta_pct=pct_change(base.avg, other.avg),
        primary=primary,
        t_paired=paired_t(a, b),
        t_seed=welch_t(base.unit_values, other.unit_values),
        alpha=alpha,
    )


def delta_ci(c: Comparison, *, seed: int = 0) -> tuple[float, float] | None:
    """95% CI of ``c``'s change: a paired percentile bootstrap over the tasks (pairing units)
    of either side, each side's estimate their (weighted) mean in every resample."""
    units = sorted(set(c.base.task_values) | set(c.other.task_values), key=natural_key)
    if not units:
        return None

    def side(cell: CellStats) -> tuple[np.ndarray, np.ndarray]:
        values = np.array([cell.task_values.get(u, np.nan) for u in units])
        weights = np.array([(cell.weights or {}).get(u, 1.0) for u in units])
        return values, weights

    lo, hi = bootstrap_delta_ci(*side(c.base), *side(c.other), seed=seed)
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None


def adjust(comparisons: Sequence[Comparison]) -> None:
    """Holm-adjust one family of comparisons in place."""
    for c, p in zip(comparisons, holm([c.primary.p for c in comparisons]), strict=True):
        c.p_adj = p


def pooled_compare(
    pairs: Sequence[tuple[CellStats, CellStats]], metric: str, *, alpha: float = DEFAULT_ALPHA
) -> Comparison:
    """One comparison pooled over several models: (model, task) pairs for the paired tests,
    every model's unit values for the seed's t-test, model-averaged AVG and STDEV."""
    a: list[float] = []
    b: list[float] = []
    for base, other in pairs:
        for t in sorted(set(base.task_values) & set(other.task_values), key=natural_key):
            a.append(base.task_values[t])
            b.append(other.task_values[t])

    def merged(cells: list[CellStats]) -> CellStats:
        avgs = [c.avg for c in cells if c.avg is not None]
        sds = [c.sd for c in cells if c.sd is not None]
        return CellStats(
            metric,
            statistics.fmean(avgs) if avgs else None,
            statistics.fmean(sds) if sds else None,
            None,
            [v for c in cells for v in c.unit_values],
            {},
            None,
            sum(c.n_tasks for c in cells),
        )

    base = merged([p[0] for p in pairs])
    other = merged([p[1] for p in pairs])
    delta = None if base.avg is None or other.avg is None else other.avg - base.avg
    return Comparison(
        metric=metric,
        base=base,
        other=other,
        delta=delta,
        delta_pct=pct_change(base.avg, other.avg),
        primary=wilcoxon_paired(a, b),
        t_paired=paired_t(a, b),
        t_seed=welch_t(base.unit_values, other.unit_values),
        alpha=alpha,
    )


__all__ = [
    "DEFAULT_ALPHA",
    "CellStats",
    "Comparison",
    "Matrix",
    "adjust",
    "cell_stats",
    "compare_cells",
    "delta_ci",
    "pct_change",
    "pooled_compare",
]
