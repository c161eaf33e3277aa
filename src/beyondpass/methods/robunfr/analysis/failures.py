"""Failure analysis (MISSION §1; seed section 5.2): how the answers of each group fail."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from beyondpass.analysis.formatting import MISSING, bench_label, percent
from beyondpass.methods.robunfr.analysis.data import Group
from beyondpass.report.table import Cell, Table
from beyondpass.store.run_store import Row

if TYPE_CHECKING:
    from beyondpass.methods.robunfr.analysis.run import Analysis


FAILURE_COLUMNS = (
    ("no_code", "No code"),
    ("syntax_error", "Syntax error"),
    ("error", "Exception"),
    ("failed", "Wrong result"),
    ("timeout", "Timeout"),
)


def exception_type(row: Row) -> str:
    """The exception a non-passing sample raised (first failing test, else the message)."""
    res = row.result
    if res is None:
        return ""
    tests = res.details.get("tests") if isinstance(res.details, dict) else None
    if isinstance(tests, list):
        for t in tests:
            if isinstance(t, dict) and t.get("status") == "error" and t.get("error_type"):
                return str(t["error_type"])
    message = str(res.details.get("message", "")) if isinstance(res.details, dict) else ""
    m = re.match(r"(?:test \S+: )?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b", message)
    return m.group(1) if m else ""


def failure_counts(rows: Iterable[Row]) -> dict[str, Any]:
    counts: dict[str, int] = defaultdict(int)
    exc: dict[str, int] = defaultdict(int)
    evaluated = 0
    for r in rows:
        if r.result is None:
            continue
        evaluated += 1
        status = r.result.status
        key = status if status in dict(FAILURE_COLUMNS) or status == "passed" else "other"
        counts[key] += 1
        if status == "error" and (name := exception_type(r)):
            exc[name] += 1
    top = sorted(exc.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"evaluated": evaluated, "counts": dict(counts), "exceptions": top}


def failure_table(an: Analysis, bench: str) -> Table:
    """Per model and group: how answers fail (MISSION §1; seed section 5.2)."""
    d = an.data
    groups = (
        d.design_groups()
        if d.is_robunfr
        else [Group(f"condition/{c}", c, "condition", None, (c,)) for c in d.condition_order]
    )
    header = ["Model", "Workflow", "Group", "Evaluated", "Passed"]
    header += [label for _, label in FAILURE_COLUMNS] + ["Other", "Exceptions raised"]
    rows = []
    for model in d.models:
        for g in groups:
            rs = d.rows_of(bench, model, g.conditions)
            if not rs:
                continue
            fc = failure_counts(rs)
            n = fc["evaluated"]

            def share(k: str, fc: dict[str, Any] = fc, n: int = n) -> Cell:
                v = fc["counts"].get(k, 0)
                return Cell(f"{v} ({percent(v / n, 1)}%)" if n else str(v), value=float(v))

            row = [
                Cell(model),
                Cell(g.workflow_label if g.workflow != "condition" else "-"),
                Cell(g.label if g.nfr or g.workflow == "condition" else "-"),
                Cell(str(n), value=float(n)),
                share("passed"),
            ]
            row += [share(k) for k, _ in FAILURE_COLUMNS] + [share("other")]
            top = ", ".join(f"{name} {count}" for name, count in fc["exceptions"][:4])
            row.append(Cell(top or MISSING, extra={"exceptions": dict(fc["exceptions"])}))
            rows.append(row)
    return Table(
        key=f"failures-{bench}",
        title=f"Failure analysis: {bench_label(bench)}",
        caption=(
            "Evaluated samples by verdict: no code (the answer holds instructions or prose "
            "instead of code), syntax error, exception (the code raised where the task "
            "demands a return value), wrong result (an assertion failed), timeout, other "
            "(memory, output limit, killed); with the most frequent exception types."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 4) + ["l"],
        rows=rows,
    )


__all__ = ["FAILURE_COLUMNS", "exception_type", "failure_counts", "failure_table"]
