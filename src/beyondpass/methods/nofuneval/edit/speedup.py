"""Runtime efficiency of a file of edits: correctness, speed-up over the source, summary.

Each row's ``source_code`` is run and timed once (its correctness is checked and reported:
where the source itself fails, the row's speed-ups are 1.0 and the row is listed), every
edit is run and timed, and each edit gets ``correct``, ``speedup`` and ``improved``
(:func:`runtime.speedup`; an edit that leaves the program's syntax tree as it was scores
1.0 without a test: :func:`unchanged`). The summary has Average Speedup@k, Correct@k and Improved@k
(score@k,n over each row's samples), the timing method, the sandbox's Python version, and
the rows whose verdict depends on that version (:func:`interpreter_dependence`).
"""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any

from beyondpass.methods.nofuneval.edit import runtime
from beyondpass.methods.nofuneval.edit.samples import score_at_ks

#: Standard-library names CodeNet's Python programs use that later Pythons removed:
#: a program using one is right or wrong depending on the interpreter that runs it.
REMOVED_NAMES = {
    r"\bfractions\s*\.\s*gcd\b|from\s+fractions\s+import[^\n]*\bgcd\b": "fractions.gcd (3.9)",
    r"\btime\s*\.\s*clock\s*\(": "time.clock (3.8)",
    r"\bcollections\s*\.\s*(Mapping|MutableMapping|Sequence|Iterable|Callable)\b": (
        "collections ABC aliases (3.10)"
    ),
    r"\bstring\s*\.\s*(maketrans|letters|lowercase|uppercase)\b": "Python 2 string names",
}


def interpreter_dependence(code: str, syntax: bool = True) -> str:
    """Why the program's verdict depends on the Python version ("" if nothing known): a
    standard-library name that later versions removed, or (``syntax``: for the dataset's
    own programs, which ran under some Python) source this Python cannot compile."""
    try:
        compile(code, "<program>", "exec")
    except SyntaxError:
        return "does not compile under this Python (Python 2 syntax)" if syntax else ""
    except ValueError:
        return ""
    for pattern, why in REMOVED_NAMES.items():
        if re.search(pattern, code):
            return f"uses {why}"
    return ""


def unchanged(source: str, edit: str) -> bool:
    """Whether the edit has the source's syntax tree (only comments or layout changed):
    such an edit cannot be faster, so it is not timed against the source — timing a
    program against itself would call it faster in about one row in twenty (alpha)."""
    if source == edit:
        return True
    try:
        return ast.dump(ast.parse(source)) == ast.dump(ast.parse(edit))
    except (SyntaxError, ValueError):
        return False


def edit_fields(
    source: runtime.Measurement,
    edit: runtime.Measurement,
    source_code: str,
    program: str,
    runs: int,
) -> dict[str, Any]:
    """One edit's runtime record: ``correct``, ``status``, ``speedup``, ``improved``,
    ``source_correct`` and, for a correct edit of a correct source, the mean times and
    the Welch p-value (``timing_error`` when either side has no times, or when the two
    were timed on different nodes: then no speed-up is computed, 1.0, and no p-value)."""
    value, improved = 1.0, False
    apart = other_nodes(source, edit)
    if not unchanged(source_code, program) and not apart:
        value, improved = runtime.speedup(
            source.times_s, edit.times_s, edit.correct and source.correct
        )
    out: dict[str, Any] = {
        "correct": edit.correct,
        "status": edit.status,
        "speedup": value,
        "improved": improved,
        "source_correct": source.correct,
    }
    if edit.message:
        out["message"] = edit.message
    if runs and edit.correct and source.correct:
        out["time_mean_s"] = mean(edit.times_s) if edit.times_s else None
        out["source_time_mean_s"] = mean(source.times_s) if source.times_s else None
        p = math.nan if apart else runtime.welch_faster(source.times_s, edit.times_s)
        out["p_value"] = None if math.isnan(p) else p  # NaN: too few times to test
        if edit.timing_error or source.timing_error:
            out["timing_error"] = edit.timing_error or f"source: {source.timing_error}"
        elif apart:
            out["timing_error"] = apart
    dependence = interpreter_dependence(program, syntax=False)  # a model's bad syntax
    if dependence:
        out["interpreter_dependent"] = dependence
    return out


def other_nodes(source: runtime.Measurement, edit: runtime.Measurement) -> str:
    """Why the edit's times cannot be compared with its source's ("" when they can): both
    were timed, on two different nodes (a node not recorded, as in source times stored
    before nodes were, counts as the same)."""
    if not (source.times_s and edit.times_s and source.node and edit.node):
        return ""
    if source.node == edit.node:
        return ""
    return (
        f"no speed-up across nodes: the source was timed on {source.node} "
        f"({source.cpu_model}), the edit on {edit.node} ({edit.cpu_model})"
    )


def placement(edit: runtime.Measurement | None, source: runtime.Measurement) -> dict[str, str]:
    """Where a sample's program and its source were run and timed (its timing record)."""
    out = {"source_node": source.node, "source_cpu_model": source.cpu_model}
    if edit is not None:
        out = {"node": edit.node, "cpu_model": edit.cpu_model, **out}
    return out


def timing_record(executor: Any, compat: bool, runs: int) -> dict[str, Any]:
    """How the runs were timed, recorded with the results."""
    method = "wall" if compat else "cpu"
    ran = executor.metadata()
    return {
        "method": method,
        "description": runtime.TIMING_METHODS[method],
        "runs_per_case": runs,
        "time_limit": runtime.TIME_LIMITS[compat],
        "welch_alpha": runtime.ALPHA,
        "python": ran.get("python", ""),
        "executor": ran.get("executor", ""),
        "isolation": ran.get("isolation", ""),
    }


RUNTIME_METRICS = ("speedup", "correct", "improved")


def runtime_at_k(per_row: Mapping[Any, Mapping[str, Sequence[float]]]) -> dict[str, float]:
    """Average Speedup@k, Correct@k, Improved@k (``speedup@k``, ...): score@k,n over each
    row's n samples, averaged over rows, for k = 1 and, when every row has the same n > 1,
    k = n (:func:`samples.score_at_ks`). ``per_row``: row -> {"speedup": [...], ...}."""
    scored = {
        key: score_at_ks({row: v[key] for row, v in per_row.items()}) for key in RUNTIME_METRICS
    }
    ks = scored[RUNTIME_METRICS[0]]
    return {f"{key}@{k}": scored[key][k] for k in ks for key in RUNTIME_METRICS}


def runtime_summary(
    lines: Sequence[Mapping[str, Any]],
    sources: Mapping[int, str],
    source_failures: Sequence[Mapping[str, Any]],
    timing: Mapping[str, Any],
) -> dict[str, Any]:
    """The summary's runtime fields from the per-answer lines (``row`` plus
    :func:`edit_fields`): how runs were timed, the rows whose source failed, the rows whose
    verdict depends on the interpreter (an edit's names, or the source of any row in
    ``sources``: row -> source code), the edits without times, and :func:`runtime_at_k`.
    ``nofuneval score`` (from the stored results) and Table 1 of the published files share it."""
    per_row: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in lines:
        for key in RUNTIME_METRICS:
            per_row[s["row"]][key].append(float(s[key]))
    summary: dict[str, Any] = {
        "timing": dict(timing),
        "source_failures": [dict(f) for f in source_failures],
        "interpreter_dependent_rows": sorted(
            {s["row"] for s in lines if "interpreter_dependent" in s}
            | {r for r, code in sources.items() if interpreter_dependence(code)}
        ),
        "edits_without_times": sum("timing_error" in s for s in lines),
    }
    summary.update(runtime_at_k(per_row))
    return summary
