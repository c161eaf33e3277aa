"""Plots for the HTML report, returned as inline SVG text.

Figures are drawn with matplotlib's object API (``Figure`` saved through its SVG canvas), not
pyplot, so rendering a report never switches the global backend of the calling process. The
output is deterministic (fixed hash salt, no date, ids prefixed per plot) so rendering the
same run twice yields byte-identical files, and it holds no external references (no XML
namespaces, no DOCTYPE, no metadata block) so the page stays self-contained.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from beyondpass.analysis.summary import GroupSummary
from beyondpass.store.run_store import Row

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Verdicts in the order reports show them; anything else follows, then "not evaluated".
STATUS_ORDER: tuple[str, ...] = (
    "passed",
    "failed",
    "error",
    "timeout",
    "no_code",
    "syntax_error",
    "compile_error",
    "memory",
    "output_limit",
    "killed",
    "scored",
)
NOT_EVALUATED = "not evaluated"

STATUS_COLORS: dict[str, str] = {
    "passed": "#2e9e4f",
    "failed": "#d64541",
    "error": "#f08a24",
    "timeout": "#8e5cc4",
    "no_code": "#7f8c8d",
    "syntax_error": "#c9a227",
    "compile_error": "#a0522d",
    "memory": "#1f78b4",
    "output_limit": "#17becf",
    "killed": "#6b3e26",
    "scored": "#95a5a6",
    "correct": "#2e9e4f",
    "wrong": "#d64541",
    "pass": "#2e9e4f",
    "violation": "#d64541",
    "unparsable": "#c9a227",
    NOT_EVALUATED: "#d5d8dc",
}
OTHER_COLOR = "#e377c2"

MODEL_COLORS = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)

PLOT_RC = {
    "svg.hashsalt": "beyondpass-report",
    "svg.fonttype": "none",  # text stays text: smaller, searchable, no embedded glyphs
    "text.parse_math": False,  # labels are data: a "$" must not start mathtext
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
}
_LABEL_CHARS = 60


def status_order(statuses: Iterable[str]) -> list[str]:
    """Known verdicts first in a fixed order, unknown ones sorted, 'not evaluated' last."""
    present = set(statuses)
    known = [s for s in STATUS_ORDER if s in present]
    other = sorted(present - set(STATUS_ORDER) - {NOT_EVALUATED})
    tail = [NOT_EVALUATED] if NOT_EVALUATED in present else []
    return known + other + tail


def status_color(status: str) -> str:
    return STATUS_COLORS.get(status, OTHER_COLOR)


def status_of(row: Row) -> str:
    """A sample's verdict, or :data:`NOT_EVALUATED`."""
    return row.result.status if row.result is not None else NOT_EVALUATED


def css_class(status: str) -> str:
    """The CSS class that colours a verdict (``s-other`` for unknown ones)."""
    if status in STATUS_COLORS:
        return "s-" + re.sub(r"[^a-z0-9]+", "-", status)
    return "s-other"


@contextlib.contextmanager
def new_figure(figsize: tuple[float, float]) -> Iterator[Figure]:
    """A figure in the house style (``PLOT_RC``), for every plot of every report. matplotlib
    is imported here, when a plot is drawn: importing a report module (as ``compare`` and
    the headlines do, for their tables) does not pay for it."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(PLOT_RC):
        yield Figure(figsize=figsize)


def pass1_svg(summaries: Sequence[GroupSummary], *, plot_id: str = "p1") -> str:
    """Horizontal bars of pass@1 per group with the bootstrap CI as error bars."""
    if not summaries:
        return ""
    labels = [_label(s) for s in summaries]
    values = [s.pass_at.get(1, math.nan) * 100 for s in summaries]
    lo_err, hi_err = [], []
    for s, v in zip(summaries, values, strict=True):
        lo, hi = s.pass1_ci
        ok = not (math.isnan(lo) or math.isnan(hi) or math.isnan(v))
        lo_err.append(max(v - lo * 100, 0.0) if ok else 0.0)
        hi_err.append(max(hi * 100 - v, 0.0) if ok else 0.0)
    colors = _model_colors(summaries)
    with new_figure((7.5, 0.9 + 0.38 * len(summaries))) as fig:
        ax = fig.add_subplot()
        ys = list(range(len(summaries)))
        plotted = [0.0 if math.isnan(v) else v for v in values]
        ax.barh(ys, plotted, color=colors, height=0.6)
        ax.errorbar(
            plotted, ys, xerr=[lo_err, hi_err], fmt="none", ecolor="#222222", capsize=3, lw=1
        )
        for y, v, hi in zip(ys, values, hi_err, strict=True):
            text = "n/a" if math.isnan(v) else f"{v:.1f}%"
            ax.text(min((0 if math.isnan(v) else v) + hi + 1.0, 101), y, text, va="center")
        ax.set_yticks(ys, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 110)
        ax.set_xticks(range(0, 101, 20))
        ax.set_xlabel("pass@1 (%) with 95% bootstrap CI over tasks")
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="x", color="#e5e5e5", lw=0.6)
        ax.set_axisbelow(True)
        return figure_svg(fig, plot_id)


def status_svg(summaries: Sequence[GroupSummary], *, plot_id: str = "st") -> str:
    """Stacked horizontal bars: the share of each verdict among a group's samples."""
    if not summaries:
        return ""
    statuses = status_order(k for s in summaries for k in s.status_counts)
    labels = [_label(s) for s in summaries]
    with new_figure((7.5, 1.3 + 0.38 * len(summaries))) as fig:
        ax = fig.add_subplot()
        ys = list(range(len(summaries)))
        left = [0.0] * len(summaries)
        for status in statuses:
            widths = [
                100 * s.status_counts.get(status, 0) / s.n_samples if s.n_samples else 0.0
                for s in summaries
            ]
            ax.barh(
                ys,
                widths,
                left=left,
                height=0.6,
                color=status_color(status),
                label=status,
                edgecolor="white",
                linewidth=0.4,
            )
            left = [a + b for a, b in zip(left, widths, strict=True)]
        ax.set_yticks(ys, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of samples (%)")
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncol=min(len(statuses), 5),
            frameon=False,
            fontsize=8,
        )
        return figure_svg(fig, plot_id)


def zero_nan(values: list[float]) -> list[float]:
    return [0.0 if math.isnan(v) else v for v in values]


def short_label(text: str) -> str:
    return text if len(text) <= 24 else text[:23] + "…"


def _label(s: GroupSummary) -> str:
    text = f"{s.model} / {s.condition}"
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def _model_colors(summaries: Sequence[GroupSummary]) -> list[str]:
    models: list[str] = []
    for s in summaries:
        if s.model not in models:
            models.append(s.model)
    return [MODEL_COLORS[models.index(s.model) % len(MODEL_COLORS)] for s in summaries]


_ID_RE = re.compile(r'\bid="([^"]+)"')


def figure_svg(fig: Figure, plot_id: str) -> str:
    """The figure as inline SVG whose ids all start with ``plot_id``."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return _inline(buf.getvalue(), plot_id)


def _inline(svg: str, plot_id: str) -> str:
    """Make matplotlib's SVG document embeddable: drop prolog, namespaces and metadata, and
    prefix ids so several plots on one page cannot collide."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'<style type="text/css">.*?</style>\s*', "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    ids = set(_ID_RE.findall(svg))
    if ids:
        names = "|".join(re.escape(i) for i in sorted(ids, key=lambda i: (-len(i), i)))
        pattern = re.compile(r'(\bid="|url\(#|href="#)(' + names + r')(["\)])')
        svg = pattern.sub(lambda m: f"{m.group(1)}{plot_id}-{m.group(2)}{m.group(3)}", svg)
    svg = svg.replace("<svg ", f'<svg class="plot" role="img" id="{plot_id}" ', 1)
    return svg.strip() + "\n"
