"""What ``compare`` reads of a run, and what a method may add to it.

``compare`` itself compares every method's headline metrics
(:mod:`beyondpass.analysis.headline_compare`), which needs nothing but the core. A method
may contribute a :class:`CompareSection` (``Method.compare_sections``): more metrics compared
its own way (RobuNFR: pass@1 and the NFR metrics by its groups), its own tables and plots.
The generic command names no method; it asks the registry for the sections installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from beyondpass.analysis.meta import as_dict
from beyondpass.analysis.ordering import ordered_names
from beyondpass.analysis.regression import VersionComparison, VersionPair
from beyondpass.store.run_store import Row


@dataclass
class ComparedRun:
    """One run as ``compare`` reads it: its metadata, its rows, the seed and alpha used."""

    name: str
    meta: Mapping[str, Any]
    rows: Sequence[Row]
    seed: int
    alpha: float
    models: list[str] = field(init=False)
    benchmarks: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.models = ordered_names(
            list(as_dict(self.meta.get("models"))), {r.sample.model for r in self.rows}
        )
        self.benchmarks = ordered_names(
            list(as_dict(self.meta.get("benchmarks"))), {r.sample.benchmark for r in self.rows}
        )


class CompareSection(Protocol):
    """A method's addition to ``compare``: its comparisons of two runs, tables and plots.

    ``compare`` gives it the version pairs and the metrics asked for beyond the headlines
    (``--fail-on`` rules naming a metric no headline has); its comparisons carry the
    method's name (``VersionComparison.method``), join the headline comparisons for the
    changes, trade-offs, inconsistencies and the gate, and the headline comparison skips the
    metrics it compared. ``tables``/``plots`` get its own comparisons back for ``--out``.
    """

    def compare(
        self,
        old: ComparedRun,
        new: ComparedRun,
        pairs: Sequence[VersionPair],
        asked: Sequence[str],
    ) -> list[VersionComparison]: ...

    def tables(self, vcs: Sequence[VersionComparison]) -> list[Any]: ...

    def plots(self, vcs: Sequence[VersionComparison]) -> list[str]: ...


__all__ = ["ComparedRun", "CompareSection"]
