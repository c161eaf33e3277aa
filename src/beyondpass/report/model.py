"""The format-independent report model: both templates render it, so numbers cannot drift."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from beyondpass.report.sections import Fragment, SectionOutput
from beyondpass.report.table import Table


@dataclass(frozen=True)
class ReportPaths:
    """Where the report files were written: ``latex`` and ``tables_json`` are the first LaTeX
    and JSON artifacts of the report sections (e.g. RobuNFR's paper tables), if any."""

    markdown: Path
    html: Path
    latex: Path | None = None
    tables_json: Path | None = None
    artifacts: dict[str, Path] = field(default_factory=dict)


@dataclass
class Clip:
    """A possibly clipped text; ``omitted`` characters were dropped (from the end, or from the
    start when ``tail``)."""

    text: str
    omitted: int = 0
    tail: bool = False


@dataclass
class Mark:
    cls: str
    letter: str
    title: str
    href: str


@dataclass
class Cell:
    marks: list[Mark]
    summary: str  # "passed/evaluated", shown instead of marks for many samples
    style: str
    href: str
    title: str
    compact: bool  # too many samples for one mark each


@dataclass
class MatrixRow:
    task: str
    broken: bool
    reason: str
    disagree: bool
    cells: list[Cell]


@dataclass
class Step:
    title: str
    continued: bool
    messages: list[tuple[str, Clip]]
    answer: Clip | None


@dataclass
class Detail:
    anchor: str
    key: str
    task: str
    broken: bool
    group: str
    index: int
    status: str
    cls: str
    message: str
    facts: list[tuple[str, str]]
    steps: list[Step]
    raw: Clip
    code: Clip
    extraction: list[tuple[str, str]]
    extraction_error: Clip
    extraction_notes: list[str]
    tests: list[dict[str, str]]
    tests_omitted: int
    stdout: Clip
    stderr: Clip
    cost: int = 0


@dataclass
class BenchmarkResults:
    """One benchmark's results: tables, plots, the task matrix and the drill-down."""

    name: str
    anchor: str
    facts: list[tuple[str, str]]
    main: Table
    failures: Table | None  # None: no sample of the benchmark has a pass/fail verdict
    comparison: Table | None
    comparison_note: str
    broken: list[tuple[str, str]]
    groups: list[tuple[str, str]]  # (model, condition) per matrix column
    matrix: list[MatrixRow] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    details_note: str = ""
    pass1_svg: str = ""
    status_svg: str = ""
    parts: list[Fragment] = field(default_factory=list)  # from report sections


@dataclass
class Report:
    title: str
    description: str
    run_facts: list[tuple[str, str]]
    models: Table
    benchmarks: Table
    conditions: Table
    condition_steps: list[tuple[str, list[tuple[str, str]]]]
    sampling: list[tuple[str, str]]
    execution: list[tuple[str, str]]
    environment: list[tuple[str, str]]
    method: list[str]
    sections: list[BenchmarkResults]
    status_colors: list[tuple[str, str, str]]  # status, css class, colour
    details_note: str
    extras: list[SectionOutput] = field(default_factory=list)  # report sections


__all__ = [
    "BenchmarkResults",
    "Cell",
    "Clip",
    "Detail",
    "Mark",
    "MatrixRow",
    "Report",
    "ReportPaths",
    "Step",
]
