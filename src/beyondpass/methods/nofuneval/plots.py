"""NoFunEval plots: Table 1 (DiffBLEU or DiffBLEU x oracle, min-max over prompts) and
Table 2 (classification accuracy) as grouped bars, one group per benchmark or requirement,
one bar per model.

Same conventions as :mod:`beyondpass.report.plots`: matplotlib's object API, deterministic
inline SVG.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from beyondpass.report.plots import figure_svg, new_figure, short_label

COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3")


def _bars(
    groups: Sequence[str],
    models: Sequence[str],
    low: Mapping[tuple[str, str], float],
    high: Mapping[tuple[str, str], float],
    *,
    ylabel: str,
    top: float,
    plot_id: str,
) -> str:
    """Bars from ``low`` to ``high`` per (model, group); a bar of height 0 where they meet is
    drawn as a tick, so a single value still shows."""
    if not groups or not models:
        return ""
    with new_figure((min(1.6 + 1.3 * len(groups) * max(1, len(models)) / 2, 12.0), 3.4)) as fig:
        ax = fig.add_subplot()
        width = 0.8 / len(models)
        for k, model in enumerate(models):
            color = COLORS[k % len(COLORS)]
            xs, bottoms, heights = [], [], []
            for i, g in enumerate(groups):
                lo, hi = low.get((model, g), math.nan), high.get((model, g), math.nan)
                if math.isnan(lo) or math.isnan(hi):
                    continue
                xs.append(i - 0.4 + width * (k + 0.5))
                bottoms.append(lo)
                heights.append(max(hi - lo, top / 200))
            ax.bar(xs, heights, width * 0.9, bottom=bottoms, color=color, label=short_label(model))
        ax.set_xticks(range(len(groups)), [short_label(g) for g in groups], rotation=15, ha="right")
        ax.set_ylim(0, top)
        ax.set_ylabel(ylabel)
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="y", color="#e5e5e5", lw=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="upper right", frameon=False, fontsize=7)
        return figure_svg(fig, plot_id)


def diffbleu_range_svg(
    benches: Sequence[str],
    models: Sequence[str],
    scores: Mapping[tuple[str, str, str], float],
    *,
    k: int = 1,
    plot_id: str = "nf-t1",
) -> str:
    """Table 1: each bar spans the lowest to the highest score@k over prompts (DiffBLEU, or
    DiffBLEU x oracle for security and maintainability: both in [0, 1])."""
    low: dict[tuple[str, str], float] = {}
    high: dict[tuple[str, str], float] = {}
    for (m, b, _), v in scores.items():
        low[(m, b)] = min(low.get((m, b), v), v)
        high[(m, b)] = max(high.get((m, b), v), v)
    return _bars(
        benches,
        models,
        low,
        high,
        ylabel=f"score@{k} (min to max over prompts)",
        top=1.0,
        plot_id=plot_id,
    )


def accuracy_svg(
    columns: Sequence[str],
    models: Sequence[str],
    accuracy: Mapping[tuple[str, str], float],
    *,
    plot_id: str = "nf-t2",
) -> str:
    """Table 2: classification accuracy (%) per requirement and model."""
    low = {k: 0.0 for k in accuracy}
    high = {k: 100 * v for k, v in accuracy.items()}
    return _bars(
        columns,
        models,
        low,
        high,
        ylabel="accuracy (%), both orderings right",
        top=100.0,
        plot_id=plot_id,
    )


__all__ = ["accuracy_svg", "diffbleu_range_svg"]
