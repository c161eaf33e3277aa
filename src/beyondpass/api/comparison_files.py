"""The files a comparison writes (``compare --out``, ``compare(..., out=...)``): Markdown,
LaTeX, JSON and a self-contained HTML page with the Δ plots of the sections that draw them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from beyondpass.analysis.compare_section import CompareSection
    from beyondpass.analysis.regression import RegressionReport, VersionComparison


def write_outputs(
    out: Path,
    report: RegressionReport,
    payload: dict[str, Any],
    made: list[tuple[CompareSection, list[VersionComparison]]],
) -> dict[str, str]:
    """Write compare.md, compare.tex, compare.json and compare.html into ``out``: each
    section's own tables and plots, then the headline Δ table; the paths by kind."""
    from beyondpass.report.artifacts import json_text
    from beyondpass.report.compare_table import headline_delta_table
    from beyondpass.report.table import tables_latex, tables_markdown

    out.mkdir(parents=True, exist_ok=True)
    tables: list[Any] = []
    plots: list[str] = []
    for section, own in made:  # each section's tables and plots of its own comparisons
        tables += section.tables(own)
        plots += section.plots(own)
    tables.append(headline_delta_table(payload["comparisons"]))
    tables = [t for t in tables if t.rows]
    md = [
        "# beyondpass compare",
        "",
        f"Old: `{payload['old_run']}` · New: `{payload['new_run']}`",
        "",
    ]
    md.append(tables_markdown(tables))
    for title, items in (
        ("Trade-offs", report.trade_offs),
        ("Inconsistent across benchmarks", report.inconsistencies),
        ("Gate", report.violations),
    ):
        md += [f"## {title}", ""]
        md += [f"- {f.text}" for f in items] or ["- none"]
        md.append("")
    md += [f"- note: {n}" for n in payload["notes"]]
    files = {
        "markdown": out / "compare.md",
        "latex": out / "compare.tex",
        "json": out / "compare.json",
        "html": out / "compare.html",
    }
    files["markdown"].write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    files["latex"].write_text(tables_latex(tables), encoding="utf-8")
    files["json"].write_text(json_text(payload), encoding="utf-8")
    files["html"].write_text(_html(tables, report, payload, plots), encoding="utf-8")
    return {k: str(v) for k, v in files.items()}


def _html(tables: Any, report: Any, payload: dict[str, Any], plots: list[str]) -> str:
    from beyondpass.report.render import template_environment

    return (
        template_environment()
        .get_template("compare.html.j2")
        .render(tables=tables, rep=report, p=payload, plots=[s for s in plots if s])
    )


__all__ = ["write_outputs"]
