"""Project mode in ``beyondpass report``: CPR, TPR, the failure taxonomy, the decrease ratio
of obfuscated against original prompts, the models' ranking, and what the splice left out.

Read from the store alone (verdicts, their metrics and details), for every benchmark of
the run named ``obfuseval-project:...``; shown only when the run has one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from beyondpass.analysis.formatting import fmt_num, percent
from beyondpass.analysis.meta import as_dict
from beyondpass.methods.obfuseval.analysis import decrease_ratio, rank_stability
from beyondpass.methods.obfuseval.project import BENCHMARK, OBFUSCATED, ORIGINAL
from beyondpass.methods.obfuseval.project.testing import CATEGORIES
from beyondpass.report.render import TABLES_MARKDOWN, render_html, render_markdown
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Cell, Table, tables_latex

_HTML = """\
{% for note in notes %}<p class="muted">{{ note }}</p>{% endfor %}
{% for t in tables %}{{ t|html_table("paper") }}{% endfor %}
"""
#: (model, condition) -> task id -> (compiled, passed, category, statements left out)
Verdicts = dict[tuple[str, str], dict[str, tuple[bool, bool, str | None, int]]]


def verdicts(rows: Iterable[Any], benchmark: str) -> Verdicts:
    """The judged samples of one project benchmark (first sample per task)."""
    out: Verdicts = defaultdict(dict)
    for row in rows:
        s, r = row.sample, row.result
        if s.benchmark != benchmark or r is None or s.sample_index != 0:
            continue
        out[(s.model, s.condition)][s.task_id] = (
            bool(r.metrics.get("compiled")),
            bool(r.passed),
            r.details.get("category"),
            int(r.metrics.get("dropped_statements") or 0),
        )
    return dict(out)


def _pct(value: float | None) -> Cell:
    return Cell(percent(value), value)


def _rate(values: Iterable[bool]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


def scores_table(found: Verdicts, project: str, key: str, conditions: list[str]) -> Table:
    """Per model and condition: tasks, CPR, TPR, failures by class, statements left out."""
    rows = []
    order = {c: i for i, c in enumerate(conditions)}
    for (model, condition), tasks in sorted(
        found.items(), key=lambda item: (item[0][0], order.get(item[0][1], len(order)))
    ):
        kinds = Counter(c for _, passed, c, _ in tasks.values() if not passed and c)
        rows.append(
            [
                Cell(model),
                Cell(condition),
                Cell(str(len(tasks)), len(tasks)),
                _pct(_rate(v[0] for v in tasks.values())),
                _pct(_rate(v[1] for v in tasks.values())),
                *(Cell(str(kinds.get(c, 0)), kinds.get(c, 0)) for c in CATEGORIES),
                Cell(str(sum(v[3] for v in tasks.values()))),
            ]
        )
    return Table(
        key=f"obfuseval-project-{key}",
        title=f"{project}: project-level CPR, TPR and failures",
        caption="CPR: tasks whose module imported (proved over the check's own channel); "
        "TPR: tasks whose covering tests all passed in every run; failed tasks by class; "
        "left out: statements of the answers the splice did not keep.",
        header=["Model", "Condition", "Tasks", "CPR", "TPR", *CATEGORIES, "left out"],
        align=["l", "l", "r", "r", "r", *(["r"] * len(CATEGORIES)), "r"],
        rows=rows,
    )


def decrease_table(found: Verdicts, project: str, key: str) -> Table | None:
    """Per model: CPR and TPR on the tasks judged in both conditions, and the decrease
    ratio ``(original - obfuscated) / original``."""
    rows = []
    for model in sorted({m for m, _ in found}):
        orig, obf = found.get((model, ORIGINAL)), found.get((model, OBFUSCATED))
        if not orig or not obf:
            continue
        shared = sorted(set(orig) & set(obf))
        cells = [Cell(model), Cell(str(len(shared)), len(shared))]
        for index in (0, 1):
            before = _rate(orig[t][index] for t in shared) or 0.0
            after = _rate(obf[t][index] for t in shared) or 0.0
            cells += [_pct(before), _pct(after), _pct(decrease_ratio(before, after))]
        rows.append(cells)
    if not rows:
        return None
    return Table(
        key=f"obfuseval-project-decrease-{key}",
        title=f"{project}: original vs obfuscated prompts",
        caption="CPR and TPR on the tasks judged in both conditions, and the decrease ratio "
        "(original - obfuscated) / original.",
        header=["Model", "Tasks", "CPR orig.", "CPR obf.", "CPR decrease"]
        + ["TPR orig.", "TPR obf.", "TPR decrease"],
        align=["l", "r", "r", "r", "r", "r", "r", "r"],
        rows=rows,
    )


def ranking_notes(found: Verdicts, seed: int) -> list[str]:
    """The models ranked by TPR per condition, and Kendall tau between the two rankings."""
    notes = []
    for condition in (ORIGINAL, OBFUSCATED):
        scored = [(m, t) for (m, c), t in found.items() if c == condition]
        ranked = sorted(
            ((_rate(v[1] for v in t.values()) or 0.0, m) for m, t in scored),
            key=lambda x: (-x[0], x[1]),
        )
        if ranked:
            order = ", ".join(f"{m} ({percent(v)})" for v, m in ranked)
            notes.append(f"Ranking by TPR ({condition}): {order}.")
    models = sorted({m for m, _ in found})
    both = [m for m in models if (m, ORIGINAL) in found and (m, OBFUSCATED) in found]
    if len(both) >= 2:
        before = {m: {t: v[1] for t, v in found[(m, ORIGINAL)].items()} for m in both}
        after = {m: {t: v[1] for t, v in found[(m, OBFUSCATED)].items()} for m in both}
        try:
            tau = rank_stability(before, after, seed=seed)
            notes.append(
                f"Ranking stability: Kendall tau {fmt_num(tau['tau'], 3)} over "
                f"{int(tau['n_tasks'] or 0)} tasks (95% bootstrap CI "
                f"{fmt_num(tau['ci_low'], 3)} to {fmt_num(tau['ci_high'], 3)})."
            )
        except ValueError as exc:
            notes.append(f"Ranking stability: not computed — {exc}.")
    return notes


class ProjectSection:
    """ObfusEval's project mode, for every project benchmark of a run."""

    key = "obfuseval-project"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        benches = [b for b in ctx.order("benchmarks") if b.startswith(f"{BENCHMARK}:")]
        tables: list[Table] = []
        notes: list[str] = []
        record = as_dict(ctx.meta.get("obfuseval_project"))
        for n, bench in enumerate(benches, 1):
            found = verdicts(ctx.rows, bench)
            if not found:
                continue
            project = str(as_dict(record.get("project")).get("name") or bench)
            tables.append(scores_table(found, project, str(n), ctx.order("conditions")))
            decrease = decrease_table(found, project, str(n))
            if decrease is not None:
                tables.append(decrease)
            notes += ranking_notes(found, ctx.seed)
        if not tables:
            return None
        if record:
            notes.append(
                f"Left out up front: {len(record.get('flaky_excluded') or [])} flaky tests, "
                f"{len(record.get('not_crossing') or [])} tests that fail (or are too slow) "
                "with the original function behind the process boundary, "
                f"{len(record.get('dropped') or [])} "
                "tasks without a usable covering test."
            )
        return SectionOutput(
            key=self.key,
            title="ObfusEval project mode",
            markdown=render_markdown(TABLES_MARKDOWN, tables=tables, notes=notes),
            html=render_html(_HTML, tables=tables, notes=notes),
            artifacts={"obfuseval-project-tables.tex": tables_latex(tables)},
        )
