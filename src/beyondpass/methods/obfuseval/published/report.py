"""The regenerated table as Markdown and JSON, and the census of recorded outcomes."""

from __future__ import annotations

from collections import Counter

from beyondpass.methods.obfuseval.published.answers import REPLAYED, RecordedAnswer
from beyondpass.methods.obfuseval.published.outcomes import STATUSES
from beyondpass.methods.obfuseval.published.table import Cell


def _value(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def table_rows(cells: list[Cell]) -> list[dict]:
    """One JSON row per cell: the paper's value, the compat value, every reading."""
    rows = []
    for cell in cells:
        compat = cell.compat
        rows.append(
            {
                "project": cell.project,
                "scenario": cell.scenario,
                "column": cell.column,
                "metric": cell.metric,
                "model": cell.model,
                "paper": cell.paper,
                "compat": None if compat is None else round(compat.percent, 2),
                "equal": cell.equal is not None,
                "readings": [
                    {"reading": r.reading, "count": r.count, "n": r.n} for r in cell.readings
                ],
                "why": cell.why(),
            }  # fmt: skip
        )
    return rows


def markdown(cells: list[Cell], decreases: list[dict], rankings: list[dict] | None = None) -> str:
    """Per project and scenario: the paper's cell beside the compat reading."""
    lines = ["# ObfusEval's table from the authors' recorded first-round outcomes", ""]
    equal = sum(1 for c in cells if c.equal is not None)
    with_paper = sum(1 for c in cells if c.paper is not None)
    lines += [f"{equal} of {with_paper} of the paper's cells equal the recorded outcomes.", ""]
    for (project, scenario), group in _grouped(cells).items():
        lines += [f"## {project}, {scenario}", ""]
        lines += ["| column | metric | model | paper | compat | count | equal | why not |"]
        lines += ["|---|---|---|---|---|---|---|---|"]
        for cell in group:
            compat = cell.compat
            count = f"{compat.count}/{compat.n}" if compat else "—"
            if compat and len(cell.readings) > 1:
                count += f" ({compat.reading})"
            lines.append(
                f"| {cell.column} | {cell.metric} | {cell.model} | {_value(cell.paper)} | "
                f"{_value(compat.percent if compat else None)} | {count} | "
                f"{'yes' if cell.equal else 'no'} | {cell.why()} |"
            )
        lines.append("")
    if decreases:
        lines += ["## TPR decrease ratio, obfuscated against original (%)", ""]
        lines += [
            "| project | scenario | column | model | compat | paper |",
            "|---|---|---|---|---|---|",
        ]
        for row in decreases:
            if row["metric"] != "TPR":
                continue
            lines.append(
                f"| {row['project']} | {row['scenario']} | {row['column']} | {row['model']} | "
                f"{_ratio(row['compat'])} | {_ratio(row['paper'])} |"
            )
        lines.append("")
    if rankings:
        lines += ["## Ranking stability: the four models by TPR, original against obfuscated", ""]
        lines += ["| project | scenario | setting | functions | Kendall tau [95% CI] |"]
        lines += ["|---|---|---|---|---|"]
        for row in rankings:
            if row.get("tau") is None:
                value = row.get("why", "—")
            else:
                value = f"{row['tau']:.2f} [{_tau(row['ci_low'])}, {_tau(row['ci_high'])}]"
            count = int(row["n_tasks"]) if "n_tasks" in row else "—"
            lines.append(
                f"| {row['project']} | {row['scenario']} | {row['setting']} | {count} | {value} |"
            )
        lines.append("")
    return "\n".join(lines)


def _tau(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _grouped(cells: list[Cell]) -> dict:
    groups: dict = {}
    for cell in cells:
        groups.setdefault((cell.project, cell.scenario), []).append(cell)
    return groups


def census(answers: list[RecordedAnswer]) -> list[dict]:
    """Per answer file and sheet: its schema, the column replayed, how many answers hold
    code, and the statuses of their build and test outcomes."""
    by_reading: dict[str, list[RecordedAnswer]] = {}
    for answer in answers:
        by_reading.setdefault(answer.reading, []).append(answer)
    rows = []
    for reading, group in by_reading.items():
        first = group[0]
        rows.append(
            {
                "project": first.project,
                "setting": first.setting,
                "model": first.model,
                "reading": reading,
                "schema": first.schema,
                "replayed": REPLAYED[first.schema],
                "answers": len(group),
                "with_code": sum(1 for a in group if a.code),
                "build": dict(Counter(a.build.status for a in group)),
                "test": dict(Counter(a.test.status for a in group)),
            }  # fmt: skip
        )
    return rows


def failures(answers: list[RecordedAnswer]) -> list[dict]:
    """The seed's Table VI from the recorded build logs: per project, each category's
    count and share of the failed builds."""
    by_project: dict[str, Counter] = {}
    for answer in answers:
        if answer.build.status == "compile_failed":
            by_project.setdefault(answer.project, Counter())[answer.build.detail] += 1
    rows = []
    for project, found in by_project.items():
        total = sum(found.values())
        for detail, count in found.most_common():
            major, _, category = detail.partition(" / ")
            rows.append(
                {
                    "project": project,
                    "major": major,
                    "category": category,
                    "count": count,
                    "share": count / total,
                }  # fmt: skip
            )
    return rows


LEGEND = "\n".join(f"- `{status}`: {meaning}" for status, meaning in STATUSES.items())
