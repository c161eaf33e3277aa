"""The profile section of a report: every method's headline metrics side by side.

For a run that spans several methods (a profile study's arms, or any run whose samples
several methods score), one table with a row per method, metric, benchmark and prompt
condition and a column per model — each value with its 95% bootstrap CI over the metric's
pairing units (:mod:`beyondpass.analysis.headline`) — and one figure of the same values,
one panel line per row, so a team sees a model's whole profile at once. Each method's row
links to that method's own section of the report.
"""

from __future__ import annotations

from collections.abc import Sequence

from beyondpass.analysis.formatting import MISSING, bench_label
from beyondpass.analysis.headline import HeadlineCell, arm_of, headline_cells
from beyondpass.analysis.metrics import metric_def
from beyondpass.analysis.ordering import natural_key
from beyondpass.report.plots import MODEL_COLORS, figure_svg, new_figure
from beyondpass.report.render import render_html, render_markdown
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Cell, Table, to_latex

_CORE = "core"
_HTML = """\
<p>{{ note }}</p>
{% if links %}<p>Each method's own section:
{% for title, key in links %}<a href="#{{ key }}">{{ title }}</a>{{ " · " if not loop.last }}
{% endfor %}</p>{% endif %}
{{ table|html_table }}
{% if plot %}<figure>{{ plot|safe }}
<figcaption class="muted">{{ caption }}</figcaption></figure>{% endif %}
"""
_MARKDOWN = """\
{{ note }}

{{ table|md_table }}
"""

Row = tuple[str, str, str, str]  # method, metric, benchmark, group


def _value(cell: HeadlineCell | None) -> Cell:
    if cell is None or cell.stats.avg is None:
        return Cell(MISSING)
    d = metric_def(cell.metric).decimals
    text = f"{cell.stats.avg:.{d}f}"
    if cell.stats.ci:
        lo, hi = cell.stats.ci
        text += f" [{lo:.{d}f}, {hi:.{d}f}]"
    return Cell(text, cell.stats.avg)


def profile_table(
    cells: Sequence[HeadlineCell], models: Sequence[str], meta: dict, rows: Sequence[Row]
) -> Table:
    by_key = {(c.method, c.metric, c.benchmark, c.group, c.model): c for c in cells}
    arms = any(arm_of(meta, b, g) for _, _, b, g in rows)
    out = []
    for method, metric, bench, group in rows:
        d = metric_def(metric)
        unit = f" ({d.unit})" if d.unit else ""
        head = [Cell(method), Cell(f"{d.label}{unit}")]
        head += [Cell(arm_of(meta, bench, group))] if arms else []
        head += [Cell(bench_label(bench)), Cell(group or MISSING)]
        out.append(head + [_value(by_key.get((method, metric, bench, group, m))) for m in models])
    return Table(
        key="profile-table",
        title="Profile: every method's headline metrics",
        caption="value [95% bootstrap CI over the metric's pairing units: task, question or "
        "row]; shares in %.",
        header=[
            "Method",
            "Metric",
            *(["Arm"] if arms else []),
            "Benchmark",
            "Condition",
            *models,
        ],  # fmt: skip
        align=["l", "l", *(["l"] if arms else []), "l", "l", *("r" for _ in models)],
        rows=out,
    )


def profile_svg(
    cells: Sequence[HeadlineCell], models: Sequence[str], rows: Sequence[Row], plot_id: str
) -> str:
    """One line per row, each on its own scale: a dot per model with its CI."""
    by_key = {(c.method, c.metric, c.benchmark, c.group, c.model): c for c in cells}
    with new_figure((7.5, 0.6 + 0.45 * len(rows))) as fig:
        axes = fig.subplots(len(rows), 1, squeeze=False)[:, 0]
        for ax, (method, metric, bench, group) in zip(axes, rows, strict=True):
            for i, model in enumerate(models):
                cell = by_key.get((method, metric, bench, group, model))
                if cell is None or cell.stats.avg is None:
                    continue
                v = cell.stats.avg
                lo, hi = cell.stats.ci or (v, v)
                color = MODEL_COLORS[i % len(MODEL_COLORS)]
                y = -0.25 + 0.5 * i / max(1, len(models) - 1) if len(models) > 1 else 0.0
                ax.errorbar([v], [y], xerr=[[max(v - lo, 0.0)], [max(hi - v, 0.0)]], fmt="o",
                            color=color, ms=4, capsize=2, lw=1, label=model)  # fmt: skip
            label = f"{metric_def(metric).label} · {bench_label(bench)}"
            label += f" · {group}" if group else ""
            ax.set_yticks([0], [label[:60]])
            ax.set_ylim(-0.6, 0.6)
            ax.spines[["top", "right", "left"]].set_visible(False)
            ax.tick_params(axis="x", labelsize=7)
            if not ax.has_data():
                ax.set_xticks([])
        if len(models) > 1:
            handles, labels = axes[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="upper center", ncol=min(4, len(models)),
                       frameon=False, fontsize=8)  # fmt: skip
        fig.subplots_adjust(hspace=0.9)
        return figure_svg(fig, plot_id)


def _order(cells: Sequence[HeadlineCell], methods: Sequence[str]) -> list[Row]:
    keys = {(c.method, c.metric, c.benchmark, c.group) for c in cells}
    rank = {m: i for i, m in enumerate(methods)}
    metric_rank: dict[str, int] = {}
    for c in cells:
        metric_rank.setdefault(c.metric, len(metric_rank))
    return sorted(
        keys,
        key=lambda k: (rank.get(k[0], 99), metric_rank[k[1]], natural_key(k[2]), natural_key(k[3])),
    )


class ProfileSection:
    """Shown for a run with several arms or several methods' headline metrics."""

    key = "profile"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        from beyondpass.registry import methods, resolve

        cells = headline_cells(ctx.rows, ctx.meta, seed=ctx.seed)
        owners = {c.method for c in cells} - {_CORE}
        if not cells or (len(owners) < 2 and not ctx.meta.get("arms")):
            return None
        order = list(methods())
        rows = _order(cells, order)
        models = [m for m in ctx.order("models") if any(c.model == m for c in cells)]
        links = []
        for name in order:
            refs = methods()[name].report_sections if name in owners else ()
            if refs:
                section = resolve(refs[0], methods()[name], needs_extra=False)
                first = next(c.benchmark for c in cells if c.method == name)
                inline = getattr(section, "inline", False)  # its tables sit in the results
                links.append((name, ctx.benchmark_anchor(first) if inline else section.key))
        table = profile_table(cells, models, ctx.meta, rows)
        shown = {c.method for c in cells}
        note = (
            f"{len(rows)} rows of headline metrics of {len(shown)} method(s) for "
            f"{len(models)} model(s); `beyondpass compare OLD NEW --fail-on METRIC:LIMIT` "
            "gates any of them."
        )
        plots = bool(ctx.options.get("plots", True))
        plot = profile_svg(cells, models, rows, "profile-plot") if plots else ""
        return SectionOutput(
            key=self.key,
            title="Profile",
            markdown=render_markdown(_MARKDOWN, note=note, table=table),
            html=render_html(
                _HTML, note=note, table=table, links=links, plot=plot, caption=table.caption
            ),  # fmt: skip
            artifacts={"profile-table.tex": to_latex(table, environment=None)},
        )
