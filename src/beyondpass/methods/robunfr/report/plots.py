"""RobuNFR plots: how metrics spread across prompts, and how a new model version moved them.

Same conventions as :mod:`beyondpass.report.plots`: matplotlib's object API, deterministic
inline SVG. Points are spread evenly (no random jitter), so the figure is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from beyondpass.analysis.formatting import bench_label
from beyondpass.analysis.regression import VersionComparison
from beyondpass.methods.robunfr.analysis.metrics import PASS, metric_def
from beyondpass.methods.robunfr.analysis.run import Analysis
from beyondpass.methods.robunfr.prompts import ENHANCED, INTEGRATED, WORKFLOW_LABELS
from beyondpass.report.plots import figure_svg, new_figure

_WORKFLOW_COLORS = {INTEGRATED: "#4c72b0", ENHANCED: "#dd8452"}
_FO_COLOR = "#55a868"


def prompt_spread_svg(
    an: Analysis, bench: str, model: str, metrics: Sequence[str], *, plot_id: str
) -> str:
    """One panel per metric: each NFR's per-prompt values (box + points) per workflow, with
    Function-Only's AVG as a line and its ± STDEV as a band."""
    d = an.data
    fo = d.function_only
    if fo is None or not d.workflows or not metrics:
        return ""
    nfrs = d.nfr_order
    with new_figure((7.5, 2.3 * len(metrics) + 0.4)) as fig:
        axes = fig.subplots(len(metrics), 1, squeeze=False)[:, 0]
        width = 0.8 / len(d.workflows)
        for ax, metric in zip(axes, metrics, strict=True):
            mdef = metric_def(metric)
            base = an.cell(bench, model, fo, metric)
            if base.avg is not None:
                ax.axhline(base.avg, color=_FO_COLOR, lw=1.2, label="Function-Only AVG")
                if base.sd:
                    ax.axhspan(
                        base.avg - base.sd, base.avg + base.sd, color=_FO_COLOR, alpha=0.15, lw=0
                    )
            for k, workflow in enumerate(d.workflows):
                for i, nfr in enumerate(nfrs):
                    g = d.nfr_group(workflow, nfr)
                    if g is None:
                        continue
                    values = an.cell(bench, model, g, metric).unit_values
                    if not values:
                        continue
                    x = i - 0.4 + width * (k + 0.5)
                    ax.boxplot(
                        [values],
                        positions=[x],
                        widths=width * 0.7,
                        showfliers=False,
                        patch_artist=True,
                        boxprops={"facecolor": "white", "edgecolor": _WORKFLOW_COLORS[workflow]},
                        medianprops={"color": _WORKFLOW_COLORS[workflow]},
                        whiskerprops={"color": _WORKFLOW_COLORS[workflow]},
                        capprops={"color": _WORKFLOW_COLORS[workflow]},
                    )
                    n = len(values)
                    spread = [x + width * 0.5 * ((j + 0.5) / n - 0.5) for j in range(n)]
                    ax.scatter(
                        spread,
                        values,
                        s=10,
                        color=_WORKFLOW_COLORS[workflow],
                        zorder=3,
                        label=WORKFLOW_LABELS[workflow] if i == 0 else None,
                    )
            ax.set_xticks(range(len(nfrs)), [d.nfr_labels.get(n, n) for n in nfrs])
            ax.set_xlim(-0.6, len(nfrs) - 0.4)
            unit = " (%)" if metric == PASS else (" (ms)" if metric == "exec_time_ms" else "")
            ax.set_ylabel(mdef.label + unit)
            ax.spines[["top", "right"]].set_visible(False)
            ax.grid(axis="y", color="#e5e5e5", lw=0.6)
            ax.set_axisbelow(True)
        axes[0].legend(
            loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=8
        )
        axes[0].set_title(f"{bench_label(bench)} · {model}: values across prompts", pad=22)
        return figure_svg(fig, plot_id)


def version_delta_svg(vc: VersionComparison, bench: str, *, plot_id: str) -> str:
    """Δ% of the new version per group and metric; significant changes drawn solid."""
    groups = vc.groups
    metrics = vc.metrics
    if not groups or not metrics:
        return ""
    colors = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    with new_figure((7.5, 1.2 + 0.2 * len(groups) * len(metrics))) as fig:
        ax = fig.add_subplot()
        height = 0.8 / len(metrics)
        for k, metric in enumerate(metrics):
            ys, xs, alphas = [], [], []
            for i, g in enumerate(groups):
                c = vc.comparisons.get((bench, g.key, metric))
                if c is None or c.delta_pct is None or not math.isfinite(c.delta_pct):
                    continue
                ys.append(i - 0.4 + height * (k + 0.5))
                xs.append(c.delta_pct)
                alphas.append(1.0 if c.significant else 0.35)
            for y, x, a in zip(ys, xs, alphas, strict=True):
                ax.barh(y, x, height=height * 0.9, color=colors[k % len(colors)], alpha=a)
        labels = [g.label if not g.nfr else f"{g.label} · {g.workflow_label}" for g in groups]
        ax.set_yticks(range(len(groups)), labels)
        ax.invert_yaxis()
        ax.axvline(0, color="#222222", lw=0.8)
        ax.set_xlabel("Δ% of the new version (solid: significant, Holm-adjusted)")
        ax.set_title(f"{bench_label(bench)}: {vc.pair.label}")
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="x", color="#e5e5e5", lw=0.6)
        ax.set_axisbelow(True)
        from matplotlib.patches import Patch  # matplotlib: only when a plot is drawn

        handles = [
            Patch(color=colors[k % len(colors)], label=metric_def(m).label)
            for k, m in enumerate(metrics)
        ]
        ax.legend(handles=handles, loc="best", frameon=False, fontsize=8)
        return figure_svg(fig, plot_id)


__all__ = ["prompt_spread_svg", "version_delta_svg"]
