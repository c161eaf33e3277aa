"""The report-section contract: how a method adds its own part to a run's report.

Report core renders what every run has (results per benchmark, failures, drill-down,
provenance) and then every section from :func:`section_providers`. A section reads the
:class:`ReportContext` and returns a :class:`SectionOutput` (or ``None`` when the run has
nothing for it): Markdown and an HTML fragment shown under its own heading, artifacts written
next to the report, and optionally parts shown inside each benchmark's results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from beyondpass.analysis.meta import as_dict
from beyondpass.analysis.ordering import ordered_names
from beyondpass.store.run_store import Row


@dataclass
class ReportContext:
    """Everything a section may read."""

    meta: dict[str, Any]  # run metadata (study config, conditions, models, ...)
    rows: list[Row]  # store rows (sample + result)
    seed: int  # the study seed (bootstrap etc.)
    out_dir: Path  # report directory (artifacts are written here)
    options: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"plots": True}
    run_dir: Path | None = None  # the run's directory (sections with data files of their own)

    def order(self, kind: str) -> list[str]:
        """``benchmarks``, ``models`` or ``conditions`` of the run, in the report's order."""
        return run_order(self.meta, self.rows, kind)

    def benchmark_anchor(self, benchmark: str) -> str:
        """The HTML id of a benchmark's results (prefix for ids a section puts in them)."""
        return f"b{self.order('benchmarks').index(benchmark) + 1}"


def run_order(meta: Mapping[str, Any], rows: Sequence[Row], kind: str) -> list[str]:
    """``benchmarks``, ``models`` or ``conditions`` of a run, in the report's order (as the
    study lists them, then any others alphabetically)."""
    attr = {"benchmarks": "benchmark", "models": "model", "conditions": "condition"}[kind]
    seen = {getattr(r.sample, attr) for r in rows}
    return ordered_names(list(as_dict(meta.get(kind))), seen)


@dataclass
class Fragment:
    """Markdown and a safe HTML fragment (everything escaped by its producer)."""

    markdown: str
    html: str


@dataclass
class SectionOutput:
    key: str  # stable id, e.g. "robunfr"
    title: str
    markdown: str  # the section's Markdown (no leading title); empty: no own heading
    html: str  # safe HTML fragment (everything escaped by the section)
    artifacts: dict[str, str] = field(default_factory=dict)  # file name -> text
    notes: list[str] = field(default_factory=list)
    # shown inside a benchmark's results, after its main table (benchmark name -> fragment)
    benchmark_parts: dict[str, Fragment] = field(default_factory=dict)


class ReportSection(Protocol):
    key: str

    def build(self, ctx: ReportContext) -> SectionOutput | None: ...  # None: nothing to show


def section_providers() -> Sequence[ReportSection]:
    """Every registered method's report sections, in registration order."""
    from beyondpass import registry

    return [
        registry.resolve(ref, m, needs_extra=False)()
        for ref, m in registry.specs("report_sections")
    ]


__all__ = [
    "Fragment",
    "ReportContext",
    "ReportSection",
    "SectionOutput",
    "run_order",
    "section_providers",
]
