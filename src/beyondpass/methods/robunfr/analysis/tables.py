"""The seed's Tables 2, 3, 5 and 6, the workflow comparison and the statistics table; and
:func:`robunfr_tables`, every table of a RobuNFR report in the seed's order."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from beyondpass.analysis.cells import Comparison, adjust, pooled_compare
from beyondpass.analysis.formatting import MISSING, bench_label, fmt_num
from beyondpass.analysis.stats import BOOTSTRAP_RESAMPLES
from beyondpass.methods.robunfr.analysis.data import Group, RunData
from beyondpass.methods.robunfr.analysis.failures import failure_table
from beyondpass.methods.robunfr.analysis.format import (
    avg_sd,
    ci_extra,
    delta_cell,
    label_cells,
    metric_cell,
    num_cell,
    p_cell,
    sig_note,
)
from beyondpass.methods.robunfr.analysis.metrics import METRICS, NFR_METRICS, PASS, metric_def
from beyondpass.methods.robunfr.analysis.run import Analysis
from beyondpass.methods.robunfr.analysis.versions import VersionPair, compare_versions, table4
from beyondpass.methods.robunfr.prompts import ENHANCED, INTEGRATED, WORKFLOW_LABELS
from beyondpass.report.table import Cell, Table


def table2(an: Analysis, workflow: str) -> Table:
    """Seed Table 2: Pass@1 AVG, STDEV across prompts and Δ% vs Function-Only."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    header = ["NFR Dimension", "Model"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in d.benchmarks:
        header += ["Pass@1", "STDEV", "Δ(%)"]
        groups.append((bench_label(b), 3))
    rows: list[list[Cell]] = []
    for g in [fo] + [x for n in d.nfr_order if (x := d.nfr_group(workflow, n))]:
        for i, model in enumerate(d.models):
            row = label_cells(g.label if i == 0 else "", model)
            for b in d.benchmarks:
                st = an.cell(b, model, g, PASS)
                comp = an.vs_baseline.get((b, model, g.key, PASS))
                row.append(Cell(fmt_num(st.avg, 2), value=st.avg, extra=ci_extra(st)))
                row.append(Cell(fmt_num(st.sd, 2), value=st.sd))
                row.append(delta_cell(comp) if g is not fo else Cell(MISSING))
            rows.append(row)
    return Table(
        key=f"table2-{workflow}",
        title=f"Table 2 ({WORKFLOW_LABELS[workflow]}): Pass@1 across semantically equivalent "
        "prompts",
        caption=(
            "Pass@1 (%) is the AVG over the prompts of each NFR dimension, STDEV its sample "
            "standard deviation across them (for Function-Only: across repeated runs, — "
            "when it ran once). Δ(%) is the relative difference of the AVG to Function-Only "
            "of the same model."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[sig_note(an.alpha, "each workflow's Pass@1 comparisons")],
    )


def _static_benchmarks(d: RunData) -> list[str]:
    """The seed's Table 3 shows HumanEval and MBPP: an -ET benchmark only adds tests to the
    same problems, so its static metrics repeat its base's; it is shown only without one."""
    names = set(d.benchmarks)
    return [b for b in d.benchmarks if not (b.endswith("-et") and b[:-3] in names)]


def table3(an: Analysis, workflow: str) -> Table | None:
    """Seed Table 3: NFR metrics AVG ± STDEV (Δ% vs Function-Only)."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    metrics = [m for m in NFR_METRICS if d.has_metric(m)]
    if not metrics:
        return None
    benches = _static_benchmarks(d)
    header = ["NFR Dimension", "Model"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in benches:
        header += [f"{METRICS[m].label} (Δ%)" for m in metrics]
        groups.append((bench_label(b), len(metrics)))
    rows: list[list[Cell]] = []
    for g in [fo] + [x for n in d.nfr_order if (x := d.nfr_group(workflow, n))]:
        for i, model in enumerate(d.models):
            row = label_cells(g.label if i == 0 else "", model)
            for b in benches:
                for m in metrics:
                    st = an.cell(b, model, g, m)
                    comp = None if g is fo else an.vs_baseline.get((b, model, g.key, m))
                    row.append(metric_cell(st, comp, METRICS[m].decimals))
            rows.append(row)
    return Table(
        key=f"table3-{workflow}",
        title=f"Table 3 ({WORKFLOW_LABELS[workflow]}): NFR metrics across prompts",
        caption=(
            "Code smell density (pylint Refactor messages per 10 LOC), unreadability density "
            "(pylint Convention messages per 10 LOC), exception-handling density (statements "
            "per 10 LOC) and execution time (ms, passing samples only): AVG ± STDEV across "
            "the prompts, (Δ% vs Function-Only of the same model)."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[sig_note(an.alpha, "each workflow and metric")],
    )


def _pooled(an: Analysis, bench: str, base: Group, other: Group, metric: str) -> Comparison:
    pairs = [
        (an.cell(bench, m, base, metric), an.cell(bench, m, other, metric)) for m in an.data.models
    ]
    return pooled_compare(pairs, metric, alpha=an.alpha)


def table5(an: Analysis) -> tuple[Table, Table | None]:
    """Seed Tables 5 and 6: workflows, averaged over the run's models."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    rows_groups = [fo] + [g for w in d.workflows for n in d.nfr_order if (g := d.nfr_group(w, n))]
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    comps = _workflow_comparisons(an, fo, rows_groups, metrics)
    t5 = _table5_pass(an, fo, rows_groups, comps)
    nfr_metrics = metrics[1:]
    if not nfr_metrics:
        return t5, None
    return t5, _table6_nfr_metrics(an, fo, rows_groups, comps, nfr_metrics)


_Comparisons = dict[tuple[str, str, str], Comparison]


def _workflow_comparisons(
    an: Analysis, fo: Group, rows_groups: list[Group], metrics: list[str]
) -> _Comparisons:
    """Every group vs Function-Only, pooled over models, by (benchmark, group, metric);
    p-values adjusted within each (workflow, metric) family."""
    comps: _Comparisons = {}
    families: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    for metric in metrics:
        for b in an.data.benchmarks:
            for g in rows_groups:
                c = _pooled(an, b, fo, g, metric)
                comps[(b, g.key, metric)] = c
                if g is not fo:
                    families[(g.workflow, metric)].append(c)
    for fam in families.values():
        adjust(fam)
    return comps


def _workflow_labels(fo: Group, rows_groups: list[Group]) -> list[list[Cell]]:
    """The two label cells of each row: the workflow on its first row only, then the NFR."""
    labels = []
    previous = None
    for g in rows_groups:
        first = g.workflow != previous
        previous = g.workflow
        workflow = "-" if g is fo else (g.workflow_label if first else "")
        labels.append(label_cells(workflow, g.label))
    return labels


def _table5_pass(an: Analysis, fo: Group, rows_groups: list[Group], comps: _Comparisons) -> Table:
    """Seed Table 5: Pass@1 by workflow and NFR, Δ% vs Function-Only."""
    d = an.data
    header = ["Workflow", "NFR Dimension"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in d.benchmarks:
        header += ["Pass@1 AVG", "Δ(%)"]
        groups.append((bench_label(b), 2))
    rows = []
    for g, row in zip(rows_groups, _workflow_labels(fo, rows_groups), strict=True):
        for b in d.benchmarks:
            c = comps[(b, g.key, PASS)]
            row.append(Cell(avg_sd(c.other, 2), value=c.other.avg, sd=c.other.sd))
            row.append(Cell(MISSING) if g is fo else delta_cell(c))
        rows.append(row)
    return Table(
        key="table5",
        title="Table 5: Pass@1 by workflow, averaged over models",
        caption=(
            f"Pass@1 AVG ± STDEV across prompts, each averaged over the {len(d.models)} "
            "model(s) of the run; Δ(%) vs Function-Only."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[
            sig_note(an.alpha, "each workflow").replace(
                "per-task values", "per-(model, task) values"
            )
        ],
    )


def _table6_nfr_metrics(
    an: Analysis,
    fo: Group,
    rows_groups: list[Group],
    comps: _Comparisons,
    nfr_metrics: list[str],
) -> Table:
    """Seed Table 6: the NFR metrics by workflow and NFR, Δ% vs Function-Only."""
    benches = _static_benchmarks(an.data)
    header = ["Workflow", "NFR Dimension"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in benches:
        header += [f"{METRICS[m].label} (Δ%)" for m in nfr_metrics]
        groups.append((bench_label(b), len(nfr_metrics)))
    rows = []
    for g, row in zip(rows_groups, _workflow_labels(fo, rows_groups), strict=True):
        for b in benches:
            for m in nfr_metrics:
                c = comps[(b, g.key, m)]
                row.append(metric_cell(c.other, None if g is fo else c, METRICS[m].decimals))
        rows.append(row)
    return Table(
        key="table6",
        title="Table 6: NFR metrics by workflow, averaged over models",
        caption="AVG ± STDEV across prompts averaged over the run's models (Δ% vs Function-Only).",
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[
            sig_note(an.alpha, "each workflow and metric").replace(
                "per-task values", "per-(model, task) values"
            )
        ],
    )


def workflow_table(an: Analysis) -> Table | None:
    """RQ3 beyond the seed: NFR-Enhanced vs NFR-Integrated per NFR, pooled over models."""
    d = an.data
    if len(d.workflows) < 2:
        return None
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    rows_data = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for b in d.benchmarks:
        for n in d.nfr_order:
            gi, ge = d.nfr_group(INTEGRATED, n), d.nfr_group(ENHANCED, n)
            if gi is None or ge is None:
                continue
            for m in metrics:
                c = _pooled(an, b, gi, ge, m)
                families[m].append(c)
                rows_data.append((b, n, m, c))
    for fam in families.values():
        adjust(fam)
    header = [
        "Benchmark",
        "NFR Dimension",
        "Metric",
        "Integrated AVG",
        "Enhanced AVG",
        "Δ(%)",
        "Wilcoxon p (Holm)",
        "r",
        "seed t-test p",
        "d",
    ]
    rows = []
    for b, n, m, c in rows_data:
        dec = metric_def(m).decimals
        rows.append(
            [
                Cell(bench_label(b)),
                Cell(d.nfr_labels.get(n, n)),
                Cell(metric_def(m).label),
                Cell(avg_sd(c.base, dec), value=c.base.avg, sd=c.base.sd),
                Cell(avg_sd(c.other, dec), value=c.other.avg, sd=c.other.sd),
                delta_cell(c),
                p_cell(c.p_adj),
                num_cell(c.primary.effect, 2),
                p_cell(c.t_seed.p),
                num_cell(c.t_seed.effect, 2),
            ]
        )
    return Table(
        key="workflows",
        title="Workflow comparison: NFR-Enhanced vs NFR-Integrated",
        caption=(
            "Same NFR, same prompts, two workflows, pooled over the run's models. Wilcoxon "
            "signed-rank on (model, task) pairs with matched-pairs rank-biserial r; the "
            "seed's t-test (Welch) on per-prompt values with Cohen's d. Positive Δ: "
            "NFR-Enhanced is higher."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 3),
        rows=rows,
        notes=[f"* = Holm-adjusted Wilcoxon p < {an.alpha:g} within each metric."],
    )


def statistics_table(an: Analysis) -> Table:
    """Every AVG with its CI, and every comparison with Function-Only with all tests."""
    d = an.data
    header = [
        "Benchmark",
        "Model",
        "Workflow",
        "NFR Dimension",
        "Metric",
        "AVG",
        "95% CI",
        "STDEV",
        "units",
        "Δ(%)",
        "test",
        "pairs",
        "p",
        "p (Holm)",
        "effect",
        "paired t p",
        "d_z",
        "seed t-test p",
        "d",
    ]
    rows = []
    for metric in an.metrics():
        dec = metric_def(metric).decimals
        for b in d.benchmarks:
            for model in d.models:
                for g in d.design_groups():
                    st = an.cell(b, model, g, metric)
                    c = an.vs_baseline.get((b, model, g.key, metric))
                    ci = (
                        f"[{fmt_num(st.ci[0], dec)}, {fmt_num(st.ci[1], dec)}]"
                        if st.ci
                        else MISSING
                    )
                    row = [
                        Cell(bench_label(b)),
                        Cell(model),
                        Cell(g.workflow_label),
                        Cell(g.label if g.nfr else "-"),
                        Cell(metric_def(metric).label),
                        Cell(fmt_num(st.avg, dec), value=st.avg),
                        Cell(ci, extra=ci_extra(st)),
                        Cell(fmt_num(st.sd, dec), value=st.sd),
                        Cell(str(len(st.unit_values))),
                    ]
                    if c is None:
                        row += [Cell(MISSING)] * 10
                    else:
                        row += [
                            delta_cell(c),
                            Cell(c.primary.test),
                            Cell(str(c.primary.n)),
                            p_cell(c.primary.p),
                            p_cell(c.p_adj),
                            Cell(
                                f"{c.primary.effect_name} {fmt_num(c.primary.effect, 2)}",
                                value=c.primary.effect if math.isfinite(c.primary.effect) else None,
                            ),
                            p_cell(c.t_paired.p),
                            num_cell(c.t_paired.effect, 2),
                            p_cell(c.t_seed.p),
                            num_cell(c.t_seed.effect, 2),
                        ]
                    rows.append(row)
    return Table(
        key="statistics",
        title="Statistics: every AVG and every comparison with Function-Only",
        caption=(
            f"AVG and STDEV across units (prompts, or Function-Only's repeated runs); 95% CI: "
            f"percentile bootstrap over tasks ({BOOTSTRAP_RESAMPLES} resamples, seed "
            f"{an.seed}). Comparisons are paired by task; p (Holm) is adjusted within each "
            "workflow and metric, as the marks in Tables 2 and 3."
        ),
        header=header,
        align=["l"] * 5 + ["r"] * (len(header) - 5),
        rows=rows,
    )


def robunfr_tables(an: Analysis, version_pairs: Sequence[VersionPair] = ()) -> list[Table]:
    """Every table of the report, in the seed's order."""
    d = an.data
    tables: list[Table] = []
    if d.is_robunfr:
        for w in d.workflows:
            tables.append(table2(an, w))
        for w in d.workflows:
            if (t3 := table3(an, w)) is not None:
                tables.append(t3)
    pairs = [p for p in version_pairs if p.old_model in d.models and p.new_model in d.models]
    if pairs:
        tables.append(table4(compare_versions(an, an, pairs)))
    if d.is_robunfr:
        t5, t6 = table5(an)
        tables.append(t5)
        if t6 is not None:
            tables.append(t6)
        if (wt := workflow_table(an)) is not None:
            tables.append(wt)
        tables.append(statistics_table(an))
    tables += [failure_table(an, b) for b in d.benchmarks]
    return tables


__all__ = [
    "robunfr_tables",
    "statistics_table",
    "table2",
    "table3",
    "table5",
    "workflow_table",
]
