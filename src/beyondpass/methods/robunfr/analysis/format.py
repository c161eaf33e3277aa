"""Cells of the RobuNFR paper tables: AVG ± STDEV, Δ% with its significance mark, p-values."""

from __future__ import annotations

import math
from typing import Any

from beyondpass.analysis.cells import CellStats, Comparison
from beyondpass.analysis.formatting import MISSING, fmt_delta, fmt_num
from beyondpass.report.table import Cell


def label_cells(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


def avg_sd(stats: CellStats, decimals: int) -> str:
    if stats.avg is None:
        return MISSING
    text = fmt_num(stats.avg, decimals)
    if stats.sd is not None:
        text += f" ± {fmt_num(stats.sd, decimals)}"
    return text


def delta_cell(comp: Comparison | None) -> Cell:
    if comp is None:
        return Cell(MISSING)
    return Cell(
        fmt_delta(comp.delta_pct, comp.significant),
        value=comp.delta_pct,
        p=comp.p_adj if math.isfinite(comp.p_adj) else None,
        significant=comp.significant,
    )


def metric_cell(stats: CellStats, comp: Comparison | None, decimals: int) -> Cell:
    text = avg_sd(stats, decimals)
    if comp is not None and stats.avg is not None:
        text += f" ({fmt_delta(comp.delta_pct, comp.significant)})"
    return Cell(
        text,
        value=stats.avg,
        sd=stats.sd,
        delta_pct=comp.delta_pct if comp else None,
        p=comp.p_adj if comp and math.isfinite(comp.p_adj) else None,
        significant=bool(comp and comp.significant),
        extra={"ci95": list(stats.ci)} if stats.ci else {},
    )


def sig_note(alpha: float, family: str) -> str:
    return (
        f"* = significant at α = {alpha:g} after Holm adjustment within {family}: Wilcoxon "
        "signed-rank test on per-task values (McNemar's exact test when both sides are one "
        "pass/fail verdict per task). The statistics table gives every test, p-value, "
        "effect size and the 95% bootstrap CI of every AVG."
    )


def ci_extra(st: CellStats) -> dict[str, Any]:
    return {"ci95": list(st.ci)} if st.ci else {}


def p_cell(p: float) -> Cell:
    if not math.isfinite(p):
        return Cell(MISSING)
    return Cell("<0.001" if p < 0.001 else f"{p:.3f}", value=p)


def num_cell(x: float, decimals: int) -> Cell:
    return Cell(fmt_num(x, decimals), value=x if math.isfinite(x) else None)


__all__ = [
    "avg_sd",
    "ci_extra",
    "delta_cell",
    "label_cells",
    "metric_cell",
    "num_cell",
    "p_cell",
    "sig_note",
]
