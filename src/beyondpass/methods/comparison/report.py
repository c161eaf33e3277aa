"""The seed's Tables 1-2 as a report section: pass ratios per task and model on edge and
random cases, exact and epsilon, with Diff columns, pass@1, and the failure breakdown.

One table per benchmark and prompt condition (a language is a benchmark). ``Diff`` is the
second model's ratio minus the first's, in percentage points, as the seed's tables show
(positive: the second model did better). Markdown, HTML and LaTeX (``psb2_tables.tex``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from beyondpass.methods.comparison.analysis import EPSILON, TaskResult, collect
from beyondpass.methods.comparison.quality_table import (
    MARK,
    WORSE,
    collect_quality,
    language_averages,
    quality_rows,
    to_html,
    to_latex,
    to_markdown,
)
from beyondpass.report.paper_tables import latex_escape
from beyondpass.report.sections import ReportContext, SectionOutput

GROUPS = (("edge", False), ("edge", True), ("random", False), ("random", True))
LATEX_FILE = "psb2_tables.tex"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}"


def _diff(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{100 * (b - a):+.2f}"


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
            row += [_pct(v) for v in vals]
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
        row += [_pct(v) for v in vals]
        if len(models) >= 2:
            row.append(_diff(vals[0], vals[1]))
    rows.append(row)
    return rows


def header(models: Sequence[str]) -> list[str]:
    per = [*models, "Diff"] if len(models) >= 2 else list(models)
    return ["Task"] + per * len(GROUPS)


def group_labels() -> list[str]:
    return [f"{k.capitalize()} - {'Epsilon' if e else 'Exact'}" for k, e in GROUPS]


def _markdown(title: str, models: Sequence[str], rows: list[list[str]]) -> str:
    width = len(models) + (1 if len(models) >= 2 else 0)
    groups = " | ".join(f"{g} ({width} cols)" for g in group_labels())
    lines = [f"### {title}", "", f"Column groups: {groups}.", ""]
    head = header(models)
    lines.append("| " + " | ".join(h.replace("|", "\\|") for h in head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    lines += [_md_row(r) for r in rows]
    return "\n".join(lines) + "\n"


def _html(title: str, models: Sequence[str], rows: list[list[str]]) -> str:
    width = len(models) + (1 if len(models) >= 2 else 0)
    e = html.escape
    groups = "".join(f'<th colspan="{width}">{e(g)}</th>' for g in group_labels())
    head = "".join(f"<th>{e(h)}</th>" for h in header(models))
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return (
        f"<h3>{e(title)}</h3><table><thead><tr><th></th>{groups}</tr><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _latex(title: str, models: Sequence[str], rows: list[list[str]]) -> str:
    width = len(models) + (1 if len(models) >= 2 else 0)
    cols = "l" + "r" * (len(header(models)) - 1)
    groups = " & ".join(
        rf"\multicolumn{{{width}}}{{c}}{{{latex_escape(g)}}}" for g in group_labels()
    )
    out = [
        r"\begin{table}[t]\centering",
        rf"\caption{{{latex_escape(title)}}}",
        r"\resizebox{\textwidth}{!}{%",
        rf"\begin{{tabular}}{{{cols}}}\toprule",
        f" & {groups} \\\\",
        " & ".join(latex_escape(h) for h in header(models)) + r" \\\midrule",
    ]
    out += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
    out += [r"\bottomrule\end{tabular}}", r"\end{table}", ""]
    return "\n".join(out)


def _plain_html(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    e = html.escape
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _failures(models: Sequence[str], results: dict[str, list[TaskResult]]) -> list[list[str]]:
    rows = []
    for m in models:
        for r in results.get(m, []):
            if r.failures:
                kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.failures.items()))
                rows.append([m, r.task_id, kinds, r.first_failure[:200]])
    return rows


def _quality_tables(ctx: ReportContext, models: Sequence[str]) -> tuple[str, str, str]:
    """Table 3 (Markdown, HTML, LaTeX) of every benchmark (language) and condition, then
    the per-language averages side by side."""
    md, htm, tex = [], [], []
    note = f"{MARK}: >= {WORSE:g}x the best other model on the task."
    for cond in ctx.order("conditions"):
        per_language = {}
        for bench in ctx.order("benchmarks"):
            values = collect_quality(ctx.rows, bench, cond)
            present = [m for m in models if any(m in v for v in values.values())]
            if not values:
                continue
            per_language[bench] = values
            title = f"{bench} · {cond}: technical quality (lower is better)"
            head, rows = quality_rows(values, present)
            md.append(to_markdown(title, note, head, rows))
            htm.append(to_html(title, note, head, rows))
            tex.append(to_latex(title, head, rows))
        if per_language:
            title = f"{cond}: technical quality, average per language (lower is better)"
            head, rows = language_averages(per_language, models)
            avg_note = "Each language's average row of its table above."
            md.append(to_markdown(title, avg_note, head, rows))
            htm.append(to_html(title, avg_note, head, rows))
            tex.append(to_latex(title, head, rows))
    return "\n".join(md), "".join(htm), "\n".join(tex)


class Psb2ReportSection:
    """Tables 1-2 of the seed for every PSB2 benchmark in the run."""

    key = "psb2"
    title = "PSB2 pass ratios (edge / random, exact / epsilon)"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        data = collect(ctx.rows)
        if not data:
            return None
        models = [m for m in ctx.order("models") if any(k[2] == m for k in data)]
        md, htm, tex = [], [], []
        for bench in ctx.order("benchmarks"):
            for cond in ctx.order("conditions"):
                results = {m: data[(bench, cond, m)] for m in models if (bench, cond, m) in data}
                if not results:
                    continue
                present = [m for m in models if m in results]
                title = f"{bench} · {cond}: pass ratio (%) per task"
                rows = table_rows(present, results)
                md.append(_markdown(title, present, rows))
                htm.append(_html(title, present, rows))
                tex.append(_latex(title, present, rows))
                fails = _failures(present, results)
                if fails:
                    md.append("Failure breakdown (cases per kind; first failing case):\n")
                    md.append("| Model | Task | Failures | First failure |\n|---|---|---|---|")
                    md += [_md_row(f) for f in fails]
                    md.append("")
                    htm.append(_plain_html(["Model", "Task", "Failures", "First failure"], fails))
        quality = _quality_tables(ctx, models)
        md.append(quality[0])
        htm.append(quality[1])
        tex.append(quality[2])
        note = (
            f"Exact: every output line equal (blank runs collapsed). Epsilon: numbers within "
            f"{EPSILON:g} (absolute). Diff: second model minus first, percentage points. "
            "pass@1: share of tasks whose first answer passes every case of the kind."
        )
        return SectionOutput(
            key=self.key,
            title=self.title,
            markdown=note + "\n\n" + "\n".join(md),
            html=f"<p>{html.escape(note)}</p>" + "".join(htm),
            artifacts={LATEX_FILE: "\n".join(tex)},
        )
