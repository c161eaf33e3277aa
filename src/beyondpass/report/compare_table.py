"""The table of every method's headline metrics in ``compare``'s Markdown, LaTeX and HTML:
one row per method, metric, benchmark and group of each version pair, with old and new
values, their 95% CIs, the change, and the Holm-adjusted paired test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from beyondpass.analysis.formatting import MISSING, SIG_MARK
from beyondpass.analysis.metrics import metric_def
from beyondpass.report.table import Cell, Table


def _value(value: float | None, ci: Sequence[float] | None, decimals: int) -> str:
    if value is None:
        return MISSING
    text = f"{value:.{decimals}f}"
    if ci:
        text += f" [{ci[0]:.{decimals}f}, {ci[1]:.{decimals}f}]"
    return text


def headline_delta_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """``rows``: ``compare``'s comparison records; those a method's ``compare`` section made
    (``section``) are in that section's own table."""
    out = []
    for r in rows:
        if r.get("section"):
            continue
        d = metric_def(r["metric"]).decimals
        unit = f" ({r['unit']})" if r.get("unit") else ""
        delta = r["delta"]
        change = MISSING if delta is None else f"{delta:+.{d}f}"
        if r.get("delta_ci95"):
            lo, hi = r["delta_ci95"]
            change += f" [{lo:+.{d}f}, {hi:+.{d}f}]"
        if r["delta_pct"] is not None:
            change += f" ({r['delta_pct']:+.1f}%)"
        p = r["p_holm"]
        out.append(
            [
                Cell(r["method"] + (f" ({r['reading']})" if r.get("reading") else "")),
                Cell(f"{r['metric_label']}{unit}"),
                Cell(r["benchmark_label"]),
                Cell(r["group_label"]),
                Cell(r["pair"]),
                Cell(_value(r["old"], r["old_ci95"], d), r["old"]),
                Cell(_value(r["new"], r["new_ci95"], d), r["new"]),
                Cell(change + (SIG_MARK if r["significant"] else ""), delta),
                Cell(MISSING if p is None else f"{p:.3g}", p),
                Cell(str(r["pairs"]), r["pairs"]),
            ]
        )
    return Table(
        key="compare-headlines",
        title="Headline metrics of every method: old → new",
        caption="value [95% bootstrap CI]; change new − old [its 95% paired bootstrap CI] "
        "(relative change); "
        f"{SIG_MARK} significant (Holm-adjusted paired test on the units both runs hold).",
        header=[
            "Method",
            "Metric",
            "Benchmark",
            "Group",
            "Models",
            "Old",
            "New",
            "Δ",
            "p (Holm)",
            "Paired units",
        ],  # fmt: skip
        align=["l", "l", "l", "l", "l", "r", "r", "r", "r", "r"],
        rows=out,
    )
