"""The seed's Tables 1-2 as a report section: pass ratios per task and model on edge and
random cases, exact and epsilon, with Diff columns, pass@1, and the failure breakdown.

One table per benchmark and prompt condition (a language is a benchmark). ``Diff`` is the
second model's ratio minus the first's, in percentage points, as the seed's tables show
(positive: the second model did better). Markdown, HTML and LaTeX (``psb2_tables.tex``).
"""

from __future__ import annotations

from collections.abc import Sequence

from beyondpass.analysis.formatting import percent
from beyondpass.methods.psb2.analysis import EPSILON, TaskResult, collect
from beyondpass.methods.psb2.quality_table import (
    MARK,
    WORSE,
    collect_quality,
    language_averages,
    quality_rows,
    quality_table,
)
from beyondpass.report.render import render_html
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Table, text_rows, to_latex, to_markdown

GROUPS = (("edge", False), ("edge", True), ("random", False), ("random", True))
LATEX_FILE = "psb2_tables.tex"

_HTML = """\
<p>{{ note }}</p>
{% for t in tables %}{{ t|html_table }}{% endfor %}
"""


def _diff(a: float | None, b: float | None) -> str:
    return percent(None if a is None or b is None else b - a, sign=True)


def table_rows(models: Sequence[str], results: dict[str, list[TaskResult]]) -> list[list[str]]:
    """Rows: task, then per group each model's ratio (and Diff when two or more models)."""
    by_task = {m: {r.task_id: r for r in results.get(m, [])} for m in models}
    tasks = sorted({t for m in models for t in by_task[m]})
    rows = []
    for task in tasks:
        row = [task]
        for kind, eps in GROUPS:
            vals = [
                by_task[m][task].ratio(kind, eps) if task in by_task[m] else None for m in models
            ]
            row += [percent(v) for v in vals]
            if len(models) >= 2:
                row.append(_diff(vals[0], vals[1]))
        rows.append(row)
    row = ["pass@1 (tasks)"]
    for kind, eps in GROUPS:
        vals: list[float | None] = []
        for m in models:
            flags = [r.passed(kind, eps) for r in results.get(m, [])]
            known = [f for f in flags if f is not None]
            vals.append(sum(known) / len(known) if known else None)
        row += [percent(v) for v in vals]
        if len(models) >= 2:
            row.append(_diff(vals[0], vals[1]))
    rows.append(row)
    return rows


def header(models: Sequence[str]) -> list[str]:
    per = [*models, "Diff"] if len(models) >= 2 else list(models)
    return ["Task"] + per * len(GROUPS)


def group_labels() -> list[str]:
    return [f"{k.capitalize()} - {'Epsilon' if e else 'Exact'}" for k, e in GROUPS]


def ratio_table(title: str, models: Sequence[str], rows: list[list[str]]) -> Table:
    """Tables 1-2: one column group per case kind and comparison, a column per model."""
    width = len(models) + (1 if len(models) >= 2 else 0)
    head = header(models)
    return Table(
        header=head,
        rows=text_rows(rows),
        align=["l"] + ["r"] * (len(head) - 1),
        title=title,
        groups=[("", 1), *((g, width) for g in group_labels())],
    )


def _failures(models: Sequence[str], results: dict[str, list[TaskResult]]) -> list[list[str]]:
    rows = []
    for m in models:
        for r in results.get(m, []):
            if r.failures:
                kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.failures.items()))
                rows.append([m, r.task_id, kinds, r.first_failure[:200]])
    return rows


def _quality_tables(ctx: ReportContext, models: Sequence[str]) -> list[Table]:
    """Table 3 of every benchmark (language) and condition, then the per-language
    averages side by side."""
    tables = []
    note = f"Marked {MARK} (bold): >= {WORSE:g}x the best other model on the task."
    for cond in ctx.order("conditions"):
        per_language = {}
        for bench in ctx.order("benchmarks"):
            values = collect_quality(ctx.rows, bench, cond)
            present = [m for m in models if any(m in v for v in values.values())]
            if not values:
                continue
            per_language[bench] = values
            title = f"{bench} · {cond}: technical quality (lower is better)"
            tables.append(quality_table(title, note, *quality_rows(values, present)))
        if per_language:
            title = f"{cond}: technical quality, average per language (lower is better)"
            avg_note = "Each language's average row of its table above."
            head, rows = language_averages(per_language, models)
            tables.append(quality_table(title, avg_note, head, rows))
    return tables


class Psb2ReportSection:
    """Tables 1-2 of the seed for every PSB2 benchmark in the run."""

    key = "psb2"
    title = "PSB2 pass ratios (edge / random, exact / epsilon)"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        data = collect(ctx.rows)
        if not data:
            return None
        models = [m for m in ctx.order("models") if any(k[2] == m for k in data)]
        tables: list[Table] = []
        for bench in ctx.order("benchmarks"):
            for cond in ctx.order("conditions"):
                results = {m: data[(bench, cond, m)] for m in models if (bench, cond, m) in data}
                if not results:
                    continue
                present = [m for m in models if m in results]
                title = f"{bench} · {cond}: pass ratio (%) per task"
                tables.append(ratio_table(title, present, table_rows(present, results)))
                fails = _failures(present, results)
                if fails:
                    tables.append(
                        Table(
                            ["Model", "Task", "Failures", "First failure"],
                            text_rows(fails),
                            ["l"] * 4,
                            caption="Failure breakdown (cases per kind; first failing case)",
                        )
                    )
        tables += _quality_tables(ctx, models)
        note = (
            f"Exact: every output line equal (blank runs collapsed). Epsilon: numbers within "
            f"{EPSILON:g} (absolute). Diff: second model minus first, percentage points. "
            "pass@1: share of tasks whose first answer passes every case of the kind."
        )
        return SectionOutput(
            key=self.key,
            title=self.title,
            markdown=note + "\n\n" + "\n".join(to_markdown(t) for t in tables),
            html=render_html(_HTML, note=note, tables=tables),
            # the failure breakdowns (untitled) are for the report, not the paper
            artifacts={LATEX_FILE: "\n".join(to_latex(t) for t in tables if t.title)},
        )
