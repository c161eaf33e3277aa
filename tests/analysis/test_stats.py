"""The paired tests, effect sizes, Holm and bootstrap CIs of ``analysis.stats`` (behind the
report's CIs and the methods' tables), against hand computations and scipy."""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pytest
from scipy import stats as sps

from beyondpass.analysis.stats import (
    bootstrap_avg_ci,
    bootstrap_ci,
    holm,
    mcnemar_exact,
    paired_t,
    welch_t,
    wilcoxon_paired,
)


def test_wilcoxon_and_rank_biserial_by_hand():
    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    b = [1.0, 2.5, 4.0, 6.5, 3.0, 9.5, 10.5]  # diffs 0, .5, 1, 2.5, -2, 3.5, 3.5
    r = wilcoxon_paired(a, b)
    nonzero = [0.5, 1.0, 2.5, -2.0, 3.5, 3.5]
    # |d| ranks: .5->1, 1->2, 2->3, 2.5->4, 3.5->5.5 (tied): R- = 3, R+ = 18
    assert r.effect == pytest.approx((18 - 3) / 21)
    assert r.n == 7 and r.test == "wilcoxon"
    assert r.p == pytest.approx(sps.wilcoxon(nonzero, method="asymptotic").pvalue)
    untied = wilcoxon_paired([0, 0, 0, 0], [1, 2, 3, -4])
    assert untied.p == pytest.approx(sps.wilcoxon([1, 2, 3, -4], method="exact").pvalue)
    assert wilcoxon_paired([1, 2], [1, 2]).p == 1.0
    assert math.isnan(wilcoxon_paired([], []).p)
    assert wilcoxon_paired([1, math.nan], [2, 5]).n == 1  # pairs with a missing side drop


def test_mcnemar_exact_by_hand():
    old = [True] * 10 + [True] + [False] * 6 + [False] * 3
    new = [True] * 10 + [False] + [True] * 6 + [False] * 3
    r = mcnemar_exact(old, new)
    # 1 lost, 6 gained: two-sided binomial p = 2 * P(X <= 1 | n=7, 1/2)
    assert r.p == pytest.approx(2 * (comb(7, 0) + comb(7, 1)) / 2**7)
    assert r.effect == pytest.approx((6 - 1) / 20)
    assert mcnemar_exact([True, False], [True, False]).p == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact([True], [])


def test_t_tests_and_effect_sizes():
    a = [3.0, 4.0, 5.0, 6.0]
    b = [3.5, 4.2, 6.0, 7.5]
    d = np.subtract(b, a)
    r = paired_t(a, b)
    assert r.p == pytest.approx(sps.ttest_rel(b, a).pvalue)
    assert r.effect == pytest.approx(d.mean() / d.std(ddof=1))
    same_shift = paired_t([1, 2, 3], [2, 3, 4])
    assert same_shift.p == 0.0 and math.isnan(same_shift.effect)
    assert paired_t([1, 2], [1, 2]).p == 1.0
    x, y = [70.0, 72.0, 71.0, 69.0], [60.0, 66.0, 64.0, 58.0, 61.0]
    w = welch_t(x, y)
    assert w.p == pytest.approx(sps.ttest_ind(y, x, equal_var=False).pvalue)
    pooled = math.sqrt((3 * np.var(x, ddof=1) + 4 * np.var(y, ddof=1)) / 7)
    assert w.effect == pytest.approx((np.mean(y) - np.mean(x)) / pooled)
    assert math.isnan(welch_t([1.0], [2.0, 3.0]).p)  # one prompt has no spread to test


def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx(
        [0.03, 0.06, 0.06, math.nan], nan_ok=True
    )
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([]) == []


def test_bootstrap_matches_plain_resampling():
    rng = np.random.default_rng(3)
    data = rng.uniform(0, 1, size=(3, 12))
    data[1, 4] = math.nan
    lo, hi = bootstrap_avg_ci(data, seed=5, resamples=500)
    draws = np.random.default_rng(5).integers(0, 12, size=(500, 12))
    avgs = []
    for idx in draws:
        means = [np.mean([v for v in row[idx] if not math.isnan(v)]) for row in data]
        avgs.append(np.mean(means))
    assert (lo, hi) == pytest.approx((np.quantile(avgs, 0.025), np.quantile(avgs, 0.975)))
    assert bootstrap_avg_ci(data, seed=5, resamples=500) == (lo, hi)
    assert bootstrap_avg_ci(data, seed=6, resamples=500) != (lo, hi)
    assert all(math.isnan(x) for x in bootstrap_avg_ci(np.full((2, 3), math.nan)))


def test_one_bootstrap_for_report_ci_and_table_ci():
    """The report's pass@1 CI (mean of per-task values) is the one-unit case of the tables'
    AVG CI: the same seeded draws, so the two agree up to floating-point summation order."""
    values = list(np.random.default_rng(8).integers(0, 4, size=23) / 3)
    for seed in (0, 1, 42):
        one = bootstrap_ci(values, seed=seed, resamples=700)
        assert one == pytest.approx(bootstrap_avg_ci(np.array([values]), seed=seed, resamples=700))
        draws = np.random.default_rng(seed).integers(0, len(values), size=(700, len(values)))
        means = np.asarray(values)[draws].mean(axis=1)
        assert one == (np.quantile(means, 0.025), np.quantile(means, 0.975))
    assert bootstrap_ci(values, seed=0) != bootstrap_ci(values, seed=1)
    assert all(math.isnan(x) for x in bootstrap_ci([]))
