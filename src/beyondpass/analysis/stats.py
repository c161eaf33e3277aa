"""Statistical tests for comparing conditions and model versions on the same tasks.

Two conditions (or two versions of a model) answer the *same* tasks, so the comparisons are
paired by task: the Wilcoxon signed-rank test on per-task values (no normality assumption;
per-task pass rates and densities are far from normal), McNemar's exact test when both sides
are one pass/fail verdict per task, and the paired t-test for readers who expect it. The
seed's own t-test compares the per-prompt values of two settings (Welch's unequal-variance
form here). Effect sizes travel with every p-value: the matched-pairs rank-biserial
correlation for Wilcoxon, Cohen's d_z for the paired t-test, the difference in pass rate for
McNemar, Cohen's d for Welch. ``holm`` adjusts a family of p-values (one table) so that
"significant" keeps its meaning when a table holds dozens of comparisons.

Undefined quantities are ``nan`` (never a made-up 0 or 1), except where the answer is exact:
no discordant pairs / all differences zero give p = 1.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np


def _sps() -> Any:
    """``scipy.stats``, imported when a test is first computed: the import costs most of a
    second, and most commands (every ``evaluate``) never test a hypothesis."""
    from scipy import stats

    return stats


NAN = float("nan")
# Below this relative spread, values are equal up to floating-point noise: a t statistic of
# such data is noise divided by noise, so it is treated as zero variance.
_TINY = 1e-12


@dataclass(frozen=True)
class StatResult:
    """One test: which, on how many pairs/values, its p-value and effect size."""

    test: str
    n: int
    statistic: float
    p: float
    effect_name: str
    effect: float

    def as_dict(self) -> dict[str, object]:
        return {
            "test": self.test,
            "n": self.n,
            "statistic": finite_or_none(self.statistic),
            "p": finite_or_none(self.p),
            "effect_name": self.effect_name,
            "effect": finite_or_none(self.effect),
        }


@contextmanager
def _quiet() -> Iterator[None]:
    """scipy warns about 'precision loss' when one side's values are all equal (a variance
    of exactly zero, common for pass rates); the result is still exact, so say nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _pairs(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length ({len(x)} vs {len(y)})")
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


#: Up to this many non-zero differences without ties, Wilcoxon's exact null distribution.
WILCOXON_EXACT_MAX = 50


def wilcoxon_method(nonzero: np.ndarray) -> str:
    """``exact`` for small samples without tied |differences|, else the normal
    approximation with tie correction — never scipy's permutation fallback, which costs
    seconds per test and makes p depend on the scipy version."""
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    return "exact" if len(nonzero) <= WILCOXON_EXACT_MAX and not ties else "asymptotic"


def wilcoxon_paired(a: Sequence[float], b: Sequence[float]) -> StatResult:
    """Wilcoxon signed-rank test of ``b - a`` (zero differences dropped, as Wilcoxon did).

    Effect: matched-pairs rank-biserial correlation r = (R+ - R-) / (R+ + R-) in [-1, 1];
    positive means ``b`` tends to be larger.
    """
    x, y = _pairs(a, b)
    d = y - x
    nonzero = d[d != 0]
    if len(d) == 0:
        return StatResult("wilcoxon", 0, NAN, NAN, "rank-biserial r", NAN)
    if len(nonzero) == 0:
        return StatResult("wilcoxon", len(d), 0.0, 1.0, "rank-biserial r", 0.0)
    ranks = _sps().rankdata(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    r_minus = float(ranks[nonzero < 0].sum())
    effect = (r_plus - r_minus) / (r_plus + r_minus)
    with _quiet():
        res = _sps().wilcoxon(
            nonzero, zero_method="wilcox", alternative="two-sided", method=wilcoxon_method(nonzero)
        )
    return StatResult(
        "wilcoxon", len(d), float(res.statistic), float(res.pvalue), "rank-biserial r", effect
    )


def paired_t(a: Sequence[float], b: Sequence[float]) -> StatResult:
    """Paired t-test of ``b - a``; effect Cohen's d_z = mean(d) / sd(d)."""
    x, y = _pairs(a, b)
    d = y - x
    n = len(d)
    if n < 2:
        return StatResult("paired t", n, NAN, NAN, "Cohen's d_z", NAN)
    sd = float(np.std(d, ddof=1))
    mean = float(np.mean(d))
    if sd <= _TINY * max(1.0, abs(mean)):
        # every pair moved by the same amount: no doubt about the sign, no finite t
        return StatResult("paired t", n, NAN, 1.0 if mean == 0 else 0.0, "Cohen's d_z", NAN)
    with _quiet():
        res = _sps().ttest_rel(y, x)
    return StatResult(
        "paired t", n, float(res.statistic), float(res.pvalue), "Cohen's d_z", mean / sd
    )


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> StatResult:
    """McNemar's exact test for paired pass/fail verdicts (binomial on discordant pairs).

    Effect: difference in pass rate, ``mean(b) - mean(a)``.
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length ({len(a)} vs {len(b)})")
    n = len(a)
    if n == 0:
        return StatResult("mcnemar exact", 0, NAN, NAN, "Δ pass rate", NAN)
    lost = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    gained = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    effect = (gained - lost) / n
    if lost + gained == 0:
        return StatResult("mcnemar exact", n, 0.0, 1.0, "Δ pass rate", effect)
    p = _sps().binomtest(gained, lost + gained, 0.5).pvalue
    return StatResult("mcnemar exact", n, float(min(lost, gained)), float(p), "Δ pass rate", effect)


def welch_t(a: Sequence[float], b: Sequence[float]) -> StatResult:
    """The seed's t-test on two sets of per-prompt values (Welch's form); effect Cohen's d."""
    x = np.asarray([v for v in a if math.isfinite(v)], dtype=float)
    y = np.asarray([v for v in b if math.isfinite(v)], dtype=float)
    n = len(x) + len(y)
    if len(x) < 2 or len(y) < 2:
        return StatResult("welch t", n, NAN, NAN, "Cohen's d", NAN)
    pooled = math.sqrt(
        ((len(x) - 1) * np.var(x, ddof=1) + (len(y) - 1) * np.var(y, ddof=1)) / (n - 2)
    )
    diff = float(np.mean(y) - np.mean(x))
    if pooled <= _TINY * max(1.0, abs(float(np.mean(x))), abs(float(np.mean(y)))):
        return StatResult("welch t", n, NAN, 1.0 if diff == 0 else 0.0, "Cohen's d", NAN)
    with _quiet():
        res = _sps().ttest_ind(y, x, equal_var=False)
    return StatResult(
        "welch t", n, float(res.statistic), float(res.pvalue), "Cohen's d", diff / pooled
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values; ``nan`` entries stay ``nan`` and do not count."""
    indexed = [(p, i) for i, p in enumerate(pvalues) if math.isfinite(p)]
    m = len(indexed)
    out = [NAN] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(indexed)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


#: Resamples of every bootstrap interval in reports and tables.
BOOTSTRAP_RESAMPLES = 2000


@lru_cache(maxsize=16)
def _draw_indices(seed: int, resamples: int, n_tasks: int) -> np.ndarray:
    """Which task each resample draws at each position (resamples x tasks): the one seeded
    draw behind every bootstrap here, so the same seed and size always give the same draws
    and every cell of a table uses common random numbers."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n_tasks, size=(resamples, n_tasks))
    idx.setflags(write=False)
    return idx


@lru_cache(maxsize=16)
def _draw_counts(seed: int, resamples: int, n_tasks: int) -> np.ndarray:
    """How often each task is drawn in each resample (resamples x tasks)."""
    idx = _draw_indices(seed, resamples, n_tasks)
    counts = np.zeros((resamples, n_tasks))
    np.add.at(counts, (np.arange(resamples)[:, None], idx), 1.0)
    counts.setflags(write=False)
    return counts


def _percentile_interval(estimates: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1 - level) / 2
    return (float(np.quantile(estimates, alpha)), float(np.quantile(estimates, 1 - alpha)))


def bootstrap_ci(
    values: Sequence[float],
    *,
    seed: int = 0,
    level: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of per-task values (e.g. pass@1 rates): the
    one-unit case of :func:`bootstrap_avg_ci`, with the same draws. The mean of each
    resample is taken over its drawn values directly (not through draw counts), which keeps
    the intervals reports have always printed bit for bit."""
    if not len(values):
        return (NAN, NAN)
    data = np.asarray(values, dtype=float)
    idx = _draw_indices(seed, resamples, len(data))
    return _percentile_interval(data[idx].mean(axis=1), level)


def bootstrap_avg_ci(
    matrix: np.ndarray,
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI of AVG = mean over units (rows) of each unit's mean over
    tasks (columns), resampling tasks with replacement (the same draw for every unit, since
    the units answer the same tasks). ``nan`` marks a task without a value for a unit.

    Each resample is a vector of draw counts per task, so the unit means of all resamples
    are two matrix products instead of a units x resamples x tasks array.
    """
    data = np.asarray(matrix, dtype=float)
    if data.ndim != 2 or data.shape[1] == 0 or not np.isfinite(data).any():
        return (NAN, NAN)
    counts = _draw_counts(seed, resamples, data.shape[1])
    valid = np.isfinite(data)
    filled = np.where(valid, data, 0.0)
    sums = filled @ counts.T  # units x resamples
    drawn = valid.astype(float) @ counts.T
    with np.errstate(invalid="ignore", divide="ignore"):
        unit_means = sums / drawn  # nan where a unit drew no valued task
    has = np.isfinite(unit_means)
    with np.errstate(invalid="ignore", divide="ignore"):
        avgs = np.where(has, unit_means, 0.0).sum(axis=0) / has.sum(axis=0)
    avgs = avgs[np.isfinite(avgs)]
    if len(avgs) == 0:
        return (NAN, NAN)
    return _percentile_interval(avgs, level)


def weighted_bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    weights: Sequence[float] | np.ndarray,
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the weighted mean of per-unit values, resampling units with
    replacement (the same draws as :func:`bootstrap_ci` for the same seed and size): a pooled
    rate's CI when each unit's value is its own rate and its weight its denominator."""
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    if not len(v) or w.sum() <= 0:
        return (NAN, NAN)
    counts = _draw_counts(seed, resamples, len(v))
    drawn = counts @ w
    with np.errstate(invalid="ignore", divide="ignore"):
        estimates = (counts @ (w * v)) / drawn
    estimates = estimates[np.isfinite(estimates)]
    if len(estimates) == 0:
        return (NAN, NAN)
    return _percentile_interval(estimates, level)


def bootstrap_delta_ci(
    base: np.ndarray,
    base_weights: np.ndarray,
    other: np.ndarray,
    other_weights: np.ndarray,
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``other``'s weighted mean minus ``base``'s, resampling the
    units both are defined over (one draw for both sides: a paired bootstrap). ``nan`` marks
    a unit one side has no value for (it then weighs nothing on that side)."""
    a, b = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    wa = np.where(np.isfinite(a), np.asarray(base_weights, dtype=float), 0.0)
    wb = np.where(np.isfinite(b), np.asarray(other_weights, dtype=float), 0.0)
    if not len(a) or wa.sum() <= 0 or wb.sum() <= 0:
        return (NAN, NAN)
    counts = _draw_counts(seed, resamples, len(a))
    with np.errstate(invalid="ignore", divide="ignore"):
        ea = (counts @ (wa * np.nan_to_num(a))) / (counts @ wa)
        eb = (counts @ (wb * np.nan_to_num(b))) / (counts @ wb)
    deltas = (eb - ea)[np.isfinite(eb - ea)]
    if len(deltas) == 0:
        return (NAN, NAN)
    return _percentile_interval(deltas, level)


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "bootstrap_delta_ci",
    "StatResult",
    "bootstrap_ci",
    "bootstrap_avg_ci",
    "finite_or_none",
    "holm",
    "mcnemar_exact",
    "paired_t",
    "weighted_bootstrap_ci",
    "welch_t",
    "wilcoxon_paired",
]
