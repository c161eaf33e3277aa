"""Review statistics against published worked examples: the seed's own Table 4 (C++ First
impression columns), Krippendorff's (2011) binary example, the textbook Cohen's kappa."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from beyondpass.methods.comparison.review.db import SCALE
from beyondpass.methods.comparison.review.results import (
    agreement,
    cohen_kappa,
    paired_tests,
    position_bias,
    table4,
)
from beyondpass.methods.comparison.review.section import (
    latex,
)

# Ságodi, Siket, Ferenc, Table 4, C++, F.Impr.: summed scores of 5 developers per task
SEED_G = [6, 3, -3, 9, 8, 2, -3, 8, 8, 7, 5, 3, 9, 4, 6, 7, 10, 7, 7, -1, 9, 8, 8, 9, 8]
SEED_P = [6, 2, -2, 5, 3, -7, -2, -4, 3, 4, 9, -2, 6, 7, 3, 7, -3, 5, -4, 0, 0, 8, 5, 3, 4]


def five_ratings(total: int) -> tuple[int, ...]:
    """Five ratings on the even scale that sum to ``total``."""
    return next(c for c in combinations_with_replacement(SCALE, 5) if sum(c) == total)


def seed_data() -> dict:
    ratings, choices, items = [], [], {}
    for item, (g, p) in enumerate(zip(SEED_G, SEED_P, strict=True)):
        items[item] = {"benchmark": "psb2", "task_id": f"t{item}", "condition": "", "index": 0}
        for side, total in (("a", g), ("b", p)):
            for reviewer, value in enumerate(five_ratings(total)):
                ratings.append((f"r{reviewer}", item, 0, side, "first_impression", value))
    study = {"pair": ["chatgpt", "copilot"], "min_pass_rate": 0.75}
    return {"study": study, "ratings": ratings, "choices": choices, "items": items}


def test_table4_reproduces_the_seeds_average_and_standard_deviation():
    rates = {("psb2", f"t{i}", "", m): 1.0 for i in range(25) for m in ("chatgpt", "copilot")}
    t = table4(seed_data(), rates)
    assert [r["first_impression_a"] for r in t["rows"]] == SEED_G
    g, p = t["all"]["first_impression_a"], t["all"]["first_impression_b"]
    # published: G 5.8 (3.7), P 2.2 (4.3; the text says 4.27)
    assert (round(g["mean"], 1), round(g["stdev"], 1)) == (5.8, 3.7)
    assert (round(p["mean"], 1), round(p["stdev"], 2)) == (2.2, 4.27)
    assert g["n"] == 25 and g["sum"] == sum(SEED_G)
    # the restricted table keeps only tasks where both reach the minimum pass rate
    rates[("psb2", "t0", "", "copilot")] = 0.5
    rates[("psb2", "t1", "", "chatgpt")] = 0.74
    r = table4(seed_data(), rates)["restricted"]["first_impression_a"]
    assert r["n"] == 23 and r["sum"] == sum(SEED_G) - 6 - 3


def test_krippendorff_alpha_on_krippendorffs_binary_example():
    """Krippendorff (2011), 'Computing Krippendorff's alpha-reliability', example A: two
    observers, ten units, binary values; alpha = 0.095. With two values the ordinal alpha
    equals the nominal one, so 0/1 are entered as -1/+1."""
    mary = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    dave = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    ratings = [
        (name, unit, 0, "a", "readability", 1 if v else -1)
        for name, values in (("mary", mary), ("dave", dave))
        for unit, v in enumerate(values)
    ]
    out = agreement({"ratings": ratings}, seed=1, resamples=200)
    assert out["units"] == 10
    assert out["alpha"] == pytest.approx(0.095, abs=0.0005)
    low, high = out["ci"]
    assert low <= out["alpha"] <= high
    assert agreement({"ratings": ratings}, seed=1, resamples=200)["ci"] == out["ci"]
    # Cohen's kappa of the same pair: p_o = 0.6, p_e = 0.2*0.4 + 0.8*0.6 = 0.56
    assert out["kappa"]["dave/mary"]["kappa"] == pytest.approx((0.6 - 0.56) / 0.44)
    # repeated ratings do not count towards agreement
    extra = [("mary", 0, 1, "a", "readability", 1)]
    assert agreement({"ratings": ratings + extra}, seed=1, resamples=10)["alpha"] == out["alpha"]


def test_cohen_kappa_textbook_example():
    """50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15 -> kappa 0.4."""
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert cohen_kappa(["y"] * 3, ["y"] * 3) is None  # no variation: undefined, not 1


def test_position_bias_and_paired_test():
    choices = [("r", i, 0, "a", int(i < 8), 1.0) for i in range(10)]
    choices.append(("r", 0, 1, "a", 0, 1.0))  # repeats are not counted
    pb = position_bias({"choices": choices})
    assert pb["n"] == 10 and pb["left_share"] == 0.8
    assert pb["p_value"] == pytest.approx(112 / 1024)  # two-sided exact binomial, 8 of 10
    ratings = []
    for i, diff in enumerate([2, 3, 1, 3, 2, 3, 3, 1]):
        ratings += [("r", i, 0, "a", "usability", 2), ("r", i, 0, "b", "usability", 2 - diff)]
    # b's ratings 0 do not exist on the scale, but the test only needs the differences
    tests = paired_tests({"ratings": ratings})
    assert tests["usability"]["n"] == 8 and tests["usability"]["mean_diff"] == 2.25
    # all differences positive: exact Wilcoxon two-sided p = 2 / 2**8
    assert tests["usability"]["p_value"] == pytest.approx(2 / 256)
    assert tests["readability"]["p_value"] is None  # no ratings


def test_latex_table_escapes_task_names():
    data = seed_data()
    data["items"][0]["task_id"] = "a_b & {c}%"
    rates = {
        ("psb2", d["task_id"], "", m): 1.0
        for d in data["items"].values()
        for m in ("chatgpt", "copilot")
    }
    tex = latex({"table4": table4(data, rates)})
    assert r"a\_b \& \{c\}\% & 6 & 6 &" in tex
    assert tex.count(r" \\") == 1 + 25 + 4  # header, items, mean/stdev for both scopes
