"""Every method's headline metrics of two runs, paired unit by unit: what ``compare``
compares and gates, with or without the sections methods add to it.

For each version pair (old model, new model), each method and each headline cell both runs
have (benchmark x group x metric), the cells are compared on the pairing units both hold
(:func:`beyondpass.analysis.cells.compare_cells`: Wilcoxon signed-rank on the units' values,
the paired and Welch t-tests beside it), and the p-values are Holm-adjusted within each
metric across pairs, benchmarks and groups. The result is one
:class:`~beyondpass.analysis.regression.VersionComparison` per pair and method, which the
changes, trade-offs, inconsistencies and the ``--fail-on`` gate read.

Each run's values are read in the reading it was made with (:func:`run_readings`: RobustAPI's
checker semantics, NoFunEval's compat reading), so a headline is the number the run's own
summary prints; two runs made with different readings of a method are not compared unless
asked for (:func:`reading_conflicts`), and then each comparison names both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.analysis.cells import DEFAULT_ALPHA, Comparison, adjust, compare_cells
from beyondpass.analysis.headline import (
    ALL_CONDITIONS,
    HeadlineCell,
    headline_cells,
    reading_text,
    run_readings,
)
from beyondpass.analysis.ordering import natural_key
from beyondpass.analysis.regression import VersionComparison, VersionPair
from beyondpass.store.run_store import Row


@dataclass(frozen=True)
class HeadlineGroup:
    """A group of a headline cell: a prompt condition, or every condition pooled."""

    key: str
    display_label: str
    aliases: tuple[str, ...] = ()


@dataclass
class RunHeadlines:
    """One run's headline cells, keyed (method, metric, benchmark, group, model)."""

    name: str
    meta: Mapping[str, Any]
    cells: dict[tuple[str, str, str, str, str], HeadlineCell] = field(default_factory=dict)
    alpha: float = DEFAULT_ALPHA
    #: per method, the reading its values were read in (:func:`run_readings`)
    readings: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, name: str, meta: Mapping[str, Any], rows: Sequence[Row], *, seed: int, alpha: float
    ) -> RunHeadlines:
        cells = headline_cells(rows, meta, seed=seed)
        keyed = {(c.method, c.metric, c.benchmark, c.group, c.model): c for c in cells}
        return cls(name, meta, keyed, alpha, run_readings(meta))

    def methods(self) -> set[str]:
        return {key[0] for key in self.cells}


def reading_conflicts(old: RunHeadlines, new: RunHeadlines) -> list[str]:
    """One line per method both runs hold whose runs were read differently."""
    out = []
    for method in sorted(old.methods() & new.methods()):
        a, b = old.readings.get(method, {}), new.readings.get(method, {})
        if a != b:
            out.append(
                f"{method}: {old.name} was read with {reading_text(a) or 'its default'}, "
                f"{new.name} with {reading_text(b) or 'its default'}"
            )
    return out


def _reading_label(old: RunHeadlines, new: RunHeadlines, method: str) -> str:
    a = reading_text(old.readings.get(method, {}))
    b = reading_text(new.readings.get(method, {}))
    return a if a == b else f"old {a or 'default'}; new {b or 'default'}"


def group_of(key: str) -> HeadlineGroup:
    if key == ALL_CONDITIONS:
        return HeadlineGroup(key, "all conditions")
    return HeadlineGroup(key, key or "(no condition)")


def compare_headlines(
    old: RunHeadlines,
    new: RunHeadlines,
    pairs: Sequence[VersionPair],
    *,
    skip: Collection[tuple[str, str]] = (),
) -> list[VersionComparison]:
    """One comparison per pair and method of every headline cell both runs have, except the
    (metric, benchmark) pairs in ``skip`` (those a method's ``compare`` section already
    compares). Readings are not checked here: call :func:`reading_conflicts` first."""
    out: list[VersionComparison] = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for pair in pairs:
        by_method: dict[str, VersionComparison] = {}
        for (method, metric, bench, group, model), cell in old.cells.items():
            if model != pair.old_model or (metric, bench) in skip:
                continue
            other = new.cells.get((method, metric, bench, group, pair.new_model))
            if other is None:
                continue
            vc = by_method.get(method)
            if vc is None:
                reading = _reading_label(old, new, method)
                vc = VersionComparison(pair, old, new, method=method, reading=reading)
                by_method[method] = vc
            c = compare_cells(cell.stats, other.stats, alpha=old.alpha)
            vc.comparisons[(bench, group, metric)] = c
            families[metric].append(c)
        for vc in by_method.values():
            keys = vc.comparisons
            vc.benchmarks = sorted({b for b, _, _ in keys}, key=natural_key)
            vc.groups = [group_of(g) for g in sorted({g for _, g, _ in keys}, key=natural_key)]
            vc.metrics = list(dict.fromkeys(m for _, _, m in keys))
            out.append(vc)
    for family in families.values():
        adjust(family)
    return out


__all__ = [
    "HeadlineGroup",
    "RunHeadlines",
    "compare_headlines",
    "group_of",
    "reading_conflicts",
]
