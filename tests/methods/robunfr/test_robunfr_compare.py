"""``beyondpass compare``: two runs that differ in known ways, and the CI gate.

The new version of the model (runs written by this test into real run stores):

* on HumanEval, Function-Only loses 15 of 30 tasks and halves its code smell density;
* on MBPP, Function-Only wins the 15 tasks the old version failed;
* nothing else changes (NFR-Integrated answers, every other metric).

So exactly these differences must be named: Pass@1 and smell density on HumanEval
(Function-Only and, through it, all conditions pooled), Pass@1 on MBPP; a trade-off on
HumanEval (smell improves, Pass@1 regresses); Pass@1 inconsistent across the benchmarks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from beyondpass.store.run_store import RunStore
from robunfr_runs import Sample, invoke, write_run

TASKS = [f"T/{i}" for i in range(30)]
BENCHES = ["humaneval", "mbpp"]


def _idx(t: str) -> int:
    return int(t.split("/")[1])


def decide(version: str):
    def run(b: str, m: str, c: str, t: str, i: int) -> Sample:
        k = _idx(t)
        offset = 0.3 if c == "function-only" else 0.1 * int(c[-1])
        smell = round(0.1 + (k % 7) * 0.05 + offset, 4)
        passed = True
        if c == "function-only":
            if b == "mbpp" and version == "old" and k < 15:
                passed = False
            if b == "humaneval" and version == "new" and k < 15:
                passed = False
            if b == "humaneval" and version == "new":
                smell = round(smell / 2, 4)
        metrics = {
            "smell_density": smell,
            "unreadability_density": round(1.0 + (k % 5) * 0.3, 4),
            "exception_density": round((k % 3) * 0.2, 4),
        }
        if passed:
            metrics["exec_time_ms"] = 10.0 + k
        return Sample("passed" if passed else "failed", metrics)

    return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("compare")
    paths = []
    for version, model in (("old", "gpt-x-0613"), ("new", "gpt-x-1106")):
        d = base / version
        write_run(
            d,
            benchmarks=BENCHES,
            models=[model],
            tasks=TASKS,
            decide=decide(version),
            nfrs=("design", "readability"),
            workflows=("integrated",),
            variants=(1, 2, 3),
            function_only_repeats=1,
        )
        paths.append(d)
    return paths[0], paths[1]


EXPECTED_CHANGES = {
    ("humaneval", "overall", "pass@1", "regressed"),
    ("humaneval", "function-only", "pass@1", "regressed"),
    ("humaneval", "overall", "smell_density", "improved"),
    ("humaneval", "function-only", "smell_density", "improved"),
    ("mbpp", "overall", "pass@1", "improved"),
    ("mbpp", "function-only", "pass@1", "improved"),
}


def test_names_exactly_the_known_differences(runs, capsys, tmp_path):
    old, new = runs
    code, out, err = invoke(["compare", old, new, "--json", "--out", tmp_path / "cmp"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["pairs"] == ["gpt-x-0613 vs gpt-x-1106"]
    changes = {(c["benchmark"], c["group"], c["metric"], c["direction"]) for c in data["changes"]}
    assert changes == EXPECTED_CHANGES
    trade = {(t["benchmark"], t["group"]) for t in data["trade_offs"]}
    assert trade == {("humaneval", "overall"), ("humaneval", "function-only")}
    for t in data["trade_offs"]:
        assert t["improved"] == ["smell_density"] and t["regressed"] == ["pass@1"]
    inc = {(i["group"], i["metric"]) for i in data["inconsistencies"]}
    assert inc == {("overall", "pass@1"), ("function-only", "pass@1")}
    for i in data["inconsistencies"]:
        assert i["improved_on"] == ["mbpp"] and i["regressed_on"] == ["humaneval"]
    # the Δ table: every benchmark x group x metric, with the known values
    rows = {(r["benchmark"], r["group"], r["metric"]): r for r in data["comparisons"]}
    assert len(rows) == 2 * 4 * 5
    fo = rows[("humaneval", "function-only", "pass@1")]
    assert (fo["old"], fo["new"], fo["delta_pct"]) == (100.0, 50.0, -50.0)
    assert fo["test"] == "mcnemar exact" and fo["p"] == pytest.approx(2 * 0.5**15)
    overall = rows[("humaneval", "overall", "pass@1")]
    assert overall["new"] == pytest.approx(100 - 100 * 15 / 30 / 7)
    assert overall["test"] == "wilcoxon"
    unchanged = rows[("mbpp", "nfr-integrated/design", "smell_density")]
    assert unchanged["delta"] == 0 and unchanged["p"] == 1.0 and not unchanged["significant"]
    assert data["gate"] == {
        "rules": [],
        "require_significance": True,
        "violations": [],
        "passed": True,
    }
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert "code smell -50.00%" in md and "Pass@1 -50.00%" in md
    assert r"\begin{tabular}" in (tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8")
    html = (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")
    assert html.count('<svg class="plot"') == 2 and "Trade-offs" in html


def test_text_output_names_trade_offs_and_inconsistencies(runs, capsys):
    old, new = runs
    code, out, _ = invoke(["compare", old, new], capsys)
    assert code == 0
    assert "Trade-offs:" in out and "Inconsistent across benchmarks:" in out
    assert "HumanEval · Function-Only: code smell -50.00%" in out
    assert "Function-Only: Pass@1 improves on MBPP but regresses on HumanEval" in out
    assert "Significant changes: 6" in out


@pytest.mark.parametrize(
    ("rule", "exit_code", "breaches"),
    [
        ("pass@1:-2%", 4, {("humaneval", "function-only"), ("humaneval", "overall")}),
        ("pass@1:-10%", 4, {("humaneval", "function-only")}),
        ("pass@1:-60%", 0, set()),
        ("pass@1[benchmark=mbpp]:-2%", 0, set()),
        ("pass@1[group=function-only]:-40pp", 4, {("humaneval", "function-only")}),
        ("pass@1[group=function-only,benchmark=humaneval]:-60pp", 0, set()),
        ("smell_density:+10%", 0, set()),
        ("unreadability_density:+0%", 0, set()),
    ],
)
def test_gate_exit_codes(runs, capsys, rule, exit_code, breaches):
    old, new = runs
    code, out, err = invoke(["compare", old, new, "--fail-on", rule, "--json"], capsys)
    assert code == exit_code, err
    gate = json.loads(out)["gate"]
    assert {(v["benchmark"], v["group"]) for v in gate["violations"]} == breaches
    assert gate["passed"] is (exit_code == 0)


def test_gate_on_the_reverse_update_and_without_significance(runs, capsys):
    old, new = runs
    # going back from new to old doubles Function-Only's smell density on HumanEval (+100%);
    # pooled over the 7 conditions that is a rise of less than 10%, so one breach only
    code, out, _ = invoke(["compare", new, old, "--fail-on", "smell_density:+10%"], capsys)
    assert code == 4
    assert "gate: FAILED (1 breach(es))" in out
    assert "FAIL smell_density:+10%: gpt-x-1106 vs gpt-x-0613 · HumanEval · Function-Only" in out
    # a tiny alpha makes nothing significant; without the significance requirement the
    # rule still fails on the size of the change alone
    args = ["compare", old, new, "--fail-on", "pass@1:-2%", "--alpha", "1e-12"]
    assert invoke(args, capsys)[0] == 0
    assert invoke([*args, "--no-require-significance"], capsys)[0] == 4


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("pass@1", "expected METRIC[SCOPE]:LIMIT with a signed limit"),
        ("pass@1:2%", "expected METRIC[SCOPE]:LIMIT with a signed limit"),
        ("pass@1:+2%", "pass@1 regresses when it falls; write the limit as -2%"),
        ("smell_density:-5%", "regresses when it rises; write the limit as +5%"),
        ("smell_density:-5pp", "'pp' (percentage points) is for metrics shown in % (pass@1,"),
        ("loc:+5%", "no metric 'loc' in both runs"),
        ("pass@1[bench=mbpp]:-2%", "scope entries are KEY=VALUE"),
        ("pass@1[benchmark=nope]:-2%", "no benchmark 'nope' in both runs"),
    ],
)
def test_malformed_rules_are_one_line_errors(runs, capsys, rule, message):
    old, new = runs
    code, out, err = invoke(["compare", old, new, "--fail-on", rule], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: --fail-on") and message in err
    assert err.count("\n") == 1


def test_malformed_inputs(runs, capsys, tmp_path):
    old, new = runs
    code, _, err = invoke(["compare", tmp_path / "nope", new], capsys)
    assert code == 2 and "does not exist" in err
    with RunStore(tmp_path / "empty"):
        pass
    code, _, err = invoke(["compare", tmp_path / "empty", new], capsys)
    assert code == 2 and "has no evaluated samples" in err
    code, _, err = invoke(["compare", old, new, "--pair", "gpt-x=gpt-x-1106"], capsys)
    assert code == 2 and "'gpt-x' is not a model of" in err
    code, _, err = invoke(["compare", old, new, "--pair", "gpt-x-0613"], capsys)
    assert code == 2 and "write OLD_MODEL=NEW_MODEL" in err
