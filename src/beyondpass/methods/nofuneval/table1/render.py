"""Markdown for ``nofuneval table1``: Table 1 beside the paper's, and the agreement table,
read from the runs of the published files (:mod:`.score`: each cell is a figure of one
run's summary, computed by the same functions as ``nofuneval score``'s and the report's).

The paper's cells (Singhal et al., Table 1) are score@1,20 over 20 samples at T = 0.8, the
min and max over the four prompts; the published files scored here are the greedy single
samples, so the regenerated cells are score@1,1 — the same metric on other generations.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from beyondpass.analysis.formatting import percent
from beyondpass.methods.nofuneval.benchmark import PROMPTS
from beyondpass.methods.nofuneval.edit.table1_cells import PROMPT_MARKS, Span, span, table1_cells
from beyondpass.methods.nofuneval.table1.published import TABLE1_ORDER
from beyondpass.methods.nofuneval.table1.score import FileRuns
from beyondpass.report.table import Table, tables_markdown, text_rows

#: published model folder -> the paper's row name
PAPER_NAMES = {
    "gpt-3.5-turbo": "GPT-3.5-Turbo",
    "gpt-4": "GPT-4",
    "WizardCoder-15B-V1.0": "WizardCoder-15.5B",
    "Mistral-7B-Instruct-v0.1": "Mistral-7B-Inst",
    "Phind-CodeLlama-34B-v2": "Phind-CodeLlama-34B",
    "deepseek-coder-33b-instruct": "DeepSeekCoder-33B-Inst",
}
#: the paper's Table 1 for the six models with published generations: subset ->
#: model -> (min, prompt, max, prompt); maintainability and security are DiffBLEU x CodeQL,
#: runtime efficiency Average Speedup@1,20, the others DiffBLEU (x 100)
PAPER: dict[str, dict[str, tuple[float, str, float, str]]] = {
    "latency": {
        "gpt-3.5-turbo": (12.2, "1S", 31.3, "CoCo"),
        "gpt-4": (14.2, "B", 35.9, "CoCo"),
        "WizardCoder-15B-V1.0": (3.9, "1S", 16.1, "CoCo"),
        "Mistral-7B-Instruct-v0.1": (6.6, "1S", 12.7, "CoCo"),
        "Phind-CodeLlama-34B-v2": (4.7, "1S", 29.2, "CoCo"),
        "deepseek-coder-33b-instruct": (10.7, "1S", 28.7, "CoCo"),
    },
    "resource_util": {
        "gpt-3.5-turbo": (10.8, "B", 29.9, "CoCo"),
        "gpt-4": (10.7, "B", 26.3, "CoCo"),
        "WizardCoder-15B-V1.0": (5.7, "1S", 15.3, "CoCo"),
        "Mistral-7B-Instruct-v0.1": (6.0, "1S", 9.5, "CoCo"),
        "Phind-CodeLlama-34B-v2": (5.0, "1S", 21.5, "CoCo"),
        "deepseek-coder-33b-instruct": (8.7, "1S", 20.8, "CoCo"),
    },
    "runtime_efficiency": {
        "gpt-3.5-turbo": (1.302, "B", 1.774, "CoCo"),
        "gpt-4": (1.303, "B", 2.380, "CoCo"),
        "WizardCoder-15B-V1.0": (1.031, "B", 1.183, "CoCo"),
        "Mistral-7B-Instruct-v0.1": (1.011, "B", 1.118, "CoCo"),
        "Phind-CodeLlama-34B-v2": (1.148, "B", 2.155, "CoCo"),
        "deepseek-coder-33b-instruct": (1.548, "B", 2.269, "CoCo"),
    },
    "maintainability": {
        "gpt-3.5-turbo": (21.0, "B", 40.3, "CoCo"),
        "gpt-4": (33.2, "B", 51.1, "CoCo"),
        "WizardCoder-15B-V1.0": (6.8, "B", 13.0, "CoCo"),
        "Mistral-7B-Instruct-v0.1": (4.6, "B", 8.0, "CoCo"),
        "Phind-CodeLlama-34B-v2": (15.7, "CoT", 38.8, "CoCo"),
        "deepseek-coder-33b-instruct": (18.7, "B", 32.2, "CoCo"),
    },
    "security": {
        "gpt-3.5-turbo": (39.3, "B", 55.6, "1S"),
        "gpt-4": (41.5, "B", 64.3, "CoT/1S"),
        "WizardCoder-15B-V1.0": (25.6, "B", 51.7, "1S"),
        "Mistral-7B-Instruct-v0.1": (23.0, "B", 41.6, "1S"),
        "Phind-CodeLlama-34B-v2": (33.0, "B", 59.1, "1S"),
        "deepseek-coder-33b-instruct": (29.5, "B", 47.3, "1S"),
    },
}


def _pct(value: float | None) -> str:
    return percent(value, 1)


def _paper(subset: str, model: str) -> str:
    cell = PAPER.get(subset, {}).get(model)
    if cell is None:
        return "—"
    paper = Span(*cell)  # its conditions are already the paper's marks
    if subset == "runtime_efficiency":  # Average Speedup@1,20, not DiffBLEU
        return "Speedup " + paper.text(lambda v: f"{v:.3f}")
    return paper.text(str)


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    return Table(header, text_rows(rows), ["l"] * 2 + ["r"] * (len(header) - 2), title=title)


def diffbleu_tables(results: list[FileRuns]) -> list[Table]:
    """Per subset: DiffBLEU x 100 per model and prompt (compat; default in brackets where it
    differs), min – max, and the paper's min – max."""
    by: dict[str, dict[str, dict[str, FileRuns]]] = defaultdict(lambda: defaultdict(dict))
    for r in results:
        by[r.file.subset][r.file.model][r.file.prompt] = r
    tables = []
    for subset in [s for s in TABLE1_ORDER if s in by] + sorted(set(by) - set(TABLE1_ORDER)):
        rows = []
        for model, cells in by[subset].items():
            values, parts = {}, []
            for p in PROMPTS:
                r = cells.get(p)
                if r is None:
                    parts.append("—")
                    continue
                c, d = r.value("compat"), r.value("default")
                values[p] = c
                parts.append(_pct(c) if _pct(c) == _pct(d) else f"{_pct(c)} ({_pct(d)})")
            note = "" if subset not in ("maintainability", "security") else " (x CodeQL)"
            name = PAPER_NAMES.get(model, model)
            cell = span(values)
            minmax = "—" if cell is None else cell.text(_pct)
            rows.append([name, *parts, minmax, _paper(subset, model) + note])
        header = ["model", *(PROMPT_MARKS[p] for p in PROMPTS), "min – max", "paper (score@1,20)"]
        title = f"{subset}: DiffBLEU x 100, compat (default in brackets where different)"
        tables.append(_table(title, header, rows))
    return tables


def grid_table(results: list[FileRuns]) -> Table:
    """Table 1 in the paper's layout: a row per model, a column per subset, each cell the
    min – max of the compat DiffBLEU (x 100) over the prompts — drawn by the report's one
    builder of Table 1's cells."""
    scores = {
        (PAPER_NAMES.get(r.file.model, r.file.model), r.file.subset, r.file.prompt): value
        for r in results
        if not math.isnan(value := r.value("compat"))
    }
    subsets = list(dict.fromkeys(r.file.subset for r in results))
    models = list(dict.fromkeys(model for model, _, _ in scores))
    rows = table1_cells(scores, models, subsets, _pct)
    title = "Table 1: DiffBLEU x 100 (compat), min – max over the four prompts"
    return _table(title, ["model", *subsets], rows)


def agreement_table(results: list[FileRuns]) -> Table:
    """Per file (model x prompt, a column per subset): rows whose compat DiffBLEU and
    template flag equal the authors' code, of the rows the file has; differing rows named."""
    cells: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    subsets: list[str] = []
    for r in results:
        a = r.agreement
        if a is None:
            continue
        f = r.file
        subsets += [f.subset] if f.subset not in subsets else []
        cell = f"{a['equal']}/{a['rows']}"
        if a["differ"]:
            cell += " (rows " + ", ".join(str(d["row"]) for d in a["differ"]) + ")"
        cells[(f.model, f.prompt)][f.subset] = cell
    rows = [
        [PAPER_NAMES.get(model, model), PROMPT_MARKS[prompt], *(row.get(s, "—") for s in subsets)]
        for (model, prompt), row in cells.items()
    ]
    return _table("Agreement with the authors' code", ["model", "prompt", *subsets], rows)


def runtime_table(results: list[FileRuns]) -> Table:
    """Runtime efficiency: Correct@1 per reading, and Average Speedup@1 / Improved@1 when timed."""
    header = ["model", "prompt", "Correct@1 compat", "default", "Speedup@1 compat", "default",
              "Improved@1 compat", "default", "paper Speedup@1,20 min – max"]  # fmt: skip
    rows = []
    for r in results:
        if not (r.ran("compat") or r.ran("default")):
            continue
        c, d = (r.summaries[x] if r.ran(x) else {} for x in ("compat", "default"))
        timed = (c or d).get("timing", {}).get("runs_per_case", 0) > 0

        def num(s: dict[str, Any], key: str, pct: bool, timed: bool = timed) -> str:
            if not s:  # that reading was not run (--reading)
                return "not run"
            if key != "correct@1" and not timed:
                return "not timed"
            v = s.get(key)
            return "—" if v is None else (f"{100 * v:.1f} %" if pct else f"{v:.3f}")

        rows.append([
            PAPER_NAMES.get(r.file.model, r.file.model), PROMPT_MARKS[r.file.prompt],
            num(c, "correct@1", True), num(d, "correct@1", True),
            num(c, "speedup@1", False), num(d, "speedup@1", False),
            num(c, "improved@1", True), num(d, "improved@1", True),
            _paper("runtime_efficiency", r.file.model),
        ])  # fmt: skip
    return _table("Runtime efficiency", header, rows)


def oracle_table(results: list[FileRuns]) -> Table:
    """DiffBLEU x the open oracle (x 100) per file, where it could judge rows."""
    header = ["subset", "model", "prompt", "judged rows", "DiffBLEU x oracle compat", "default"]
    rows = []
    for r in results:
        if not (r.judged("compat") and r.judged("default")):
            continue
        c, d = r.summaries["compat"], r.summaries["default"]
        rows.append([
            r.file.subset, PAPER_NAMES.get(r.file.model, r.file.model), PROMPT_MARKS[r.file.prompt],
            str(c.get("oracle_samples", 0)), _pct(c.get("diffbleu_x_oracle_score@1")),
            _pct(d.get("diffbleu_x_oracle_score@1")),
        ])  # fmt: skip
    return _table("DiffBLEU x oracle", header, rows)


def render(results: list[FileRuns]) -> str:
    """``table1.md``: every table through the one table model (report/table.py)."""
    tables = [grid_table(results), *diffbleu_tables(results)]
    if any(r.ran("compat") or r.ran("default") for r in results):
        tables.append(runtime_table(results))
    if any(r.judged("compat") and r.judged("default") for r in results):
        tables.append(oracle_table(results))
    if any(r.agreement for r in results):
        tables.append(agreement_table(results))
    title = "# NoFunEval Table 1 from the published generations\n\n"
    return title + tables_markdown(tables, level=2)
