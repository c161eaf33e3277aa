"""A format-independent table model for paper tables.

Analysis builds :class:`PaperTable` objects holding both the printed text of every cell and
the numbers behind it; ``report.paper_tables`` renders them as Markdown, LaTeX (booktabs) and
HTML, and ``as_dict`` gives JSON. One model for every format means the numbers in the paper's
LaTeX, the HTML report and the JSON can never disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

#: Appended to a Δ when the difference is significant (Holm-adjusted, within the table).
SIG_MARK = "*"
MISSING = "—"


@dataclass
class Cell:
    """One table cell: its text and, where it shows a number, the number(s) behind it."""

    text: str
    value: float | None = None  # the main number as shown (e.g. pass@1 in %)
    sd: float | None = None
    delta_pct: float | None = None
    p: float | None = None  # Holm-adjusted p of the primary paired test
    significant: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        for key in ("value", "sd", "delta_pct", "p"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v if math.isfinite(v) else None
        if self.significant:
            out["significant"] = True
        if self.extra:
            out.update(self.extra)
        return out


@dataclass
class PaperTable:
    """A titled table; ``groups`` are spanning headers over the columns (label, width)."""

    key: str
    title: str
    caption: str
    header: list[str]
    align: list[str]  # "l" or "r" per column
    rows: list[list[Cell]]
    groups: list[tuple[str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "caption": self.caption,
            "groups": [list(g) for g in self.groups],
            "header": self.header,
            "rows": [[c.as_dict() for c in row] for row in self.rows],
            "notes": self.notes,
        }

    def column(self, name: str, group: str | None = None) -> int:
        """Index of a column by header (and spanning group), for readers and tests."""
        start = 0
        spans: list[tuple[str, int, int]] = []
        for label, width in self.groups:
            spans.append((label, start, start + width))
            start += width
        for i, h in enumerate(self.header):
            if h != name:
                continue
            if group is None or any(lbl == group and a <= i < b for lbl, a, b in spans):
                return i
        raise KeyError(f"{self.key}: no column {name!r}" + (f" under {group!r}" if group else ""))


def text_cell(text: str) -> Cell:
    return Cell(text)


def fmt_num(value: float | None, decimals: int) -> str:
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value:.{decimals}f}"


def fmt_delta(delta_pct: float | None, significant: bool = False, decimals: int = 2) -> str:
    if delta_pct is None or not math.isfinite(delta_pct):
        return MISSING
    return f"{delta_pct:+.{decimals}f}" + (SIG_MARK if significant else "")


def fmt_pct(fraction: float) -> str:
    """A fraction as a percentage with two decimals, without the sign (``0.5`` -> ``50.00``)."""
    return f"{fraction * 100:.2f}"


#: Display names of the benchmarks several methods share.
BENCHMARK_LABELS = {
    "humaneval": "HumanEval",
    "humaneval-et": "HumanEval-ET",
    "mbpp": "MBPP",
    "mbpp-et": "MBPP-ET",
}


def bench_label(name: str) -> str:
    return BENCHMARK_LABELS.get(name, name)


__all__ = [
    "BENCHMARK_LABELS",
    "MISSING",
    "SIG_MARK",
    "Cell",
    "PaperTable",
    "bench_label",
    "fmt_delta",
    "fmt_num",
    "fmt_pct",
    "text_cell",
]
