"""ObfusEval in reports: scores over verified variants, and how much survives obfuscation.

- The report section (:class:`ObfuscationSection`) is shown for a run whose benchmarks were
  transformed by ``obfuscate``: per benchmark, model and prompt condition, the number of
  tasks and variants, pass@1 averaged over variants, the worst variant's pass@1, and
  ReCode's robust pass@1 (a sample counts only when it passes on every variant of its task).
- :func:`compare_runs` (``beyondpass obfuseval decrease ORIGINAL OBFUSCATED``) puts a run on
  the original tasks beside one on the obfuscated tasks: pass@1 on each, the decrease ratio
  ``(original - obfuscated) / original``, robust pass@1, and the stability of the models'
  ranking (Kendall tau with a bootstrap CI over tasks) — the tables the seed reports, with a
  plot.

Variants are read from task ids (``TASK#vK``; a single variant keeps the original id).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import mean
from typing import Any

from beyondpass.analysis.formatting import bench_label, fmt_num, percent
from beyondpass.analysis.meta import as_dict
from beyondpass.methods.obfuseval.analysis import decrease_ratio, rank_stability, robust_pass_at_k
from beyondpass.report.render import TABLES_MARKDOWN, render_html, render_markdown
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Cell, Table, tables_latex

_VARIANT = re.compile(r"^(?P<task>.*)#v(?P<k>\d+)$")
#: (benchmark, model, condition) -> original task -> variant -> pass/fail per sample index
Groups = dict[tuple[str, str, str], dict[str, dict[int, list[bool]]]]


_HTML = """\
{% for note in notes %}<p class="muted">{{ note }}</p>{% endfor %}
{% for t in tables %}{{ t|html_table("paper") }}{% endfor %}
{% if plot %}<figure>{{ plot|safe }}
<figcaption class="muted">{{ caption }}</figcaption></figure>{% endif %}
"""


def split_variant(task_id: str) -> tuple[str, int]:
    """``("HumanEval/3", 2)`` for ``HumanEval/3#v2``; a plain id is variant 0."""
    m = _VARIANT.match(task_id)
    return (m["task"], int(m["k"])) if m else (task_id, 0)


def outcome_groups(rows: Iterable[Any]) -> Groups:
    """Pass/fail per sample, grouped; samples without a verdict are left out."""
    samples: dict[tuple[str, str, str], dict[str, dict[int, dict[int, bool]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(dict))
    )
    for row in rows:
        if row.result is None:
            continue
        s = row.sample
        task, variant = split_variant(s.task_id)
        samples[(s.benchmark, s.model, s.condition)][task][variant][s.sample_index] = bool(
            row.result.passed
        )
    return {
        key: {
            task: {v: [by_index[i] for i in sorted(by_index)] for v, by_index in variants.items()}
            for task, variants in tasks.items()
        }
        for key, tasks in samples.items()
    }


def pass1(tasks: Mapping[str, Mapping[int, Sequence[bool]]]) -> float:
    """Mean over tasks and variants of the share of passing samples."""
    return mean(mean(s) for variants in tasks.values() for s in variants.values() if s)


def worst_variant_pass1(tasks: Mapping[str, Mapping[int, Sequence[bool]]]) -> float:
    """pass@1 of the variant index that scores lowest (every task's variant k together)."""
    indices = sorted({v for variants in tasks.values() for v in variants})
    return min(
        mean(mean(variants[k]) for variants in tasks.values() if k in variants) for k in indices
    )


def comparable(tasks: Mapping[str, Mapping[int, Sequence[bool]]]) -> dict[str, dict[int, list]]:
    """Tasks whose variants all have the same number of samples (robust pass@k needs it)."""
    out = {}
    for task, variants in tasks.items():
        if len({len(s) for s in variants.values()}) == 1:
            out[task] = {v: list(s) for v, s in variants.items()}
    return out


def _label(model: str, condition: str, conditions: set[str]) -> str:
    return f"{model} · {condition}" if len(conditions) > 1 else model


def variants_table(groups: Groups, benchmark: str) -> Table:
    keys = sorted(k for k in groups if k[0] == benchmark)
    conditions = {k[2] for k in keys}
    rows = []
    for key in keys:
        tasks = groups[key]
        n_variants = max(len(v) for v in tasks.values())
        robust = robust_pass_at_k(comparable(tasks), 1)
        rows.append(
            [
                Cell(_label(key[1], key[2], conditions)),
                Cell(str(len(tasks)), len(tasks)),
                Cell(str(n_variants), n_variants),
                _pct_cell(pass1(tasks)),
                _pct_cell(worst_variant_pass1(tasks)),
                _pct_cell(robust),
            ]
        )
    return Table(
        key=f"obfuseval-variants-{benchmark}",
        title=f"{bench_label(benchmark)}: scores over obfuscated variants",
        caption="pass@1 (%) averaged over variants, of the worst variant, and robust pass@1 "
        "(a sample counts only when it passes on every variant of its task, as ReCode "
        "defines it).",
        header=["Model", "Tasks", "Variants", "pass@1", "worst variant", "robust pass@1"],
        align=["l", "r", "r", "r", "r", "r"],
        rows=rows,
    )


def _pct_cell(value: float | None) -> Cell:
    """A percentage cell keeping the fraction behind it."""
    return Cell(percent(value), value)


def is_obfuscated(meta: Mapping[str, Any], benchmark: str) -> bool:
    record = as_dict(as_dict(meta.get("benchmarks")).get(benchmark))
    return as_dict(record.get("transform")).get("name") == "obfuscate"


class ObfuscationSection:
    """Scores over variants for every obfuscated benchmark of a run."""

    key = "obfuseval"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        groups = outcome_groups(ctx.rows)
        benches = [
            b
            for b in ctx.order("benchmarks")
            if is_obfuscated(ctx.meta, b) and any(k[0] == b for k in groups)
        ]
        if not benches:
            return None
        tables = [variants_table(groups, b) for b in benches]
        notes = [
            "Obfuscated tasks (every variant verified by execution before use). Compare with "
            "a run on the original tasks: `beyondpass obfuseval decrease ORIGINAL_RUN RUN`."
        ]
        return SectionOutput(
            key=self.key,
            title="ObfusEval",
            markdown=render_markdown(TABLES_MARKDOWN, tables=tables, notes=notes),
            html=render_html(_HTML, tables=tables, notes=notes, plot=None, caption=""),
            artifacts={"obfuseval-tables.tex": tables_latex(tables)},
        )


def compare_groups(original: Groups, obfuscated: Groups, seed: int = 0) -> dict[str, Any]:
    """Tables and numbers of the comparison (see the module docstring)."""
    tables: list[Table] = []
    numbers: dict[str, Any] = {}
    for benchmark in sorted({k[0] for k in obfuscated} & {k[0] for k in original}):
        keys = sorted(k for k in obfuscated if k[0] == benchmark and k in original)
        conditions = {k[2] for k in keys}
        rows = []
        for key in keys:
            orig, obf = original[key], obfuscated[key]
            shared = sorted(set(orig) & set(obf))
            o = pass1({t: orig[t] for t in shared})
            b = pass1({t: obf[t] for t in shared})
            ratio = decrease_ratio(o, b)
            robust = robust_pass_at_k(comparable({t: obf[t] for t in shared}), 1)
            numbers[" / ".join(key)] = {
                "tasks": len(shared),
                "original_pass1": o,
                "obfuscated_pass1": b,
                "decrease_ratio": ratio,
                "robust_pass1": robust,
            }
            rows.append(
                [
                    Cell(_label(key[1], key[2], conditions)),
                    Cell(str(len(shared)), len(shared)),
                    _pct_cell(o),
                    _pct_cell(b),
                    _pct_cell(ratio),
                    _pct_cell(robust),
                ]
            )
        notes = []
        models = sorted({k[1] for k in keys})
        for condition in sorted(conditions):
            if len(models) < 2:
                break
            before = {m: _first_pass(original[(benchmark, m, condition)]) for m in models}
            after = {m: _robust_first(obfuscated[(benchmark, m, condition)]) for m in models}
            try:
                stability = rank_stability(before, after, seed=seed)
            except ValueError as exc:  # e.g. no task scored by every model on both sides
                notes.append(f"Ranking stability ({condition}): not computed — {exc}.")
                continue
            numbers[f"{benchmark} / {condition} / kendall_tau"] = stability
            notes.append(
                f"Ranking stability ({condition}): Kendall tau {fmt_num(stability['tau'], 3)} "
                f"(95% bootstrap CI {fmt_num(stability['ci_low'], 3)} to "
                f"{fmt_num(stability['ci_high'], 3)}) over {int(stability['n_tasks'])} tasks."
            )
        tables.append(
            Table(
                key=f"obfuseval-compare-{benchmark}",
                title=f"{bench_label(benchmark)}: original vs obfuscated",
                caption="pass@1 (%) on the original and the obfuscated tasks (mean over "
                "variants), the decrease ratio (original - obfuscated) / original (%), and "
                "robust pass@1 over the variants, on the tasks both runs scored.",
                header=["Model", "Tasks", "original", "obfuscated", "decrease", "robust"],
                align=["l", "r", "r", "r", "r", "r"],
                rows=rows,
                notes=notes,
            )
        )
    return {"tables": tables, "numbers": numbers}


def _first_pass(tasks: Mapping[str, Mapping[int, Sequence[bool]]]) -> dict[str, bool]:
    """Task -> its first sample passed (the original run has one variant per task)."""
    return {t: bool(v[min(v)][0]) for t, v in tasks.items() if v[min(v)]}


def _robust_first(tasks: Mapping[str, Mapping[int, Sequence[bool]]]) -> dict[str, bool]:
    """Task -> its first sample passed on every variant."""
    return {t: all(s[0] for s in v.values() if s) for t, v in tasks.items()}


def compare_plot(numbers: Mapping[str, Any]) -> str:
    """Grouped bars: original vs obfuscated pass@1 per (benchmark, model, condition)."""
    import matplotlib
    from matplotlib.figure import Figure

    from beyondpass.report.plots import PLOT_RC, figure_svg

    items = [(k, v) for k, v in numbers.items() if "original_pass1" in v]
    with matplotlib.rc_context(PLOT_RC):
        fig = Figure(figsize=(max(4.0, 1.2 * len(items) + 1.5), 3.2))
        ax = fig.subplots()
        xs = range(len(items))
        ax.bar([x - 0.2 for x in xs], [v["original_pass1"] * 100 for _, v in items], 0.4,
               label="original", color="#4c72b0")  # fmt: skip
        ax.bar([x + 0.2 for x in xs], [v["obfuscated_pass1"] * 100 for _, v in items], 0.4,
               label="obfuscated", color="#dd8452")  # fmt: skip
        ax.set_xticks(list(xs), [k.replace(" / ", "\n") for k, _ in items], fontsize=7)
        ax.set_ylabel("pass@1 (%)")
        ax.set_ylim(0, 100)
        ax.legend(frameon=False, fontsize=8)
        ax.spines[["top", "right"]].set_visible(False)
        return figure_svg(fig, "obfcmp")


def comparison_outputs(original: Groups, obfuscated: Groups, seed: int = 0) -> dict[str, str]:
    """File name -> text of the comparison: Markdown, HTML (with the plot), LaTeX, JSON."""
    import json

    done = compare_groups(original, obfuscated, seed)
    tables = done["tables"]
    notes: list[str] = []  # the tables carry their own notes (ranking stability)
    plot = compare_plot(done["numbers"]) if done["numbers"] else ""
    caption = "pass@1 on original and obfuscated tasks"
    page = "<!doctype html><meta charset='utf-8'><title>ObfusEval comparison</title>" + _HTML
    return {
        "obfuseval-compare.md": render_markdown(TABLES_MARKDOWN, tables=tables, notes=notes),
        "obfuseval-compare.html": render_html(
            page, tables=tables, notes=notes, plot=plot, caption=caption
        ),
        "obfuseval-compare.tex": tables_latex(tables),
        "obfuseval-compare.json": json.dumps(done["numbers"], indent=2, sort_keys=True),
    }
