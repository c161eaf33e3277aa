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
from typing import Any

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
<p>{{ note }} <code>{{ gate }}</code> gates any of them.</p>
{% if links %}<p>Each method's own section:
{% for title, key in links %}<a href="#{{ key }}">{{ title }}</a>{{ " · " if not loop.last }}
{% endfor %}</p>{% endif %}
{{ table|html_table }}
{% if plot %}<figure>{{ plot|safe }}
<figcaption class="muted">{{ caption }}</figcaption></figure>{% endif %}
"""
_MARKDOWN = """\
{{ note }} `{{ gate }}` gates any of them.

{{ table|md_table }}
"""

Row = tuple[str, str, str, str]  # method, metric, benchmark, group
_CAPTION = (
    "Each row on its own scale (the span of its models' 95% CIs): a dot per model with its "
    "CI, its value at the right; rules separate the methods."
)


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
    """One line per row, each on its own scale (the span of its models' CIs): a dot per
    model with its CI, its value written at the right; a rule between methods. One axes
    for every row, so a profile of many rows stays quick to draw."""
    by_key = {(c.method, c.metric, c.benchmark, c.group, c.model): c for c in cells}
    n = len(rows)
    with new_figure((7.5, 0.7 + 0.34 * n)) as fig:
        ax = fig.add_subplot(1, 1, 1)
        labels = []
        for r, (method, metric, bench, group) in enumerate(rows):
            y = n - 1 - r
            found = [
                (i, m, cell)
                for i, m in enumerate(models)
                if (cell := by_key.get((method, metric, bench, group, m))) is not None
                and cell.stats.avg is not None
            ]
            _profile_line(ax, y, found, len(models), first=r == 0)
            if r and method != rows[r - 1][0]:
                ax.axhline(y + 0.5, color="#aab7b8", lw=0.6)
            label = f"{metric_def(metric).label} · {bench_label(bench)}"
            labels.append(label + (f" · {group}" if group else ""))
        ax.set_yticks(range(n), [label[:64] for label in reversed(labels)], fontsize=7)
        ax.set_xticks([])
        ax.set_xlim(-0.04, 1.16)
        ax.set_ylim(-0.7, n - 0.3)
        ax.spines[["top", "right", "left", "bottom"]].set_visible(False)
        ax.tick_params(axis="y", length=0)
        if len(models) > 1:
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(4, len(models)),
                      frameon=False, fontsize=8)  # fmt: skip
        return figure_svg(fig, plot_id)


def _profile_line(
    ax: Any, y: float, found: list[tuple[int, str, HeadlineCell]], n_models: int, *, first: bool
) -> None:
    """One row of the profile figure on its own scale (the span of its models' CIs): each
    model's dot, CI and value."""
    spans = [v for _, _, c in found for v in (c.stats.ci or (c.stats.avg, c.stats.avg))]
    lo, hi = (min(spans), max(spans)) if spans else (0.0, 1.0)
    width = hi - lo

    def x(v: float) -> float:
        return 0.5 if width <= 0 else (v - lo) / width

    ax.plot([0, 1], [y, y], color="#e5e8e8", lw=0.8, zorder=0)
    for i, model, cell in found:
        v = float(cell.stats.avg)  # type: ignore[arg-type]
        low, high = cell.stats.ci or (v, v)
        dy = 0.0 if n_models == 1 else 0.2 - 0.4 * i / (n_models - 1)
        color = MODEL_COLORS[i % len(MODEL_COLORS)]
        error = [[x(v) - x(low)], [x(high) - x(v)]]
        ax.errorbar([x(v)], [y + dy], xerr=error, fmt="o", color=color, ms=3.5, capsize=1.5,
                    lw=0.9, label=model if first else None)  # fmt: skip
        text = f"{v:.{metric_def(cell.metric).decimals}f}"
        ax.text(1.03, y + dy, text, ha="left", va="center", fontsize=6, color=color)


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
            f"{len(models)} model(s); each model's value with its 95% CI."
        )
        gate = "beyondpass compare OLD NEW --fail-on METRIC:LIMIT"
        plots = bool(ctx.options.get("plots", True))
        plot = profile_svg(cells, models, rows, "profile-plot") if plots else ""
        return SectionOutput(
            key=self.key,
            title="Profile",
            markdown=render_markdown(_MARKDOWN, note=note, gate=gate, table=table),
            html=render_html(
                _HTML, note=note, gate=gate, table=table, links=links, plot=plot, caption=_CAPTION
            ),  # fmt: skip
            artifacts={"profile-table.tex": to_latex(table, environment=None)},
        )
