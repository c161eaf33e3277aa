"""Decrease ratio, robust pass@k and rank stability on small cases computed by hand."""

from __future__ import annotations

import pytest

from beyondpass.methods.obfuseval.analysis import (
    decrease_ratio,
    rank_stability,
    robust_pass_at_k,
)


def test_decrease_ratio() -> None:
    assert decrease_ratio(0.8, 0.6) == pytest.approx(0.25)
    assert decrease_ratio(0.5, 0.5) == 0.0
    assert decrease_ratio(0.0, 0.3) is None


def test_robust_pass_at_k_is_the_worst_case_per_sample_over_variants() -> None:
    outcomes = {
        # sample 0 passes on both variants, sample 1 fails on variant 1: c = 1 of n = 2
        "A": {0: [True, True], 1: [True, False]},
        # every sample fails somewhere: c = 0
        "B": {0: [True, False], 1: [False, True]},
    }
    # pass@1 = c / n per task: (1/2 + 0) / 2
    assert robust_pass_at_k(outcomes, 1) == pytest.approx(0.25)
    # pass@2 with n = 2: 1 when any sample is correct
    assert robust_pass_at_k(outcomes, 2) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="different numbers of samples"):
        robust_pass_at_k({"A": {0: [True], 1: [True, True]}}, 1)


def test_rank_stability_tau_and_bootstrap_interval() -> None:
    tasks = [f"t{i}" for i in range(10)]
    # three models whose pass counts are 9, 5, 1 on the originals
    orig = {m: {t: i < n for i, t in enumerate(tasks)} for m, n in (("x", 9), ("y", 5), ("z", 1))}
    same = {m: {t: i < n for i, t in enumerate(tasks)} for m, n in (("x", 6), ("y", 3), ("z", 0))}
    flipped = {
        m: {t: i < n for i, t in enumerate(tasks)} for m, n in (("x", 0), ("y", 3), ("z", 6))
    }
    kept = rank_stability(orig, same, resamples=200, seed=1)
    assert kept["tau"] == pytest.approx(1.0)
    assert kept["ci_low"] <= 1.0 and kept["ci_high"] == pytest.approx(1.0)
    reversed_ = rank_stability(orig, flipped, resamples=200, seed=1)
    assert reversed_["tau"] == pytest.approx(-1.0)
    assert reversed_["ci_high"] <= 0.0
    assert rank_stability(orig, same, resamples=200, seed=1) == kept  # seeded
    with pytest.raises(ValueError, match="same two or more models"):
        rank_stability({"x": orig["x"]}, {"x": same["x"]})
