"""Two versions of a model on the same design (RQ2): paired comparisons and the seed's Table 4."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from beyondpass.analysis.cells import Comparison, adjust, compare_cells
from beyondpass.analysis.formatting import MISSING, bench_label
from beyondpass.analysis.regression import VersionComparison, VersionPair
from beyondpass.methods.robunfr.analysis.format import metric_cell
from beyondpass.methods.robunfr.analysis.metrics import METRICS, NFR_METRICS, PASS, metric_def
from beyondpass.methods.robunfr.analysis.run import Analysis
from beyondpass.report.table import Cell, Table


def compare_versions(
    old: Analysis,
    new: Analysis,
    pairs: Sequence[VersionPair],
    *,
    groups: str = "design",
    metrics: Sequence[str] | None = None,
) -> list[VersionComparison]:
    """Compare each pair on the benchmarks and groups both runs have; Holm within each
    metric across all pairs, benchmarks and groups."""
    out = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for pair in pairs:
        vc = VersionComparison(pair, old, new, method="robunfr")
        vc.benchmarks = [b for b in old.data.benchmarks if b in new.data.benchmarks]
        new_groups = {
            g.key: g
            for g in (new.data.comparison_groups() if groups == "all" else new.data.design_groups())
        }
        old_groups = old.data.comparison_groups() if groups == "all" else old.data.design_groups()
        vc.groups = [g for g in old_groups if g.key in new_groups]
        wanted = list(metrics) if metrics else [PASS, *NFR_METRICS]
        vc.metrics = [
            m for m in wanted if m == PASS or (old.data.has_metric(m) and new.data.has_metric(m))
        ]
        for b in vc.benchmarks:
            for g in vc.groups:
                for m in vc.metrics:
                    c = compare_cells(
                        old.cell(b, pair.old_model, g, m),
                        new.cell(b, pair.new_model, new_groups[g.key], m),
                        alpha=old.alpha,
                    )
                    vc.comparisons[(b, g.key, m)] = c
                    families[m].append(c)
        out.append(vc)
    for fam in families.values():
        adjust(fam)
    return out


def _datasets(benches: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
    """(dataset label, base benchmark, -ET benchmark) as the seed's Table 4 pairs them."""
    names = set(benches)
    out = []
    for b in benches:
        if b.endswith("-et") and b[:-3] in names:
            continue
        if b.endswith("-et"):
            out.append((bench_label(b), None, b))
        else:
            out.append((bench_label(b), b, f"{b}-et" if f"{b}-et" in names else None))
    return out


def table4(vcs: Sequence[VersionComparison]) -> Table:
    """Seed Table 4: old version AVG ± STDEV and Δ% of the new version, per dataset."""
    metrics = [m for m in NFR_METRICS if any(m in vc.metrics for vc in vcs)]
    header = ["Model", "Dataset", "NFR Dimension", "Pass@1 (Δ%)", "ET-Pass@1 (Δ%)"]
    header += [f"{METRICS[m].label} (Δ%)" for m in metrics]
    rows = []
    for vc in vcs:
        first_pair = True
        workflows = {g.workflow for g in vc.groups if g.nfr}
        for label, base, et in _datasets(vc.benchmarks):
            first_ds = True
            for g in vc.groups:
                name = g.label
                if g.nfr and len(workflows) > 1:
                    name = f"{g.label} ({g.workflow_label})"
                row = [
                    Cell(vc.pair.label if first_pair else ""),
                    Cell(label if first_ds else ""),
                    Cell(name),
                ]
                first_pair = first_ds = False
                for bench, metric in [(base, PASS), (et, PASS)] + [
                    (base or et, m) for m in metrics
                ]:
                    c = vc.comparisons.get((bench, g.key, metric)) if bench else None
                    if c is None:
                        row.append(Cell(MISSING))
                    else:
                        row.append(metric_cell(c.base, c, metric_def(metric).decimals))
                rows.append(row)
    return Table(
        key="table4",
        title="Table 4: model versions (old AVG ± STDEV, Δ% of the new version)",
        caption=(
            "Each cell: the older version's AVG ± STDEV across prompts and, in brackets, the "
            "relative change of the newer version on the same tasks and prompts."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 3),
        rows=rows,
        notes=[
            "* = significant paired difference between the versions (Wilcoxon signed-rank on "
            "per-task values, McNemar's exact test for single pass/fail verdicts), Holm-"
            "adjusted within each metric."
        ],
    )


__all__ = ["VersionComparison", "VersionPair", "compare_versions", "table4"]
