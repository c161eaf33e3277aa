"""Table 1's cell, as the seed draws it: a model's lowest and highest score on one benchmark
over its prompt conditions, each end marked with its condition (``12.2^1S – 31.3^CoCo``).

One builder for every Table 1 the method prints: the report's section (DiffBLEU, DiffBLEU x
oracle and the runtime columns of a study run) and ``nofuneval table1``'s tables of the
published generations, beside the paper's own cells.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from beyondpass.analysis.formatting import MISSING

#: prompt condition -> the superscript the seed's Table 1 gives it
PROMPT_MARKS = {"base_prompt": "B", "one_shot": "1S", "chain_of_thought": "CoT",
                "coding_concepts": "CoCo"}  # fmt: skip


@dataclass(frozen=True)
class Span:
    """A Table 1 cell: a model's lowest and highest score on one benchmark over its prompt
    conditions, and the condition of each (the seed marks them, e.g. ``12.2^1S – 31.3^CoCo``)."""

    low: float
    low_at: str
    high: float
    high_at: str

    def text(self, fmt: Callable[[float], str]) -> str:
        def mark(condition: str) -> str:
            return PROMPT_MARKS.get(condition, condition)

        return f"{fmt(self.low)}^{mark(self.low_at)} – {fmt(self.high)}^{mark(self.high_at)}"


def span(values: Mapping[str, float | None]) -> Span | None:
    """The span of condition -> score (missing and NaN scores left out; the first condition
    in order wins a tie), or None when no condition has a score."""
    known = {c: v for c, v in values.items() if v is not None and not math.isnan(v)}
    if not known:
        return None
    low = min(known, key=lambda c: known[c])
    high = max(known, key=lambda c: known[c])
    return Span(known[low], low, known[high], high)


def table1_cells(
    scores: Mapping[tuple[str, str, str], float],
    models: Sequence[str],
    benches: Sequence[str],
    fmt: Callable[[float], str],
) -> list[list[str]]:
    """Table 1's body, one row per model and a cell per benchmark: the span of
    (model, benchmark, condition) -> score over conditions. The one builder of Table 1's
    cells, for the report's section and for ``nofuneval table1``'s table alike."""
    by: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (model, bench, condition), value in scores.items():
        by[(model, bench)][condition] = value
    rows = []
    for m in models:
        cells = [span(by.get((m, b), {})) for b in benches]
        rows.append([m, *(MISSING if c is None else c.text(fmt) for c in cells)])
    return rows
