"""The NoFunEdit table of a run, shaped like the seed's Table 1.

One row per model, one column per edit benchmark; a cell is the lowest and highest
DiffBLEU score@1 over the run's prompt conditions (Base, 1-Shot, CoT, CoCo), as the seed
reports the spread over prompts. score@1 of a condition: the mean over tasks of each task's
mean DiffBLEU over its samples. Markdown, HTML (escaped) and a LaTeX artifact.
"""

from __future__ import annotations

import html
from collections import defaultdict
from statistics import mean
from typing import Any

from beyondpass.report.sections import ReportContext, SectionOutput


def condition_scores(rows: list[Any]) -> dict[tuple[str, str, str], float]:
    """(model, benchmark, condition) -> DiffBLEU score@1."""
    per_task: dict[tuple[str, str, str], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for row in rows:
        if row.result is None or "diffbleu" not in row.result.metrics:
            continue
        s = row.sample
        per_task[(s.model, s.benchmark, s.condition)][s.task_id].append(
            float(row.result.metrics["diffbleu"])
        )
    return {key: mean(mean(v) for v in tasks.values()) for key, tasks in per_task.items()}


class NoFunEditTable:
    key = "nofuneval"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        scores = condition_scores(ctx.rows)
        if not scores:
            return None
        models = [m for m in ctx.order("models") if any(k[0] == m for k in scores)]
        benches = [b for b in ctx.order("benchmarks") if any(k[1] == b for k in scores)]
        cells: dict[tuple[str, str], str] = {}
        for m in models:
            for b in benches:
                vals = [v for (mm, bb, _), v in scores.items() if mm == m and bb == b]
                cells[(m, b)] = f"{min(vals):.3f}-{max(vals):.3f}" if vals else "—"
        head = ["model", *benches]
        md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        md += ["| " + " | ".join([m, *(cells[(m, b)] for b in benches)]) + " |" for m in models]
        esc = html.escape
        hrow = "".join(f"<th>{esc(h)}</th>" for h in head)
        body = "".join(
            "<tr><td>"
            + esc(m)
            + "</td>"
            + "".join(f"<td>{esc(cells[(m, b)])}</td>" for b in benches)
            + "</tr>"
            for m in models
        )
        latex = "\n".join(
            [
                "\\begin{tabular}{l" + "c" * len(benches) + "}",
                " & ".join(_tex(h) for h in head) + " \\\\ \\hline",
                *(
                    " & ".join([_tex(m), *(cells[(m, b)] for b in benches)]) + " \\\\"
                    for m in models
                ),
                "\\end{tabular}",
            ]
        )
        note = "DiffBLEU score@1, min-max over prompt conditions (seed Table 1 layout)."
        return SectionOutput(
            key=self.key,
            title="NoFunEdit (DiffBLEU)",
            markdown=note + "\n\n" + "\n".join(md) + "\n",
            html=f"<p>{esc(note)}</p><table><tr>{hrow}</tr>{body}</table>",
            artifacts={"nofuneval-table1.tex": latex + "\n"},
        )


_TEX = {"\\": "\\textbackslash{}", **{c: "\\" + c for c in "&%$#_{}"}}


def _tex(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in text)
