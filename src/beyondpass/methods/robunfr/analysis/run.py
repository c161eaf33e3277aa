"""The RobuNFR analysis of one run: every cell and every comparison with Function-Only."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from beyondpass.analysis.cells import (
    DEFAULT_ALPHA,
    CellStats,
    Comparison,
    adjust,
    cell_stats,
    compare_cells,
)
from beyondpass.methods.robunfr.analysis.data import Group, RunData
from beyondpass.methods.robunfr.analysis.metrics import NFR_METRICS, PASS
from beyondpass.store.run_store import Row


@dataclass
class Analysis:
    """Every cell and every comparison against Function-Only, computed once."""

    data: RunData
    seed: int = 0
    alpha: float = DEFAULT_ALPHA
    cells: dict[tuple[str, str, str, str], CellStats] = field(default_factory=dict)
    vs_baseline: dict[tuple[str, str, str, str], Comparison] = field(default_factory=dict)

    def cell(self, bench: str, model: str, group: Group, metric: str) -> CellStats:
        key = (bench, model, group.key, metric)
        if key not in self.cells:
            m = self.data.matrix(bench, model, group, metric)
            self.cells[key] = cell_stats(m, metric, seed=self.seed)
        return self.cells[key]

    def metrics(self) -> list[str]:
        return [PASS] + [m for m in NFR_METRICS if self.data.has_metric(m)]

    def compute(self) -> Analysis:
        fo = self.data.function_only
        if fo is None:
            return self
        families: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
        for metric in self.metrics():
            for bench in self.data.benchmarks:
                for model in self.data.models:
                    base = self.cell(bench, model, fo, metric)
                    for g in self.data.design_groups()[1:]:
                        comp = compare_cells(
                            base, self.cell(bench, model, g, metric), alpha=self.alpha
                        )
                        self.vs_baseline[(bench, model, g.key, metric)] = comp
                        families[(g.workflow, metric)].append(comp)
        for family in families.values():
            adjust(family)
        return self


def analyse(
    meta: Mapping[str, Any],
    rows: Iterable[Row],
    *,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    name: str = "run",
) -> Analysis:
    return Analysis(RunData(meta, rows, name), seed=seed, alpha=alpha).compute()


__all__ = ["Analysis", "analyse"]
