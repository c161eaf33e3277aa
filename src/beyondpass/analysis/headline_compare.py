"""Every method's headline metrics of two runs, paired unit by unit: what ``compare`` adds
to RobuNFR's version comparison so that every method's metrics can be gated.

For each version pair (old model, new model), each method and each headline cell both runs
have (benchmark x group x metric), the cells are compared on the pairing units both hold
(:func:`beyondpass.analysis.cells.compare_cells`: Wilcoxon signed-rank on the units' values,
the paired and Welch t-tests beside it), and the p-values are Holm-adjusted within each
metric across pairs, benchmarks and groups, as RobuNFR's comparison does. The result is one
:class:`~beyondpass.analysis.regression.VersionComparison` per pair and method, so the
changes, trade-offs, inconsistencies and the ``--fail-on`` gate read them like RobuNFR's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.analysis.cells import DEFAULT_ALPHA, Comparison, adjust, compare_cells
from beyondpass.analysis.headline import ALL_CONDITIONS, HeadlineCell, headline_cells
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

    @classmethod
    def of(
        cls, name: str, meta: Mapping[str, Any], rows: Sequence[Row], *, seed: int, alpha: float
    ) -> RunHeadlines:
        cells = headline_cells(rows, meta, seed=seed)
        return cls(name, meta, {(c.method, c.metric, c.benchmark, c.group, c.model): c
                                for c in cells}, alpha)  # fmt: skip


def group_of(key: str) -> HeadlineGroup:
    if key == ALL_CONDITIONS:
        return HeadlineGroup(key, "all conditions")
    return HeadlineGroup(key, key or "(no condition)")


def compare_headlines(
    old: RunHeadlines,
    new: RunHeadlines,
    pairs: Sequence[VersionPair],
    *,
    skip: Collection[str] = (),
) -> list[VersionComparison]:
    """One comparison per pair and method of every headline cell both runs have, except the
    metrics in ``skip`` (those RobuNFR's version comparison already compares)."""
    out: list[VersionComparison] = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for pair in pairs:
        by_method: dict[str, VersionComparison] = {}
        for (method, metric, bench, group, model), cell in old.cells.items():
            if model != pair.old_model or metric in skip:
                continue
            other = new.cells.get((method, metric, bench, group, pair.new_model))
            if other is None:
                continue
            vc = by_method.setdefault(method, VersionComparison(pair, old, new, method=method))
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


__all__ = ["HeadlineGroup", "RunHeadlines", "compare_headlines", "group_of"]
