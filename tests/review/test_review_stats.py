"""Review statistics against published worked examples: the seed's own Table 4 (C++ First
impression columns), Krippendorff's (2011) binary example, the textbook Cohen's kappa, the
Bradley-Terry worked example of the Wikipedia article; and time per item without breaks."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest

from beyondpass.review import db
from beyondpass.review.db import SCALE
from beyondpass.review.ranking import bradley_terry
from beyondpass.review.results import (
    agreement,
    cohen_kappa,
    paired_tests,
    pass_rates,
    position_bias,
    table4,
)
from beyondpass.review.section import (
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
        items[item] = {
            "benchmark": "psb2",
            "task_id": f"t{item}",
            "condition": "",
            "index": 0,
            "pair": ("chatgpt", "copilot"),
        }
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
    tex = latex({"pairs": [{"pair": ["chatgpt", "copilot"], "table4": table4(data, rates)}]})
    assert r"a\_b \& \{c\}\% & 6 & 6 &" in tex
    assert tex.count(r" \\") == 1 + 25 + 4  # header, items, mean/stdev for both scopes


# Wikipedia, "Bradley–Terry model", worked example: four teams, 22 games; wins[i][j] is the
# number of times team i beat team j. The article's result, normalised to geometric mean 1:
# p = (0.640, 1.043, 0.660, 2.270).
WIKI_WINS = [[0, 2, 0, 1], [3, 0, 5, 0], [0, 3, 0, 1], [4, 0, 3, 0]]
WIKI_P = [0.640, 1.043, 0.660, 2.270]


def wiki_choices() -> list[tuple[str, str, int]]:
    teams = "ABCD"
    out, item = [], 0
    for i, row in enumerate(WIKI_WINS):
        for j, n in enumerate(row):
            for _ in range(n):
                out.append((teams[i], teams[j], item))
                item += 1
    return out


def test_bradley_terry_reproduces_the_worked_example():
    ranking = bradley_terry(wiki_choices(), seed=0, resamples=200)
    assert ranking["estimable"] and ranking["comparisons"] == 22
    got = {m["model"]: m for m in ranking["models"]}
    for team, p in zip("ABCD", WIKI_P, strict=True):
        assert got[team]["strength"] == pytest.approx(p, abs=5e-4)
    assert [m["model"] for m in ranking["models"]] == ["D", "B", "C", "A"]
    assert (got["D"]["wins"], got["D"]["comparisons"]) == (7, 9)  # 4+0+3 won, 1+0+1 lost
    for m in ranking["models"]:  # the bootstrap interval brackets the estimate
        assert m["ci"][0] <= m["strength"] <= m["ci"][1]
    assert 0 < ranking["resamples_used"] <= 200


def test_bradley_terry_without_resamples_has_strengths_and_no_interval():
    ranking = bradley_terry(wiki_choices(), seed=0, resamples=0)
    assert ranking["estimable"] and ranking["resamples_used"] == 0
    got = {m["model"]: m for m in ranking["models"]}
    assert got["D"]["strength"] == pytest.approx(WIKI_P[3], abs=5e-4)
    assert all(m["ci"] is None for m in ranking["models"])


def test_bradley_terry_recovers_known_strengths_from_simulated_choices():
    """Choices drawn (seeded) from known strengths 4 : 2 : 1: the fit recovers the order and,
    with 3000 comparisons, the ratios to within sampling error."""
    rng = random.Random(7)
    true = {"x": 4.0, "y": 2.0, "z": 1.0}
    choices = []
    for item in range(3000):
        a, b = rng.sample(sorted(true), 2)
        win = rng.random() < true[a] / (true[a] + true[b])
        choices.append((a, b, item) if win else (b, a, item))
    # only the point estimate is asserted here (the bootstrap interval: the test above); each
    # resample is a full fit of 3000 comparisons, so a few suffice to run that path
    ranking = bradley_terry(choices, seed=1, resamples=10)
    got = {m["model"]: m["strength"] for m in ranking["models"]}
    assert [m["model"] for m in ranking["models"]] == ["x", "y", "z"]
    assert got["x"] / got["y"] == pytest.approx(2.0, rel=0.15)
    assert got["y"] / got["z"] == pytest.approx(2.0, rel=0.15)


def test_bradley_terry_says_when_strengths_are_not_finite():
    # c never wins: its maximum-likelihood strength is 0, so no ranking is printed
    choices = [("a", "b", 0), ("b", "a", 1), ("a", "c", 2), ("b", "c", 3)]
    ranking = bradley_terry(choices)
    assert ranking["estimable"] is False and "strongly connected" in ranking["reason"]
    assert ranking["models"] == []


def test_active_time_caps_breaks_between_actions():
    cap = db.IDLE_CAP_S
    # shown at 0, answers at 10 and 25, a long break, submitted at 25 + 3600 + 5
    times = [0.0, 10.0, 25.0, 25.0 + 3605.0]
    assert db.active_seconds(times) == 25.0 + cap
    assert db.active_seconds(list(reversed(times))) == 25.0 + cap  # order does not matter
    assert db.active_seconds([5.0]) == 0.0


def test_pass_rates_count_only_samples_whose_verdict_is_a_test_run(tmp_path):
    """Answers scored without tests (``passed`` NULL in the store, as a NoFunEval edit of a
    row without tests) are neither passes nor fails: a task with only such answers has no
    pass rate, and beside checked ones they do not lower it."""
    from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key

    def put(store, task: str, index: int, status: str, passed: bool | None) -> None:
        key = sample_key("b", task, "m", "c", index)
        store.put_sample(SampleRecord(key=key, benchmark="b", task_id=task, model="m",
                                      condition="c", sample_index=index, raw="", code="",
                                      program="", extraction={}, transcript=[],
                                      generation={}))  # fmt: skip
        store.put_result(ResultRecord(key, status, passed))

    with RunStore(tmp_path) as store:
        put(store, "T/1", 0, "passed", True)
        put(store, "T/1", 1, "failed", False)
        put(store, "T/1", 2, "scored", None)
        put(store, "T/2", 0, "scored", None)
    rates = pass_rates(tmp_path)
    assert rates == {("b", "T/1", "c", "m"): 0.5}
