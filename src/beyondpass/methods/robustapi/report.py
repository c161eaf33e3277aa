"""RobustAPI's part of a run's report: API misuse metrics per prompt setting, in both
checker semantics, with breakdowns by domain and API and the seed's Figure 3.

Shown inside each benchmark's results (after its main table) for runs whose samples carry
RobustAPI verdicts; runs of other methods get nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from beyondpass.analysis.formatting import percent
from beyondpass.methods.robustapi.analysis import summarize_rows as summarize_misuse
from beyondpass.report.plots import figure_svg, new_figure, short_label, zero_nan
from beyondpass.report.render import render_html, render_markdown
from beyondpass.report.sections import Fragment, ReportContext, SectionOutput
from beyondpass.report.table import Table, text_rows
from beyondpass.store.run_store import Row

_MARKDOWN = """\
### API misuse: {{ name|md }}

{{ t.note|md }}

{{ t.main|md_table }}

By domain:

{{ t.domains|md_table }}

By API:

{{ t.apis|md_table }}
"""

_HTML = """\
<h3>API misuse (RobustAPI)</h3>
<p class="muted">{{ t.note }}</p>
{{ t.main|html_table }}
<figure>{{ t.svg|safe }}<figcaption class="muted">API misuse rate among answers with \
executable code (red: beyondpass's checker; hatched: the published checker's semantics) and \
share of answers without executable code (white, dotted), per prompt setting.</figcaption></figure>
<h4>By domain</h4>
{{ t.domains|html_table }}
<h4>By API</h4>
{{ t.apis|html_table }}
"""


@dataclass
class MisuseTables:
    """One benchmark's misuse tables: per group, by domain, by API, and the plot."""

    main: Table
    note: str
    domains: Table
    apis: Table
    svg: str


def misuse_tables(
    rows: Sequence[Row], group_order: Sequence[tuple[str, str]], *, plot_id: str
) -> MisuseTables | None:
    """RobustAPI's metrics (seed: API misuse rate, executable %, overall misuse %) per
    (model, setting) in ``group_order``; None when no sample has a RobustAPI verdict."""
    order = {key: i for i, key in enumerate(group_order)}
    groups = sorted(
        summarize_misuse(rows), key=lambda g: order.get((g.model, g.condition), len(order))
    )
    if not groups:
        return None

    header = ["Model", "Setting", "Answers", "Misuse", "Pass", "Unparsable", "No code"]
    header += [
        "Misuse rate (%)",
        "Executable (%)",
        "Overall misuse (%)",
        "Misuse rate, original (%)",
    ]
    header += ["Executable, original (%)"]
    rows_out = []
    for g in groups:
        c, o = g.correct.total, g.original.total
        rows_out.append(
            [g.model, g.condition, str(c.n), str(c.n_misuse), str(c.n_pass)]
            + [str(c.n_unparsable), str(c.n_no_code), percent(c.misuse_rate)]
            + [percent(c.executable_rate), percent(c.overall_misuse_rate), percent(o.misuse_rate)]
            + [percent(o.executable_rate)]
        )
    main = Table(header, text_rows(rows_out), ["l", "l"] + ["r"] * (len(header) - 2))
    note = (
        "Misuse rate = misuse / (misuse + pass), over answers with executable code; executable "
        "= (misuse + pass) / answers; overall misuse = misuse / answers. The verdict is "
        "beyondpass's checker (a usage that satisfies the rules passes); 'original' reads the "
        "same answers with the published checker's semantics (every call a rule covers counts "
        "as misuse, empty code is unparsable). See docs/robustapi.md."
    )

    def breakdown(key: str) -> Table:
        names = sorted({n for g in groups for n in getattr(g.correct, key)})
        head = ["Model", "Setting", "Group", "Answers", "Misuse", "Pass", "Not executable"]
        head += ["Misuse rate (%)", "Misuse rate, original (%)"]
        out = []
        for g in groups:
            for name in names:
                c = getattr(g.correct, key).get(name)
                o = getattr(g.original, key).get(name)
                if c is None:
                    continue
                out.append(
                    [g.model, g.condition, name, str(c.n), str(c.n_misuse), str(c.n_pass)]
                    + [str(c.n_unparsable + c.n_no_code), percent(c.misuse_rate)]
                    + [percent(o.misuse_rate if o is not None else None)]
                )
        return Table(head, text_rows(out), ["l", "l", "l"] + ["r"] * (len(head) - 3))

    return MisuseTables(
        main, note, breakdown("by_domain"), breakdown("by_api"), misuse_svg(groups, plot_id=plot_id)
    )


def misuse_svg(groups: Sequence[Any], *, plot_id: str = "mu") -> str:
    """The seed's Figure 3: per prompt setting, each model's API misuse rate (red; hatched:
    the original checker's semantics) and its share of non-executable answers (white,
    dotted outline). ``groups`` are :class:`MisuseGroup`."""
    if not groups:
        return ""
    settings: list[str] = []
    models: list[str] = []
    for g in groups:
        if g.condition not in settings:
            settings.append(g.condition)
        if g.model not in models:
            models.append(g.model)
    by_key = {(g.model, g.condition): g for g in groups}

    def pct(value: float | None) -> float:
        return math.nan if value is None else 100 * value

    width = max(4.0, 1.2 + 1.1 * len(models)) * len(settings)
    with new_figure((min(width, 14.0), 3.6)) as fig:
        axes = fig.subplots(1, len(settings), sharey=True, squeeze=False)[0]
        for ax, setting in zip(axes, settings, strict=True):
            xs = list(range(len(models)))
            bars = [by_key.get((m, setting)) for m in models]
            correct = [pct(b.correct.total.misuse_rate) if b else math.nan for b in bars]
            original = [pct(b.original.total.misuse_rate) if b else math.nan for b in bars]
            non_exec = [100 - pct(b.correct.total.executable_rate) if b else math.nan for b in bars]
            w = 0.26
            ax.bar([x - w for x in xs], zero_nan(correct), w, color="#d64541", label="misuse rate")
            ax.bar(
                xs,
                zero_nan(original),
                w,
                color="#f2b5b3",
                hatch="///",
                edgecolor="#d64541",
                linewidth=0.5,
                label="misuse rate (original checker)",
            )
            ax.bar(
                [x + w for x in xs],
                zero_nan(non_exec),
                w,
                color="white",
                edgecolor="#444444",
                linestyle=":",
                linewidth=1.0,
                label="not executable",
            )
            for x, v in zip(xs, correct, strict=True):
                if not math.isnan(v):
                    ax.text(x - w, v + 1.5, f"{v:.0f}", ha="center", fontsize=7)
            ax.set_title(setting, fontsize=9)
            ax.set_xticks(xs, [short_label(m) for m in models], rotation=20, ha="right")
            ax.set_ylim(0, 105)
            ax.spines[["top", "right"]].set_visible(False)
            ax.grid(axis="y", color="#e5e5e5", lw=0.6)
            ax.set_axisbelow(True)
        axes[0].set_ylabel("% of answers")
        axes[0].legend(loc="upper left", frameon=False, fontsize=7)
        return figure_svg(fig, plot_id)


class MisuseReportSection:
    """API misuse tables inside each benchmark's results (no section of its own)."""

    key = "robustapi-misuse"
    title = "API misuse (RobustAPI)"
    inline = True  # shown inside each benchmark's results: links go there

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        models, conditions = ctx.order("models"), ctx.order("conditions")
        groups = [(m, c) for m in models for c in conditions]
        parts: dict[str, Fragment] = {}
        for bench in ctx.order("benchmarks"):
            rows = [r for r in ctx.rows if r.sample.benchmark == bench]
            tables = misuse_tables(rows, groups, plot_id=f"{ctx.benchmark_anchor(bench)}-mu")
            if tables is None:
                continue
            values = {"name": bench, "t": tables}
            parts[bench] = Fragment(
                render_markdown(_MARKDOWN, **values),
                render_html(_HTML, **values),
            )
        if not parts:
            return None
        return SectionOutput(self.key, self.title, "", "", benchmark_parts=parts)


__all__ = ["MisuseReportSection", "MisuseTables", "misuse_svg", "misuse_tables"]
