"""The seed's Table 3: per task and model, each quality metric, with the cells where a
model is at least 1.5x worse than the best model on that task marked; one builder for every
language (a language is a benchmark), one report table (Markdown, HTML and LaTeX).

Lower is better for every metric here (smells, LLOC, NOS, McCabe, nesting). A cell is
marked (``▲``; bold in HTML and LaTeX) when its value is >= 1.5 x the lowest value of the
row's other models and that lowest value is > 0 (a ratio to 0 is undefined; such cells are
not marked). The per-model average over tasks closes each table; ``language_averages``
puts those averages of every language side by side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import fmean

from beyondpass.report.table import Cell, Table
from beyondpass.store.run_store import Row

QUALITY_METRICS = ("smells", "lloc", "nos", "mccabe", "nesting")
WORSE = 1.5
MARK = "▲"

Values = dict[str, dict[str, dict[str, float]]]  # task -> model -> metric -> value


def collect_quality(rows: Sequence[Row], benchmark: str, condition: str) -> Values:
    """Metric values of every first answer (sample 0) of one benchmark and condition."""
    out: Values = defaultdict(dict)
    for row in rows:
        s = row.sample
        if (s.benchmark, s.condition, s.sample_index) != (benchmark, condition, 0):
            continue
        metrics = row.result.metrics if row.result else {}
        vals = {m: float(metrics[m]) for m in QUALITY_METRICS if m in metrics}
        if vals:
            out[s.task_id][s.model] = vals
    return out


def worse(value: float, others: Sequence[float]) -> bool:
    """Whether ``value`` is >= 1.5x the best (lowest) of ``others``."""
    best = min(others, default=None)
    return best is not None and best > 0 and value >= WORSE * best


def quality_rows(values: Values, models: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: task, then per metric one column per model; an average row."""
    metrics = [
        m for m in QUALITY_METRICS if any(m in v for t in values.values() for v in t.values())
    ]
    head = ["Task"] + [f"{m} · {model}" for m in metrics for model in models]
    rows = []
    for task in sorted(values):
        row = [task]
        for metric in metrics:
            got = {md: values[task][md].get(metric) for md in models if md in values[task]}
            for model in models:
                v = got.get(model)
                if v is None:
                    row.append("—")
                    continue
                others = [x for md, x in got.items() if md != model and x is not None]
                row.append(f"{v:g}" + (f" {MARK}" if worse(v, others) else ""))
        rows.append(row)
    avg = ["average"]
    for metric in metrics:
        for model in models:
            xs = [values[t][model][metric] for t in values if metric in values[t].get(model, {})]
            avg.append(f"{fmean(xs):.2f}" if xs else "—")
    rows.append(avg)
    return head, rows


def _metrics_of(head: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(h.split(" · ")[0] for h in head[1:]))


def language_averages(
    per_language: dict[str, Values], models: Sequence[str]
) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per language (benchmark) holding its average row."""
    head: list[str] = ["Language"]
    rows = []
    for language, values in per_language.items():
        lang_head, lang_rows = quality_rows(values, models)
        cells = dict(zip(lang_head[1:], lang_rows[-1][1:], strict=True))
        for h in lang_head[1:]:
            if h not in head:
                head.append(h)
        rows.append([language, *(cells.get(h, "—") for h in head[1:])])
    width = len(head)
    return head, [r + ["—"] * (width - len(r)) for r in rows]


def _split(cell: str) -> tuple[str, bool]:
    marked = cell.endswith(f" {MARK}")
    return (cell[: -len(MARK) - 1] if marked else cell), marked


def quality_table(
    title: str, note: str, head: Sequence[str], rows: Sequence[Sequence[str]]
) -> Table:
    """The report table of :func:`quality_rows` (or :func:`language_averages`): a metric
    group over its model columns; a marked cell keeps its value as text and carries the
    mark (bold in HTML and LaTeX)."""
    metrics = _metrics_of(head)
    width = (len(head) - 1) // max(len(metrics), 1)

    def cell(text: str) -> Cell:
        value, marked = _split(text)
        return Cell(value, mark=MARK, css="worse") if marked else Cell(value)

    return Table(
        header=[head[0], *(h.split(" · ")[-1] for h in head[1:])],
        rows=[[Cell(r[0]), *map(cell, r[1:])] for r in rows],
        align=["l"] + ["r"] * (len(head) - 1),
        title=title,
        caption=note,
        groups=[("", 1), *((m, width) for m in metrics)],
    )
