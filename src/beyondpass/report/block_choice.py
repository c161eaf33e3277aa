"""Report part: answers with several candidate blocks, and whether reading the other block
would have changed their verdict.

Which block of a multi-block answer is the program decides its verdict (docs/extraction.md,
"Several candidate blocks"). The ``functional`` evaluator runs the other reading's program
too and records the outcome in the sample's details (``block_choice``); this section counts
those records per benchmark and model, so a reader sees how many verdicts hang on the
choice. A run without such answers shows nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from markupsafe import escape

from beyondpass.evaluators.functional import BLOCK_CHOICE
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Table, text_rows, to_html, to_markdown

NOTE = (
    "Answers with more than one block that could be the program: the block read is the last "
    "one the answer names its answer, else the first; the other reading's program (the last "
    "candidate, or the first when the last was read) was run too. 'changes verdict': it "
    "would have passed where the verdict is a failure, or failed where it is a pass."
)


def block_choice_counts(rows: Iterable[Any]) -> dict[tuple[str, str], Counter[str]]:
    """(benchmark, model) -> samples, multi-block samples, verdicts the other reading
    changes, and of those how many the other reading would have passed."""
    counts: dict[tuple[str, str], Counter[str]] = {}
    for row in rows:
        if row.result is None:
            continue
        tally = counts.setdefault((row.sample.benchmark, row.sample.model), Counter())
        tally["samples"] += 1
        record = row.result.details.get(BLOCK_CHOICE)
        if not isinstance(record, dict):
            continue
        tally["multi_block"] += 1
        if record.get("changes_verdict"):
            tally["changes_verdict"] += 1
            tally["alternative_passes"] += bool(record.get("alternative_passed"))
    return {key: tally for key, tally in counts.items() if tally["multi_block"]}


class BlockChoiceSection:
    """Shown when a sample of the run had several candidate blocks."""

    key = "block-choice"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        counts = block_choice_counts(ctx.rows)
        if not counts:
            return None
        order = {name: i for i, name in enumerate(ctx.order("benchmarks"))}
        head = ["benchmark", "model", "samples", "multi-block", "changes verdict", "of which pass"]
        cells = [
            [bench, model, *(str(t[k]) for k in ("samples", "multi_block", "changes_verdict"))]
            + [str(t["alternative_passes"])]
            for (bench, model), t in sorted(
                counts.items(), key=lambda kv: (order.get(kv[0][0], len(order)), kv[0][1])
            )
        ]
        table = Table(head, text_rows(cells), ["l", "l", "r", "r", "r", "r"])
        return SectionOutput(
            key=self.key,
            title="Answers with several candidate blocks",
            markdown=f"{NOTE}\n\n{to_markdown(table)}\n",
            html=f"<p>{escape(NOTE)}</p>\n{to_html(table)}",
        )


__all__ = ["BlockChoiceSection", "block_choice_counts"]
