"""NoFunEval's report sections, shaped like the seed's Table 1 and Table 2.

Table 1 (NoFunEdit): one row per model, one column per edit benchmark; a cell is the lowest
and highest DiffBLEU score@1 over the run's prompt conditions (Base, 1-Shot, CoT, CoCo), as
the seed reports the spread over prompts. score@1 of a condition: the mean over tasks of
each task's mean DiffBLEU over its samples.

Table 2 (NoFunClassify, HumanEvalClassify): one row per model, one column per requirement,
then NoFunClassify micro-averaged over the requirements present, then HumanEvalClassify. An
example is correct only when the answers to both orderings of the pair (same sample index)
name the right program; a pair missing an ordering is left out and counted in a note. A
task's accuracy is the mean over its sample indexes (one with greedy decoding). The parse
rate (answers a choice could be read from) is a second table of the same shape.

Markdown, HTML (escaped, with a plot unless the ``plots`` option is off) and LaTeX artifacts.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from beyondpass.methods.nofuneval.classify_evaluator import ordering_of
from beyondpass.methods.nofuneval.plots import accuracy_svg, diffbleu_range_svg
from beyondpass.methods.nofuneval.runtime_columns import RUNTIME_NOTE, runtime_columns
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


def _plots_on(ctx: ReportContext) -> bool:
    return bool(ctx.options.get("nofuneval_plots", ctx.options.get("plots", True)))


@dataclass
class _Table:
    head: list[str]
    rows: list[list[str]]

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.head) + " |", "|" + "---|" * len(self.head)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in self.rows]) + "\n"

    def html(self) -> str:
        esc = html.escape
        head = "".join(f"<th>{esc(h)}</th>" for h in self.head)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in self.rows
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    def latex(self) -> str:
        return (
            "\n".join(
                [
                    "\\begin{tabular}{l" + "c" * (len(self.head) - 1) + "}",
                    " & ".join(_tex(h) for h in self.head) + " \\\\ \\hline",
                    *(" & ".join(_tex(c) for c in r) + " \\\\" for r in self.rows),
                    "\\end{tabular}",
                ]
            )
            + "\n"
        )


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
        # runtime-efficiency columns (Speedup/Correct/Improved@k): runtime_columns.py
        rt_head, rt_cells = runtime_columns(ctx.rows, models, benches)
        table = _Table(
            ["model", *benches, *rt_head],
            [[m, *(cells[(m, b)] for b in benches), *rt_cells[m]] for m in models],
        )
        note = "DiffBLEU score@1, min-max over prompt conditions (seed Table 1 layout)."
        if rt_head:
            note += RUNTIME_NOTE
        plot = diffbleu_range_svg(benches, models, scores) if _plots_on(ctx) else ""
        return SectionOutput(
            key=self.key,
            title="NoFunEdit (DiffBLEU)",
            markdown=note + "\n\n" + table.markdown(),
            html=f"<p>{html.escape(note)}</p>{table.html()}" + _figure(plot, note),
            artifacts={"nofuneval-table1.tex": table.latex()},
        )


# -- Table 2 -------------------------------------------------------------------------------
#: benchmark -> Table 2 column, in the seed's order
REQUIREMENT_COLUMNS = {
    "nofuneval-classify-latency": "Latency",
    "nofuneval-classify-resource_util": "Resource Util.",
    "nofuneval-classify-runtime_efficiency": "RunTime Efficiency",
    "nofuneval-classify-maintainability": "Maintainability",
    "nofuneval-classify-security": "Security",
}
MICRO = "NoFunClassify"
HUMANEVAL = "nofuneval-classify"
HUMANEVAL_COLUMN = "HumanEvalClassify"


@dataclass
class ClassifyCell:
    """One model on one requirement: examples, their accuracy, and the parse rate."""

    task_accuracy: dict[str, float] = field(default_factory=dict)  # task -> mean over samples
    answers: int = 0
    parsed: int = 0
    incomplete: int = 0  # pairs with an ordering missing

    @property
    def accuracy(self) -> float | None:
        vals = self.task_accuracy.values()
        return sum(vals) / len(vals) if vals else None

    @property
    def parse_rate(self) -> float | None:
        return self.parsed / self.answers if self.answers else None

    def absorb(self, other: ClassifyCell, prefix: str) -> None:
        self.task_accuracy.update({prefix + t: v for t, v in other.task_accuracy.items()})
        self.answers += other.answers
        self.parsed += other.parsed
        self.incomplete += other.incomplete


def classify_cells(rows: Sequence[Any]) -> dict[tuple[str, str], ClassifyCell]:
    """(model, benchmark) -> its cell, from rows scored by the ``nofuneval-classify``
    evaluator; the ``NoFunClassify`` micro-average pools every requirement's examples."""
    pairs: dict[tuple[str, str, str, int], dict[str, bool]] = defaultdict(dict)
    cells: dict[tuple[str, str], ClassifyCell] = defaultdict(ClassifyCell)
    for row in rows:
        metrics = row.result.metrics if row.result is not None else {}
        ordering = ordering_of(row.sample.condition)
        if "choice_correct" not in metrics or ordering is None:
            continue
        s = row.sample
        cell = cells[(s.model, s.benchmark)]
        cell.answers += 1
        cell.parsed += bool(metrics.get("choice_parsed"))
        pairs[(s.model, s.benchmark, s.task_id, s.sample_index)][ordering] = bool(
            metrics["choice_correct"]
        )
    per_task: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for (model, bench, task, _), got in pairs.items():
        if len(got) < 2:
            cells[(model, bench)].incomplete += 1
            continue
        per_task[(model, bench, task)].append(all(got.values()))
    for (model, bench, task), oks in per_task.items():
        cells[(model, bench)].task_accuracy[task] = sum(oks) / len(oks)
    for (model, bench), cell in list(cells.items()):
        if bench in REQUIREMENT_COLUMNS:
            cells[(model, MICRO)].absorb(cell, bench + "/")
    return dict(cells)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


class NoFunClassifyTable:
    key = "nofuneval-classify"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        cells = classify_cells(ctx.rows)
        if not cells:
            return None
        present = {b for _, b in cells}
        benches = [b for b in REQUIREMENT_COLUMNS if b in present]
        benches += [
            b
            for b in ctx.order("benchmarks")
            if b in present and b not in REQUIREMENT_COLUMNS and b != HUMANEVAL
        ]
        if MICRO in present:
            benches.append(MICRO)
        if HUMANEVAL in present:
            benches.append(HUMANEVAL)
        names = {**REQUIREMENT_COLUMNS, HUMANEVAL: HUMANEVAL_COLUMN}
        columns = [names.get(b, b) for b in benches]
        head = ["model", *columns]
        models = [m for m in ctx.order("models") if any((m, b) in cells for b in benches)]

        def table(value: str) -> _Table:
            rows = []
            for m in models:
                row = [m]
                for b in benches:
                    cell = cells.get((m, b))
                    row.append(_pct(getattr(cell, value)) if cell else "—")
                rows.append(row)
            return _Table(head, rows)

        acc, parse = table("accuracy"), table("parse_rate")
        note = (
            "Accuracy (%): an example is correct only when the answers to both orderings "
            f"name the right program; {MICRO} is micro-averaged over the requirements shown "
            "(seed Table 2 layout). Parse rate (%): answers from which a choice was read."
        )
        incomplete = sum(c.incomplete for (_, b), c in cells.items() if b != MICRO)
        notes = (
            [f"{incomplete} pair(s) with an ordering not answered are left out."]
            if incomplete
            else []
        )
        accuracy: dict[tuple[str, str], float] = {}
        for m in models:
            for b in benches:
                value = cells[(m, b)].accuracy if (m, b) in cells else None
                if value is not None:
                    accuracy[(m, names.get(b, b))] = value
        plot = accuracy_svg(columns, models, accuracy) if _plots_on(ctx) else ""
        extra = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
        return SectionOutput(
            key=self.key,
            title="NoFunClassify and HumanEvalClassify (accuracy)",
            markdown="\n\n".join(
                [note, acc.markdown(), "Parse rate (%):", parse.markdown(), *notes]
            )
            + "\n",
            html=f"<p>{html.escape(note)}</p>{acc.html()}<p>Parse rate (%)</p>{parse.html()}"
            + extra
            + _figure(plot, "Classification accuracy per requirement and model."),
            artifacts={
                "nofuneval-table2.tex": acc.latex(),
                "nofuneval-table2-parse.tex": parse.latex(),
            },
            notes=notes,
        )


def _figure(svg: str, caption: str) -> str:
    if not svg:
        return ""
    return f'<figure>{svg}<figcaption class="muted">{html.escape(caption)}</figcaption></figure>'


_TEX = {"\\": "\\textbackslash{}", **{c: "\\" + c for c in "&%$#_{}"}}


def _tex(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in text)
