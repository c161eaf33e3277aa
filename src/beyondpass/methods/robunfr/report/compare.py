"""RobuNFR's section of ``beyondpass compare``: its analysis of each run (groups: every
condition pooled, then the design's groups, or each condition of a non-RobuNFR design),
pass@1 and the NFR metrics compared version against version, the seed's Table 4 layout and
the Δ% plots."""

from __future__ import annotations

from collections.abc import Sequence

from beyondpass.analysis.compare_section import ComparedRun
from beyondpass.analysis.regression import VersionComparison, VersionPair
from beyondpass.methods.robunfr.analysis.data import RunData, own_rows
from beyondpass.methods.robunfr.analysis.metrics import NFR_METRICS, PASS
from beyondpass.methods.robunfr.analysis.run import Analysis
from beyondpass.methods.robunfr.analysis.versions import compare_versions, table4
from beyondpass.methods.robunfr.report.plots import version_delta_svg
from beyondpass.report.table import Table

#: what RobuNFR compares in every run (more when a ``--fail-on`` rule asks for it)
DEFAULT_METRICS: tuple[str, ...] = (PASS, *NFR_METRICS)


def _analysis(run: ComparedRun) -> Analysis:
    """RobuNFR's analysis of its own samples: a study's other arms (their smells, their
    pass@1) are their methods' to compare, as in the run's report and the headlines."""
    rows = own_rows(run.meta, run.rows)
    return Analysis(RunData(run.meta, rows, name=run.name), seed=run.seed, alpha=run.alpha)


class RobunfrVersionComparison:
    """Compares two runs of one design, model version against model version."""

    def compare(
        self,
        old: ComparedRun,
        new: ComparedRun,
        pairs: Sequence[VersionPair],
        asked: Sequence[str],
    ) -> list[VersionComparison]:
        metrics = list(dict.fromkeys([*DEFAULT_METRICS, *asked]))
        return compare_versions(_analysis(old), _analysis(new), pairs, groups="all",
                                metrics=metrics)  # fmt: skip

    def tables(self, vcs: Sequence[VersionComparison]) -> list[Table]:
        t4 = table4(vcs)
        t4.title = "Δ of the new version (old AVG ± STDEV, Δ%)"
        return [t4]

    def plots(self, vcs: Sequence[VersionComparison]) -> list[str]:
        return [
            version_delta_svg(vc, b, plot_id=f"cmp{i}-{j}")
            for i, vc in enumerate(vcs)
            for j, b in enumerate(vc.benchmarks)
        ]


__all__ = ["DEFAULT_METRICS", "RobunfrVersionComparison"]
