"""The example report section (the report-section contract: ``key`` and ``build(ctx)``)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from statistics import mean
from typing import Any


@dataclass
class _Output:
    """Shaped like ``beyondpass.report.sections.SectionOutput``."""

    key: str
    title: str
    markdown: str
    html: str
    artifacts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _output_class() -> Any:
    try:
        from beyondpass.report.sections import SectionOutput
    except ImportError:  # a beyondpass whose report core predates the contract
        return _Output
    return SectionOutput


class LinesSection:
    key = "example"

    def build(self, ctx: Any) -> Any:
        values = [
            r.result.metrics["code_lines"]
            for r in ctx.rows
            if r.result is not None and "code_lines" in r.result.metrics
        ]
        if not values:
            return None
        text = f"Mean lines of code: {mean(values):.2f} over {len(values)} answers."
        return _output_class()(
            key=self.key,
            title="Lines of code",
            markdown=text + "\n",
            html=f"<p>{html.escape(text)}</p>",
            artifacts={"example-lines.txt": "\n".join(map(str, values)) + "\n"},
            notes=[],
        )
