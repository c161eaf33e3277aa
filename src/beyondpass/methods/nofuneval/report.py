"""NoFunEval's report sections, shaped like the seed's Table 1 and Table 2.

Table 1 (NoFunEdit): one row per model, one column per edit benchmark; a cell is the lowest and
highest score@k,n over the run's prompt conditions (Base, 1-Shot, CoT, CoCo), each marked
with its condition, as the seed reports the spread over prompts (the one builder of those
cells, :mod:`.edit.table1_cells`, also draws ``nofuneval table1``'s Table 1).
The metric is the seed's per requirement: DiffBLEU, and for security and maintainability
DiffBLEU x oracle pass (the ``nofuneval-oracle`` evaluator's ``diffbleu_x_oracle``: each
sample's DiffBLEU times that sample's own verdict). score@k,n of a condition: the mean over
tasks of score@k over each task's n per-sample values (k = 1 by default: the mean; report
option ``nofuneval_k``). Tasks without an oracle have no DiffBLEU x oracle value and are
left out of those cells (counted in a note).

Table 2 (NoFunClassify, HumanEvalClassify): one row per model, one column per requirement,
then NoFunClassify micro-averaged over the requirements present, then HumanEvalClassify. An
example is correct only when the answers to both orderings of the pair (same sample index)
name the right program; a pair missing an ordering is left out and counted in a note. A
task's accuracy is the mean over its sample indexes (one with greedy decoding). The parse
rate (answers a choice could be read from) is a second table of the same shape.

Markdown, HTML (with a plot unless the ``plots`` option is off) and LaTeX artifacts (bare
tabulars), all rendered from one table model (:mod:`beyondpass.report.table`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from beyondpass.analysis.formatting import percent
from beyondpass.methods.nofuneval.classify.evaluator import ordering_of
from beyondpass.methods.nofuneval.edit.runtime_columns import RUNTIME_NOTE, runtime_columns
from beyondpass.methods.nofuneval.edit.samples import score_at_k
from beyondpass.methods.nofuneval.edit.table1_cells import table1_cells
from beyondpass.report.render import render_html
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Table, text_rows, to_latex, to_markdown

TaskValues = dict[str, list[float]]


#: requirements the seed scores with DiffBLEU x CodeQL (here: x the static oracle)
ORACLE_BENCHMARKS = ("nofuneval-security", "nofuneval-maintainability")
DIFFBLEU, ORACLE = "diffbleu", "diffbleu_x_oracle"
METRIC_LABELS = {DIFFBLEU: "DiffBLEU", ORACLE: "DiffBLEU x oracle"}


def task_values(rows: Sequence[Any], metric: str) -> dict[tuple[str, str, str], TaskValues]:
    """(model, benchmark, condition) -> task -> the metric of each of its samples."""
    out: dict[tuple[str, str, str], TaskValues] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row.result is None or metric not in row.result.metrics:
            continue
        s = row.sample
        out[(s.model, s.benchmark, s.condition)][s.task_id].append(
            float(row.result.metrics[metric])
        )
    return out


def condition_scores(
    rows: Sequence[Any], metric: str = DIFFBLEU, k: int = 1
) -> dict[tuple[str, str, str], float]:
    """(model, benchmark, condition) -> score@k,n of ``metric``: per task score@k over its
    n sample values, then the mean over tasks. A condition with a task of fewer than k
    samples has no score@k."""
    out = {}
    for key, tasks in task_values(rows, metric).items():
        if all(len(v) >= k for v in tasks.values()):
            out[key] = mean(score_at_k(v, k) for v in tasks.values())
    return out


def table1_metric(benchmark: str, rows: Sequence[Any]) -> str:
    """The metric Table 1 shows for ``benchmark``: DiffBLEU x oracle for security and
    maintainability when the run has it (the ``nofuneval-oracle`` evaluator ran), else
    DiffBLEU."""
    if benchmark in ORACLE_BENCHMARKS and any(
        r.sample.benchmark == benchmark and r.result is not None and ORACLE in r.result.metrics
        for r in rows
    ):
        return ORACLE
    return DIFFBLEU


def _plots_on(ctx: ReportContext) -> bool:
    return bool(ctx.options.get("nofuneval_plots", ctx.options.get("plots", True)))


_HTML = """\
<p>{{ note }}</p>
{% for t in tables %}{{ t|html_table }}{% endfor %}
{% for n in notes %}<p>{{ n }}</p>{% endfor %}
{% if plot %}<figure>{{ plot|safe }}
<figcaption class="muted">{{ caption }}</figcaption></figure>{% endif %}
"""


def _table(head: list[str], rows: list[list[str]], caption: str = "") -> Table:
    """A model column, then centred score columns (as the seed's tables)."""
    return Table(head, text_rows(rows), ["l"] + ["c"] * (len(head) - 1), caption=caption)


class NoFunEditTable:
    key = "nofuneval"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        k = int(ctx.options.get("nofuneval_k", 1))
        if not any(r.result is not None and DIFFBLEU in r.result.metrics for r in ctx.rows):
            return None
        present = {r.sample.benchmark for r in ctx.rows}
        benches = [b for b in ctx.order("benchmarks") if b in present]
        metrics = {b: table1_metric(b, ctx.rows) for b in benches}
        scores: dict[tuple[str, str, str], float] = {}
        for metric in set(metrics.values()):
            scores.update(
                (key, v)
                for key, v in condition_scores(ctx.rows, metric, k).items()
                if metrics.get(key[1]) == metric
            )
        values = task_values(ctx.rows, DIFFBLEU)
        benches = [b for b in benches if any(key[1] == b for key in values)]
        models = [m for m in ctx.order("models") if any(key[0] == m for key in values)]
        head = ["model", *(f"{b} ({METRIC_LABELS[metrics[b]]})" for b in benches)]
        rows = table1_cells(scores, models, benches, lambda v: f"{v:.3f}")
        # runtime-efficiency columns (Speedup/Correct/Improved@k): edit/runtime_columns.py
        rt_head, rt_cells = runtime_columns(ctx.rows, models, benches)
        table = _table([*head, *rt_head], [[*row, *rt_cells[row[0]]] for row in rows])
        note = (
            f"score@{k},n min – max over prompt conditions, each marked with its condition "
            "(seed Table 1 layout: B, 1S, CoT, CoCo): DiffBLEU; "
            "DiffBLEU x oracle pass for security and maintainability (each sample's DiffBLEU "
            "times its own oracle verdict)."
        )
        if rt_head:
            note += RUNTIME_NOTE
        notes = _table1_notes(ctx.rows, benches, metrics, scores, k)
        plot = ""
        if _plots_on(ctx):  # matplotlib only when a plot is drawn (the headline imports this)
            from beyondpass.methods.nofuneval.plots import diffbleu_range_svg

            plot = diffbleu_range_svg(benches, models, scores, k=k)
        return SectionOutput(
            key=self.key,
            title="NoFunEdit (DiffBLEU, DiffBLEU x oracle)",
            markdown="\n\n".join([note, to_markdown(table), *notes]) + "\n",
            html=render_html(
                _HTML, note=note, tables=[table], notes=notes, plot=plot, caption=note
            ),
            artifacts={"nofuneval-table1.tex": to_latex(table, environment=None)},
            notes=notes,
        )


def _table1_notes(
    rows: Sequence[Any],
    benches: Sequence[str],
    metrics: Mapping[str, str],
    scores: Mapping[tuple[str, str, str], float],
    k: int,
) -> list[str]:
    notes = []
    edited = task_values(rows, DIFFBLEU)
    judged = task_values(rows, ORACLE)
    for b in benches:
        tasks = {t for key, ts in edited.items() if key[1] == b for t in ts}
        if metrics[b] == ORACLE:
            with_oracle = {t for key, ts in judged.items() if key[1] == b for t in ts}
            if len(with_oracle) < len(tasks):
                notes.append(
                    f"{b}: DiffBLEU x oracle over the {len(with_oracle)} of {len(tasks)} tasks "
                    "with an oracle; the others have none and are left out (never a pass)."
                )
        elif b in ORACLE_BENCHMARKS:
            notes.append(
                f"{b}: no oracle verdicts in this run (add the nofuneval-oracle evaluator): "
                "DiffBLEU is shown, not DiffBLEU x oracle."
            )
        short = [key for key in task_values(rows, metrics[b]) if key[1] == b and key not in scores]
        if short:
            notes.append(
                f"{b}: {len(short)} condition(s) with a task of fewer than {k} samples "
                f"have no score@{k}."
            )
    return notes


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

        def table(value: str, caption: str = "") -> Table:
            rows = []
            for m in models:
                row = [m]
                for b in benches:
                    cell = cells.get((m, b))
                    row.append(percent(getattr(cell, value) if cell else None, 1))
                rows.append(row)
            return _table(head, rows, caption)

        acc, parse = table("accuracy"), table("parse_rate", "Parse rate (%)")
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
        plot = ""
        if _plots_on(ctx):
            from beyondpass.methods.nofuneval.plots import accuracy_svg

            plot = accuracy_svg(columns, models, accuracy)
        caption = "Classification accuracy per requirement and model."
        return SectionOutput(
            key=self.key,
            title="NoFunClassify and HumanEvalClassify (accuracy)",
            markdown="\n\n".join([note, to_markdown(acc), to_markdown(parse), *notes]) + "\n",
            html=render_html(
                _HTML, note=note, tables=[acc, parse], notes=notes, plot=plot, caption=caption
            ),
            artifacts={
                "nofuneval-table2.tex": to_latex(acc, environment=None),
                "nofuneval-table2-parse.tex": to_latex(parse, environment=None),
            },
            notes=notes,
        )
