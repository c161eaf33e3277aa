"""Headline metrics: a cell is the method's own estimate, its CI resamples the pairing
units, and every registered headline metric is documented for users."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from beyondpass import registry
from beyondpass.analysis.headline import Observation, cell_of
from beyondpass.analysis.stats import bootstrap_ci, weighted_bootstrap_ci

DOCS = Path(__file__).resolve().parents[2] / "docs" / "profile.md"


def test_a_pooled_rate_is_the_weighted_mean_of_its_units() -> None:
    # question q1: 3 of 4 compilable answers misuse; q2: 0 of 1; q3: 1 of 5
    obs = [
        Observation("b", "m", "c", "q1", 3 / 4, 4),
        Observation("b", "m", "c", "q2", 0.0, 1),
        Observation("b", "m", "c", "q3", 1 / 5, 5),
    ]
    stats = cell_of("misuse_rate", obs, 100.0, seed=0)
    assert stats is not None
    assert stats.avg == pytest.approx(100 * 4 / 10)  # misuses among all compilable answers
    assert stats.task_values == pytest.approx({"q1": 75.0, "q2": 0.0, "q3": 20.0})
    lo, hi = stats.ci
    assert lo <= stats.avg <= hi


def test_a_unit_seen_twice_is_one_unit_and_no_weight_is_no_value() -> None:
    obs = [
        Observation("b", "m", "c", "t1", 1.0),
        Observation("b", "m", "c", "t1", 0.0),
        Observation("b", "m", "c", "t2", 1.0, 0.0),
        Observation("b", "m", "c", "t3", float("nan")),
    ]
    stats = cell_of("pass@1", obs, 100.0)
    assert stats is not None and stats.task_values == {"t1": 50.0} and stats.n_tasks == 1
    assert cell_of("pass@1", [Observation("b", "m", "c", "t", 1.0, 0.0)], 1.0) is None


def test_equal_weights_give_the_same_interval_as_the_unweighted_bootstrap() -> None:
    values = np.random.default_rng(7).random(40)
    assert weighted_bootstrap_ci(values, np.ones(40), seed=3) == bootstrap_ci(list(values), seed=3)
    # weights change the estimate each resample takes, not the draws
    heavy = weighted_bootstrap_ci(values, np.r_[np.full(20, 10.0), np.ones(20)], seed=3)
    assert heavy != bootstrap_ci(list(values), seed=3)


def test_every_headline_metric_is_documented_with_its_direction_and_unit() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = {
        m[1]: (m[0], m[2], m[3], m[4])
        for m in re.findall(
            r"^\| (\w+) \| `([^`]+)` \| (higher|lower) \| (\w+)[^|]*\| (\w+) \|", text, re.M
        )
    }
    declared = {
        h.metric: (m.name, h.direction, h.unit, h.pairs_on) for h, m in registry.specs("headlines")
    }
    assert rows == declared


def test_the_change_has_a_paired_interval_that_holds_it() -> None:
    from beyondpass.analysis.cells import compare_cells, delta_ci

    rng = np.random.default_rng(11)
    values, weights = rng.random(60), rng.integers(1, 5, 60)
    base = [Observation("b", "m", "c", f"q{i}", float(values[i]), float(weights[i]))
            for i in range(60)]  # fmt: skip
    worse = [Observation(o.benchmark, o.model, o.group, o.unit, o.value * 0.5, o.weight)
             for o in base]  # fmt: skip
    a, b = cell_of("misuse_rate", base, 100.0), cell_of("misuse_rate", worse, 100.0)
    assert a is not None and b is not None
    same = delta_ci(compare_cells(a, a))
    assert same == (0.0, 0.0)  # one draw for both sides: no change, no spread
    c = compare_cells(a, b)
    lo, hi = delta_ci(c)
    assert lo < c.delta < hi < 0
