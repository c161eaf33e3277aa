"""What ``beyondpass compare`` takes from RobuNFR: its analysis of a run (groups: every
condition pooled, then the design's groups, or each condition of a non-RobuNFR design), the
paired version comparison, the seed's Table 4 layout and the Δ% plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from beyondpass.analysis.regression import VersionComparison, VersionPair
from beyondpass.methods.robunfr.analysis.data import RunData
from beyondpass.methods.robunfr.analysis.metrics import NFR_METRICS, PASS
from beyondpass.methods.robunfr.analysis.run import Analysis
from beyondpass.methods.robunfr.analysis.versions import compare_versions, table4
from beyondpass.methods.robunfr.report.plots import version_delta_svg
from beyondpass.report.table import Table
from beyondpass.store.run_store import Row


class RobunfrVersionComparison:
    """Compares two runs of one design, model version against model version."""

    default_metrics: tuple[str, ...] = (PASS, *NFR_METRICS)

    def analyse(
        self, meta: Mapping[str, Any], rows: Sequence[Row], *, name: str, seed: int, alpha: float
    ) -> Analysis:
        return Analysis(RunData(meta, rows, name=name), seed=seed, alpha=alpha)

    def compare(
        self, old: Analysis, new: Analysis, pairs: Sequence[VersionPair], metrics: Sequence[str]
    ) -> list[VersionComparison]:
        return compare_versions(old, new, pairs, groups="all", metrics=metrics)

    def table(self, vcs: Sequence[VersionComparison]) -> Table:
        t4 = table4(vcs)
        t4.title = "Δ of the new version (old AVG ± STDEV, Δ%)"
        return t4

    def plots(self, vcs: Sequence[VersionComparison]) -> list[str]:
        return [
            version_delta_svg(vc, b, plot_id=f"cmp{i}-{j}")
            for i, vc in enumerate(vcs)
            for j, b in enumerate(vc.benchmarks)
        ]


__all__ = ["RobunfrVersionComparison"]
