"""The RobuNFR part of a run's report: the seed's tables, statistics, failures and plots.

Built only for runs whose design has Function-Only and NFR conditions (``plan =
"robunfr"``, or custom conditions that declare ``workflow`` and ``nfr``), or whose study
names version pairs (``[report] version_pairs``). Besides the report's own Markdown and HTML,
the tables are written as LaTeX (``robunfr-tables.tex``) and JSON (``robunfr-tables.json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.analysis.formatting import bench_label
from beyondpass.analysis.meta import as_dict
from beyondpass.methods.robunfr.analysis.data import own_rows
from beyondpass.methods.robunfr.analysis.metrics import NFR_METRICS, PASS
from beyondpass.methods.robunfr.analysis.run import Analysis, analyse
from beyondpass.methods.robunfr.analysis.tables import robunfr_tables
from beyondpass.methods.robunfr.analysis.versions import VersionPair, compare_versions
from beyondpass.methods.robunfr.report.plots import prompt_spread_svg, version_delta_svg
from beyondpass.report.artifacts import json_text
from beyondpass.report.render import TABLES_MARKDOWN, render_html, render_markdown
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Table, tables_latex
from beyondpass.store.run_store import Row

LATEX_FILE = "robunfr-tables.tex"
JSON_FILE = "robunfr-tables.json"


_HTML = """\
<style>
table.paper th.span { text-align: center; }
table.paper td.sig { font-weight: 700; }
</style>
{% for note in notes %}<p class="muted">{{ note }}</p>{% endfor %}
{% for t in tables %}
{% if t.key == 'statistics' or t.key.startswith('failures') %}
<details><summary>{{ t.title }}</summary>
{{ t|html_table("paper") }}
</details>
{% else %}
{{ t|html_table("paper") }}
{% endif %}
{% endfor %}
{% if plots %}
<h3>Plots</h3>
<div class="plots">
{% for p in plots %}
<figure>{{ p.svg|safe }}<figcaption class="muted">{{ p.caption }}</figcaption></figure>
{% endfor %}
</div>
{% endif %}
"""


@dataclass
class Plot:
    caption: str
    svg: str


@dataclass
class RobunfrSection:
    tables: list[Table]
    plots: list[Plot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def version_pairs(meta: Mapping[str, Any]) -> list[VersionPair]:
    study = as_dict(meta.get("study"))
    config = as_dict(study.get("config"))
    report = as_dict(config.get("report"))
    pairs = report.get("version_pairs", [])
    out = []
    for p in pairs if isinstance(pairs, list) else []:
        if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p):
            out.append(VersionPair(p[0], p[1]))
    return out


def build_section(
    meta: Mapping[str, Any], rows: Sequence[Row], *, seed: int, plots: bool = True
) -> RobunfrSection | None:
    """The tables, notes and (with ``plots``) plots; None when the run is no RobuNFR design
    and names no version pairs."""
    pairs = version_pairs(meta)
    an = analyse(meta, own_rows(meta, rows), seed=seed)
    d = an.data
    if not d.is_robunfr and not pairs:
        return None
    notes = []
    present_pairs = [p for p in pairs if p.old_model in d.models and p.new_model in d.models]
    for p in pairs:
        if p not in present_pairs:
            notes.append(
                f"Version pair {p.label} is not in this run (models: {', '.join(d.models)}); "
                "Table 4 leaves it out."
            )
    if d.is_robunfr and not any(d.has_metric(m) for m in NFR_METRICS):
        notes.append(
            "No NFR metrics in this run: Tables 3 and 6 need the NFR evaluator "
            "([evaluation] nfr = true in the study)."
        )
    section = RobunfrSection(robunfr_tables(an, present_pairs), notes=notes)
    if plots:
        section.plots = _plots(an, present_pairs)
    return section


def _plots(an: Analysis, pairs: Sequence[VersionPair]) -> list[Plot]:
    d = an.data
    out: list[Plot] = []
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    if d.is_robunfr:
        for bi, bench in enumerate(d.benchmarks):
            for mi, model in enumerate(d.models):
                svg = prompt_spread_svg(an, bench, model, metrics, plot_id=f"rn-s{bi}-{mi}")
                if svg:
                    out.append(
                        Plot(
                            f"{bench_label(bench)} · {model}: each point is one prompt; the "
                            "line and band are Function-Only's AVG ± STDEV.",
                            svg,
                        )
                    )
    if pairs:
        for pi, vc in enumerate(compare_versions(an, an, pairs)):
            for bi, bench in enumerate(vc.benchmarks):
                svg = version_delta_svg(vc, bench, plot_id=f"rn-v{pi}-{bi}")
                if svg:
                    out.append(Plot(f"{bench_label(bench)}: Δ% of {vc.pair.label}.", svg))
    return out


def artifacts(section: RobunfrSection) -> dict[str, str]:
    """The tables as LaTeX (booktabs) and JSON, written next to the report."""
    payload = {"tables": [t.as_dict() for t in section.tables], "notes": section.notes}
    return {LATEX_FILE: tables_latex(section.tables), JSON_FILE: json_text(payload)}


class RobunfrReportSection:
    """The RobuNFR analysis as a report section (option ``robunfr_plots``, else ``plots``,
    turns the plots on or off)."""

    key = "robunfr"
    title = "RobuNFR analysis"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        plots = bool(ctx.options.get("robunfr_plots", ctx.options.get("plots", True)))
        section = build_section(ctx.meta, ctx.rows, seed=ctx.seed, plots=plots)
        if section is None:
            return None
        values = {"notes": section.notes, "tables": section.tables, "plots": section.plots}
        return SectionOutput(
            key=self.key,
            title=self.title,
            markdown=render_markdown(TABLES_MARKDOWN, **values),
            html=render_html(_HTML, **values),
            artifacts=artifacts(section),
            notes=list(section.notes),
        )


__all__ = [
    "JSON_FILE",
    "LATEX_FILE",
    "RobunfrReportSection",
    "RobunfrSection",
    "artifacts",
    "build_section",
    "version_pairs",
]
