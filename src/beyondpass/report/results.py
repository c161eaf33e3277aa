"""One benchmark's results in a report: main table, failures, per-task comparison and matrix."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from beyondpass.analysis.formatting import percent
from beyondpass.analysis.ordering import natural_key
from beyondpass.analysis.summary import GroupSummary
from beyondpass.evaluators.base import SCORED, counts_for_pass
from beyondpass.report.details import sample_detail
from beyondpass.report.facts import known_broken
from beyondpass.report.model import BenchmarkResults, Cell, Mark, MatrixRow
from beyondpass.report.plots import (
    NOT_EVALUATED,
    css_class,
    pass1_svg,
    status_of,
    status_order,
    status_svg,
)
from beyondpass.report.table import Table, text_rows
from beyondpass.report.text import fmt
from beyondpass.store.run_store import Row

# Always shown in the main table, even at zero, so tables of different runs line up.
BASE_STATUSES = ("passed", "failed", "error", "timeout", "no_code", "syntax_error")
BROKEN_MARK = "†"
#: the failure table's column of answers cut off at the token budget (``finish_reason``
#: ``length``), which are counted there as well as under their verdict's own column
TRUNCATED = "truncated (of not passing)"
MAX_SQUARES = 10  # matrix cells with more samples show "passed/total" instead of one mark each
# One bar per (model, condition) stops being readable (and costs seconds of SVG layout) beyond
# this; designs that large (RobuNFR: 81 conditions) get their own aggregated plots instead.
MAX_PLOTTED_GROUPS = 40
_LETTERS = {
    "passed": "P",
    "failed": "F",
    "error": "E",
    "timeout": "T",
    "no_code": "N",
    "syntax_error": "S",
    "compile_error": "C",
    "memory": "M",
    "output_limit": "O",
    "killed": "K",
    SCORED: "~",  # neither passed nor failed: nothing was checked
    NOT_EVALUATED: "·",
}


def benchmark_results(
    name: str, info: dict[str, Any], groups: list[GroupSummary], rows: list[Row], index: int
) -> BenchmarkResults:
    broken = known_broken(info)
    tasks_in_run = {r.sample.task_id for r in rows}
    broken_here = [(t, broken[t]) for t in sorted(broken, key=natural_key) if t in tasks_in_run]

    present = status_order({k for g in groups for k in g.status_counts} | set(BASE_STATUSES))
    ks = sorted({k for g in groups for k in g.pass_at if k != 1})
    header = ["Model", "Condition", "Tasks", "Samples", "pass@1 (%)", "95% CI"]
    header += [f"pass@{k} (%)" for k in ks] + present
    main_rows = []
    for g in groups:
        lo, hi = g.pass1_ci
        ci = "—" if math.isnan(lo) or math.isnan(hi) else f"[{percent(lo)}, {percent(hi)}]"
        cells = [g.model, g.condition, str(g.n_tasks), str(g.n_samples)]
        cells += [percent(g.pass_at.get(1)), ci]
        cells += [percent(g.pass_at.get(k)) for k in ks]
        cells += [str(g.status_counts.get(s, 0)) for s in present]
        main_rows.append(cells)
    main = Table(header, text_rows(main_rows), ["l", "l"] + ["r"] * (len(header) - 2))

    failures = _failure_table(groups, present)

    group_keys = [(g.model, g.condition) for g in groups]
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]] = defaultdict(list)
    for r in rows:
        per_cell[(r.sample.task_id, (r.sample.model, r.sample.condition))].append(r)
    tasks = sorted(tasks_in_run, key=natural_key)
    comparison, note, disagree = _comparison(tasks, group_keys, per_cell, broken)

    facts = []
    for key, label in (("version", "Version"), ("source", "Source"), ("coverage", "Coverage")):
        if key in info:
            facts.append((label, fmt(info[key])))
    section = BenchmarkResults(
        name=name,
        anchor=f"b{index}",
        facts=facts,
        main=main,
        failures=failures,
        comparison=comparison,
        comparison_note=note,
        broken=broken_here,
        groups=group_keys,
    )
    section.matrix = [
        MatrixRow(
            task=t,
            broken=t in broken,
            reason=broken.get(t, ""),
            disagree=t in disagree,
            cells=[_cell(per_cell.get((t, gk), [])) for gk in group_keys],
        )
        for t in tasks
    ]
    anchor = f"{section.anchor}-s"
    section.details = [
        sample_detail(r, f"{anchor}{i}", broken)
        for i, r in enumerate(_display_order(tasks, group_keys, per_cell))
    ]
    if len(groups) <= MAX_PLOTTED_GROUPS:
        section.pass1_svg = pass1_svg(groups, plot_id=f"{section.anchor}-p1")
        section.status_svg = status_svg(groups, plot_id=f"{section.anchor}-st")
    return section


def _failure_table(groups: list[GroupSummary], present: list[str]) -> Table | None:
    """Each group's non-passing samples by verdict, and those cut off at the token budget;
    None when no group has a pass/fail verdict (nothing was checked by tests)."""
    failing = [s for s in present if s not in ("passed", SCORED, NOT_EVALUATED)]
    rows = []
    for g in (g for g in groups if g.n_evaluated):  # groups with a pass/fail verdict
        not_passing = g.n_evaluated - g.status_counts.get("passed", 0)
        cells = [g.model, g.condition, str(g.n_evaluated), _count_pct(not_passing, g.n_evaluated)]
        cells.append(_count_pct(g.truncated, g.n_evaluated))
        cells += [_count_pct(g.status_counts.get(s, 0), g.n_evaluated) for s in failing]
        rows.append(cells)
    if not rows:
        return None
    header = ["Model", "Condition", "Evaluated", "Not passing", TRUNCATED, *failing]
    return Table(header, text_rows(rows), ["l", "l"] + ["r"] * (len(failing) + 3))


def _comparison(
    tasks: list[str],
    group_keys: list[tuple[str, str]],
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]],
    broken: dict[str, str],
) -> tuple[Table | None, str, set[str]]:
    if len(group_keys) < 2:
        return None, "", set()
    disagree: set[str] = set()
    all_pass = all_fail = 0
    table_rows = []
    for t in tasks:
        counts = [_passed_of(per_cell.get((t, gk), [])) for gk in group_keys]
        rates = {c / n for c, n in counts if n}
        if len(rates) > 1:
            disagree.add(t)
            label = t + (f" {BROKEN_MARK}" if t in broken else "")
            table_rows.append([label] + [f"{c}/{n}" if n else "—" for c, n in counts])
        elif rates == {1.0}:
            all_pass += 1
        elif rates == {0.0}:
            all_fail += 1
    agree = f"{all_pass} pass in every group, {all_fail} fail in every group."
    if disagree:
        note = (
            f"{len(disagree)} of {len(tasks)} tasks get different pass rates across groups "
            f"(listed below as passed/evaluated); {agree}"
        )
    else:
        note = f"All {len(tasks)} tasks get the same pass rate in every group; {agree}"
    header = ["Task"] + [f"{m} / {c}" for m, c in group_keys]
    table = (
        Table(header, text_rows(table_rows), ["l"] + ["r"] * len(group_keys))
        if table_rows
        else None
    )
    return table, note, disagree


def _passed_of(rows: list[Row]) -> tuple[int, int]:
    evaluated = [r for r in rows if counts_for_pass(r.result)]
    return sum(bool(r.result and r.result.passed) for r in evaluated), len(evaluated)


def _display_order(
    tasks: list[str],
    group_keys: list[tuple[str, str]],
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]],
) -> Iterable[Row]:
    for t in tasks:
        for gk in group_keys:
            yield from sorted(per_cell.get((t, gk), []), key=lambda r: r.sample.sample_index)


def _cell(rows: list[Row]) -> Cell:
    rows = sorted(rows, key=lambda r: r.sample.sample_index)
    marks = []
    for r in rows:
        status = status_of(r)
        marks.append(
            Mark(
                cls=css_class(status),
                letter=_LETTERS.get(status, "?"),
                title=f"sample {r.sample.sample_index}: {status}",
                href=f"key:{r.sample.key}",  # resolved to an anchor once details are chosen
            )
        )
    passed, evaluated = _passed_of(rows)
    rate = passed / evaluated if evaluated else None
    style = "" if rate is None else f"background:hsl({round(120 * rate)},55%,82%)"
    counts = Counter(status_of(r) for r in rows)
    title = ", ".join(f"{counts[s]} {s}" for s in status_order(counts))
    summary = f"{passed}/{evaluated}" if rows else ""
    return Cell(marks, summary, style, "", title, compact=len(rows) > MAX_SQUARES)


def _count_pct(count: int, total: int) -> str:
    return f"{count} ({percent(count / total)}%)" if total else str(count)


__all__ = ["BASE_STATUSES", "BROKEN_MARK", "benchmark_results"]
