"""RobuNFR tables and statistics, every cell recomputed here from the values the test wrote.

A synthetic run (real run store; verdicts and metrics chosen by a seeded script) with two
models, three benchmarks, Function-Only repeated 3 times and two NFRs x two workflows x 3
prompts. The expected numbers come from this file's own loops, scipy's tests called
directly, and its own Holm and bootstrap implementations.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from beyondpass.methods.robunfr.analysis import VersionPair, analyse, robunfr_tables
from beyondpass.report import render_report
from beyondpass.report.table import latex_escape, to_latex, to_markdown
from beyondpass.store.run_store import RunStore
from robunfr_runs import Sample, write_run

BENCHES = ["humaneval", "humaneval-et", "mbpp"]
MODELS = ["A", "B"]
TASKS = [f"T/{i}" for i in range(20)]
NFRS = ["design", "reliability"]
LABEL = {"design": "Code Design", "reliability": "Reliability"}
WORKFLOWS = {"nfr-integrated": "integrated", "nfr-enhanced": "enhanced"}
METRIC_KEYS = ["smell_density", "unreadability_density", "exception_density", "exec_time_ms"]
DEC = {"pass@1": 2, "smell_density": 2, "unreadability_density": 2, "exception_density": 3}
ALPHA = 0.05


def decide(b: str, m: str, c: str, t: str, i: int) -> Sample:
    rnd = random.Random(f"{b}|{m}|{c}|{t}|{i}")
    p = 0.8
    if c.startswith("integrated.reliability"):
        p = 0.1  # a strong, known effect: must come out significant
    elif c.startswith("enhanced.design"):
        p = 0.6 if m == "A" else 0.75
    r = rnd.random()
    if r < p:
        status = "passed"
    elif r < p + 0.05:
        status = "no_code"
    else:
        status = rnd.choice(["failed", "error", "syntax_error", "timeout"])
    if status in ("no_code", "syntax_error"):
        return Sample(status, {})
    smell = rnd.uniform(0.0, 0.3) if ".design." in c else rnd.uniform(0.2, 1.0)
    metrics = {
        "loc": rnd.randint(5, 30),
        "smell_density": round(smell, 4),
        "unreadability_density": round(rnd.uniform(0.5, 4.0), 4),
        "exception_density": round(rnd.uniform(0.5, 2.0) if "reliability" in c else 0.0, 4),
    }
    if status == "passed":
        metrics["exec_time_ms"] = round(rnd.uniform(10.0, 20.0), 3)
    err = rnd.choice(["ValueError", "TypeError"]) if status == "error" else ""
    return Sample(status, metrics, err)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    d = tmp_path_factory.mktemp("analysis") / "run"
    values = write_run(
        d,
        benchmarks=BENCHES,
        models=MODELS,
        tasks=TASKS,
        decide=decide,
        nfrs=NFRS,
        seed=11,
        report={"version_pairs": [["A", "B"]]},
    )
    return d, values


@pytest.fixture(scope="module")
def tables(run) -> dict:
    d, _ = run
    with RunStore(d, create=False) as store:
        meta, rows = store.all_meta(), list(store.rows())
    an = analyse(meta, rows, seed=11)
    return {t.key: t for t in robunfr_tables(an, [VersionPair("A", "B")])}


# -- independent computations ----------------------------------------------------------------
def value(s: Sample, metric: str) -> float | None:
    if metric == "pass@1":
        return 100.0 if s.passed else 0.0
    if metric == "exec_time_ms" and not s.passed:
        return None
    return s.metrics.get(metric)


def units(values: dict, b: str, m: str, workflow: str, nfr: str | None, metric: str):
    """{unit: {task: value}} for one group."""
    out = {}
    if nfr is None:
        for i in range(3):
            out[i] = {
                t: v
                for t in TASKS
                if (v := value(values[(b, m, "function-only", t, i)], metric)) is not None
            }
    else:
        for k in (1, 2, 3):
            c = f"{WORKFLOWS[workflow]}.{nfr}.p{k:02d}"
            vals = {t: value(values[(b, m, c, t, 0)], metric) for t in TASKS}
            out[c] = {t: v for t, v in vals.items() if v is not None}
    return out


def summary(u: dict) -> tuple[float | None, float | None, dict]:
    unit_means = [statistics.fmean(x.values()) for x in u.values() if x]
    per_task = {}
    for t in TASKS:
        vs = [x[t] for x in u.values() if t in x]
        if vs:
            per_task[t] = statistics.fmean(vs)
    avg = statistics.fmean(unit_means) if unit_means else None
    sd = statistics.stdev(unit_means) if len(unit_means) > 1 else None
    return avg, sd, per_task


def scipy_wilcoxon(nz: list[float]) -> float:
    """The documented choice: exact null distribution up to 50 untied differences, else the
    normal approximation (with tie correction)."""
    ties = len({abs(x) for x in nz}) < len(nz)
    method = "exact" if len(nz) <= 50 and not ties else "asymptotic"
    return float(sps.wilcoxon(nz, method=method).pvalue)


def wilcoxon_p(a: dict, b: dict) -> float:
    common = [t for t in TASKS if t in a and t in b]
    diffs = [b[t] - a[t] for t in common]
    nz = [x for x in diffs if x != 0]
    if not common:
        return float("nan")
    if not nz:
        return 1.0
    return scipy_wilcoxon(nz)


def holm(ps: list[float]) -> list[float]:
    order = sorted((p, i) for i, p in enumerate(ps) if not math.isnan(p))
    out = [float("nan")] * len(ps)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p))
        out[i] = running
    return out


def fmt(x: float | None, dec: int) -> str:
    return "—" if x is None else f"{x:.{dec}f}"


def delta(base: float | None, other: float | None) -> float | None:
    return None if base in (None, 0) or other is None else (other - base) / abs(base) * 100


def dtext(d: float | None, sig: bool) -> str:
    return "—" if d is None else f"{d:+.2f}" + ("*" if sig else "")


def cell(avg, sd, dec, d=None, sig=False, with_delta=False) -> str:
    if avg is None:
        return "—"
    out = fmt(avg, dec) + (f" ± {fmt(sd, dec)}" if sd is not None else "")
    return out + (f" ({dtext(d, sig)})" if with_delta else "")


def vs_fo(values: dict, metric: str, workflow: str) -> dict:
    """Every comparison with Function-Only of one (workflow, metric) family, Holm-adjusted."""
    keys, ps, stats_ = [], [], {}
    for b in BENCHES:
        for m in MODELS:
            fo = summary(units(values, b, m, "", None, metric))
            for n in NFRS:
                g = summary(units(values, b, m, workflow, n, metric))
                keys.append((b, m, n))
                ps.append(wilcoxon_p(fo[2], g[2]))
                stats_[(b, m, n)] = (fo, g)
    adj = dict(zip(keys, holm(ps), strict=True))
    return {k: (*stats_[k], adj[k]) for k in keys}


# -- the tables --------------------------------------------------------------------------------
@pytest.mark.parametrize("workflow", ["nfr-integrated", "nfr-enhanced"])
def test_table2_every_cell(run, tables, workflow):
    _, values = run
    comps = vs_fo(values, "pass@1", workflow)
    t = tables[f"table2-{workflow}"]
    expected = []
    for n in [None, *NFRS]:
        for j, m in enumerate(MODELS):
            row = [("Function-Only" if n is None else LABEL[n]) if j == 0 else "", m]
            for b in BENCHES:
                if n is None:
                    avg, sd, _ = summary(units(values, b, m, workflow, None, "pass@1"))
                    row += [fmt(avg, 2), fmt(sd, 2), "—"]
                else:
                    fo, g, p = comps[(b, m, n)]
                    row += [fmt(g[0], 2), fmt(g[1], 2), dtext(delta(fo[0], g[0]), p < ALPHA)]
            expected.append(row)
    assert [[c.text for c in r] for r in t.rows] == expected
    if workflow == "nfr-integrated":  # the scripted strong effect is found everywhere
        col = t.column("Δ(%)", "HumanEval")
        rel = [r for r in t.rows if r[0].text == "Reliability"][0]
        assert rel[col].significant and rel[col].value < -50


@pytest.mark.parametrize("workflow", ["nfr-integrated", "nfr-enhanced"])
def test_table3_every_cell(run, tables, workflow):
    _, values = run
    t = tables[f"table3-{workflow}"]
    static = ["humaneval", "mbpp"]  # the -ET benchmark repeats HumanEval's static metrics
    assert [g for g, _ in t.groups] == ["", "HumanEval", "MBPP"]
    comps = {m: vs_fo(values, m, workflow) for m in METRIC_KEYS}
    expected = []
    for n in [None, *NFRS]:
        for j, model in enumerate(MODELS):
            row = [("Function-Only" if n is None else LABEL[n]) if j == 0 else "", model]
            for b in static:
                for metric in METRIC_KEYS:
                    dec = DEC.get(metric, 2)
                    if n is None:
                        avg, sd, _ = summary(units(values, b, model, workflow, None, metric))
                        row.append(cell(avg, sd, dec))
                    else:
                        fo, g, p = comps[metric][(b, model, n)]
                        row.append(cell(g[0], g[1], dec, delta(fo[0], g[0]), p < ALPHA, True))
            expected.append(row)
    assert [[c.text for c in r] for r in t.rows] == expected


def test_table5_and_6_pool_the_models(run, tables):
    _, values = run

    def pooled(b, workflow, n, metric):
        per_model = [summary(units(values, b, m, workflow, n, metric)) for m in MODELS]
        avgs = [s[0] for s in per_model if s[0] is not None]
        sds = [s[1] for s in per_model if s[1] is not None]
        return (
            statistics.fmean(avgs) if avgs else None,
            statistics.fmean(sds) if sds else None,
            per_model,
        )

    def family(workflow, metric, benches):
        keys, ps = [], []
        for b in BENCHES:
            for n in NFRS:
                fo = pooled(b, workflow, None, metric)
                g = pooled(b, workflow, n, metric)
                a, bb = [], []
                for (_, _, ft), (_, _, gt) in zip(fo[2], g[2], strict=True):
                    for t in TASKS:
                        if t in ft and t in gt:
                            a.append(ft[t])
                            bb.append(gt[t])
                nz = [y - x for x, y in zip(a, bb, strict=True) if y != x]
                keys.append((b, n))
                ps.append(scipy_wilcoxon(nz) if nz else (1.0 if a else math.nan))
        return dict(zip(keys, holm(ps), strict=True))

    t5 = tables["table5"]
    fams = {w: family(w, "pass@1", BENCHES) for w in WORKFLOWS}
    expected = [["-", "Function-Only"]]
    for b in BENCHES:
        avg, sd, _ = pooled(b, "", None, "pass@1")
        expected[0] += [cell(avg, sd, 2), "—"]
    for w, label in (("nfr-integrated", "NFR-Integrated"), ("nfr-enhanced", "NFR-Enhanced")):
        for i, n in enumerate(NFRS):
            row = [label if i == 0 else "", LABEL[n]]
            for b in BENCHES:
                fo = pooled(b, w, None, "pass@1")
                g = pooled(b, w, n, "pass@1")
                row += [cell(g[0], g[1], 2), dtext(delta(fo[0], g[0]), fams[w][(b, n)] < ALPHA)]
            expected.append(row)
    assert [[c.text for c in r] for r in t5.rows] == expected

    t6 = tables["table6"]
    fams6 = {(w, m): family(w, m, BENCHES) for w in WORKFLOWS for m in METRIC_KEYS}
    for r, (w, n) in zip(
        t6.rows,
        [("", None)] + [(w, n) for w in WORKFLOWS for n in NFRS],
        strict=True,
    ):
        texts = [c.text for c in r[2:]]
        want = []
        for b in ("humaneval", "mbpp"):
            for metric in METRIC_KEYS:
                g = pooled(b, w, n, metric)
                if n is None:
                    want.append(cell(g[0], g[1], DEC.get(metric, 2)))
                else:
                    fo = pooled(b, w, None, metric)
                    sig = fams6[(w, metric)][(b, n)] < ALPHA
                    want.append(cell(g[0], g[1], DEC.get(metric, 2), delta(fo[0], g[0]), sig, True))
        assert texts == want, (w, n)


def bootstrap(u: dict, seed: int, resamples: int = 2000) -> tuple[float, float]:
    """The documented bootstrap, written as plain loops: tasks resampled with replacement,
    the same draw for every unit, AVG = mean of the unit means."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(TASKS), size=(resamples, len(TASKS)))
    avgs = []
    for draw in idx:
        means = []
        for x in u.values():
            vs = [x[TASKS[j]] for j in draw if TASKS[j] in x]
            if vs:
                means.append(sum(vs) / len(vs))
        if means:
            avgs.append(sum(means) / len(means))
    return float(np.quantile(avgs, 0.025)), float(np.quantile(avgs, 0.975))


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
def test_statistics_table_cis_and_tests(run, tables):
    _, values = run
    t = tables["statistics"]
    h = t.header
    checked = 0
    for metric, key in (("pass@1", "Pass@1"), ("smell_density", "code smell")):
        comps = {w: vs_fo(values, metric, w) for w in WORKFLOWS}
        for row in t.rows:
            if row[h.index("Metric")].text != key or row[h.index("Model")].text != "A":
                continue
            b = {"HumanEval": "humaneval", "HumanEval-ET": "humaneval-et", "MBPP": "mbpp"}[
                row[0].text
            ]
            wl = row[h.index("Workflow")].text
            w = {"NFR-Integrated": "nfr-integrated", "NFR-Enhanced": "nfr-enhanced"}.get(wl)
            n = None if w is None else next(k for k, v in LABEL.items() if v == row[3].text)
            u = units(values, b, "A", w or "", n, metric)
            avg, sd, _ = summary(u)
            dec = DEC[metric]
            assert row[h.index("AVG")].text == fmt(avg, dec)
            assert row[h.index("STDEV")].text == fmt(sd, dec)
            if b == "mbpp":  # the bootstrap in plain loops is slow: one benchmark suffices
                lo, hi = bootstrap(u, 11)
                assert row[h.index("95% CI")].text == f"[{fmt(lo, dec)}, {fmt(hi, dec)}]"
                assert row[h.index("95% CI")].extra["ci95"] == pytest.approx([lo, hi], abs=1e-9)
                assert lo <= avg <= hi
            if w is not None:
                fo, g, p_adj = comps[w][(b, "A", n)]
                p = wilcoxon_p(fo[2], g[2])
                assert row[h.index("p")].value == pytest.approx(p)
                assert row[h.index("p (Holm)")].value == pytest.approx(p_adj)
                common = [x for x in TASKS if x in fo[2] and x in g[2]]
                a = [fo[2][x] for x in common]
                bb = [g[2][x] for x in common]
                assert row[h.index("paired t p")].value == pytest.approx(
                    float(sps.ttest_rel(bb, a).pvalue)
                )
                fo_u = units(values, b, "A", "", None, metric)
                fo_units = [statistics.fmean(x.values()) for x in fo_u.values()]
                g_units = [statistics.fmean(x.values()) for x in u.values()]
                assert row[h.index("seed t-test p")].value == pytest.approx(
                    float(sps.ttest_ind(g_units, fo_units, equal_var=False).pvalue)
                )
            checked += 1
    assert checked == 2 * 3 * 5


def test_table4_version_pair(run, tables):
    _, values = run
    t = tables["table4"]
    groups = [("", None)] + [(w, n) for w in WORKFLOWS for n in NFRS]
    metrics = ["pass@1", "pass@1", *METRIC_KEYS]  # Pass@1, ET-Pass@1, then NFR metrics
    # Holm within each metric over every (dataset benchmark, group) comparison
    fams: dict[str, dict] = {}
    for metric in ["pass@1", *METRIC_KEYS]:
        keys, ps = [], []
        for b in BENCHES:
            for w, n in groups:
                old = summary(units(values, b, "A", w, n, metric))
                new = summary(units(values, b, "B", w, n, metric))
                keys.append((b, w, n))
                ps.append(wilcoxon_p(old[2], new[2]))
        fams[metric] = dict(zip(keys, holm(ps), strict=True))
    rows = iter(t.rows)
    for ds, base, et in (("HumanEval", "humaneval", "humaneval-et"), ("MBPP", "mbpp", None)):
        for gi, (w, n) in enumerate(groups):
            r = next(rows)
            assert r[1].text == (ds if gi == 0 else "")
            wl = "NFR-Integrated" if w == "nfr-integrated" else "NFR-Enhanced"
            assert r[2].text == ("Function-Only" if n is None else f"{LABEL[n]} ({wl})")
            for col, (bench, metric) in enumerate(
                zip([base, et] + [base] * 4, metrics, strict=True), start=3
            ):
                if bench is None:
                    assert r[col].text == "—"
                    continue
                old = summary(units(values, bench, "A", w, n, metric))
                new = summary(units(values, bench, "B", w, n, metric))
                sig = fams[metric][(bench, w, n)] < ALPHA
                want = cell(old[0], old[1], DEC.get(metric, 2), delta(old[0], new[0]), sig, True)
                assert r[col].text == want, (ds, w, n, metric)
    assert next(rows, None) is None


def test_failure_tables(run, tables):
    _, values = run
    for b in BENCHES:
        t = tables[f"failures-{b}"]
        h = t.header
        for r in t.rows:
            m = r[0].text
            if r[1].text == "Function-Only":
                samples = [values[(b, m, "function-only", x, i)] for x in TASKS for i in range(3)]
            else:
                w = {"NFR-Integrated": "integrated", "NFR-Enhanced": "enhanced"}[r[1].text]
                n = next(k for k, v in LABEL.items() if v == r[2].text)
                samples = [
                    values[(b, m, f"{w}.{n}.p{k:02d}", x, 0)] for x in TASKS for k in (1, 2, 3)
                ]
            total = len(samples)
            assert r[h.index("Evaluated")].text == str(total)
            for col, status in (
                ("Passed", "passed"),
                ("No code", "no_code"),
                ("Syntax error", "syntax_error"),
                ("Exception", "error"),
                ("Wrong result", "failed"),
                ("Timeout", "timeout"),
            ):
                k = sum(s.status == status for s in samples)
                assert r[h.index(col)].text == f"{k} ({100 * k / total:.1f}%)"
            errs = [s.error_type for s in samples if s.status == "error"]
            top = sorted({e: errs.count(e) for e in errs}.items(), key=lambda kv: (-kv[1], kv[0]))
            assert r[h.index("Exceptions raised")].text == (
                ", ".join(f"{e} {c}" for e, c in top) or "—"
            )


def test_report_renders_tables_plots_latex_and_json(run, tmp_path):
    d, _ = run
    paths = render_report(d, tmp_path)
    md = paths.markdown.read_text(encoding="utf-8")
    html = paths.html.read_text(encoding="utf-8")
    tex = paths.latex.read_text(encoding="utf-8")
    assert paths.tables_json.is_file()
    for title in ("Table 2 (NFR-Integrated)", "Table 4", "Table 6", "Workflow comparison"):
        assert title in md and title in html
    # plots: values across prompts per benchmark x model, Δ per benchmark for the pair
    assert html.count("values across prompts") == len(BENCHES) * len(MODELS)
    assert html.count("Δ% of A vs B") == len(BENCHES)
    for table in re.findall(r"\\begin\{tabular\}\{([lr]+)\}(.*?)\\bottomrule", tex, re.S):
        spec, body = table
        for line in body.split("\\midrule")[-1].strip().splitlines():
            if line.strip():
                cells = re.split(r"(?<!\\)&", line)
                assert len(cells) == len(spec), line[:80]
    # the same tables again are byte-identical (seeded bootstrap, stable order)
    again = render_report(d, tmp_path / "again", robunfr_plots=False)
    assert again.markdown.read_bytes() == paths.markdown.read_bytes()
    assert again.latex.read_bytes() == paths.latex.read_bytes()
    assert again.tables_json.read_bytes() == paths.tables_json.read_bytes()


def test_renderers_escape_hostile_text(tables):
    t = tables["table2-nfr-integrated"]
    t.rows[0][1].text = "a|b <script>&_%$#{}~^\\"
    md = to_markdown(t)
    assert "a\\|b &lt;script&gt;&amp;" in md
    tex = to_latex(t)
    assert r"a\textbar{}b \textless{}script\textgreater{}\&\_\%\$\#\{\}" in tex
    assert latex_escape("-1.25*") == r"-1.25\textsuperscript{*}"
