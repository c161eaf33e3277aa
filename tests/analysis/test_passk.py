"""pass@k: the unbiased estimator against its combinatorial definition."""

from __future__ import annotations

import itertools
import math

import pytest

from beyondpass.analysis.passk import mean_pass_at_k, pass_at_k
from beyondpass.analysis.stats import bootstrap_ci


@pytest.mark.parametrize(
    "n,c,k", [(5, 0, 1), (5, 2, 1), (5, 2, 2), (6, 3, 4), (10, 1, 5), (4, 4, 3)]
)
def test_matches_enumeration_of_all_k_subsets(n, c, k):
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    expected = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_matches_closed_form_for_large_n():
    n, c, k = 200, 37, 10
    assert pass_at_k(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k))


def test_pass_at_1_is_the_pass_fraction():
    assert pass_at_k(20, 7, 1) == pytest.approx(7 / 20)
    assert mean_pass_at_k([(1, 1), (1, 0), (2, 1)], 1) == pytest.approx((1 + 0 + 0.5) / 3)


@pytest.mark.parametrize("n,c,k", [(3, 4, 1), (3, 1, 4), (3, 1, 0)])
def test_rejects_impossible_inputs(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    values = [1.0] * 30 + [0.0] * 10
    lo, hi = bootstrap_ci(values, seed=3)
    assert lo < 0.75 < hi
    assert bootstrap_ci(values, seed=3) == (lo, hi)
    assert bootstrap_ci([1.0] * 5) == (1.0, 1.0)
