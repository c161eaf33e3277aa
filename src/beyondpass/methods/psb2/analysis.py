"""Pass ratios of the PSB2 method: edge/random x exact/epsilon, failure kinds.

The executor compares every PSB2 case line-exactly (``whitespace`` mode) and stores, for a
wrong output, the first differing line (``line N: expected 'A', got 'B'``). Every PSB2
problem with a float output has exactly one output line, so that line decides epsilon
matching too: a case passes with epsilon when it passed exactly, or when its only wrong
line matches token by token, numbers within ``epsilon`` (absolute, 1e-5 by default, the
seed's value) and other tokens equal. No second run is needed.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from beyondpass.methods.psb2.drivers import NOT_CALLABLE_EXIT
from beyondpass.store.run_store import Row

EPSILON = 1e-5
_WRONG = re.compile(r"^line (\d+): expected ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"), got (.*)$")


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def within_epsilon(message: str, epsilon: float = EPSILON) -> bool:
    """Whether a wrong-output message's differing line matches within ``epsilon``."""
    m = _WRONG.match(message or "")
    if not m or not m.group(3).startswith(("'", '"')):
        return False  # "got end of output" and anything unparsable: no match
    try:
        expected, got = ast.literal_eval(m.group(2)), ast.literal_eval(m.group(3))
    except (ValueError, SyntaxError):
        return False
    exp_tokens, got_tokens = str(expected).split(), str(got).split()
    if len(exp_tokens) != len(got_tokens):
        return False
    for e, g in zip(exp_tokens, got_tokens, strict=True):
        ne, ng = _number(e), _number(g)
        if ne is not None and ng is not None:
            if abs(ne - ng) > epsilon:
                return False
        elif e != g:
            return False
    return True


def failure_kind(test: dict[str, Any]) -> str:
    """What went wrong in one case: ``wrong_output``, ``runtime_error:<type>``, ..."""
    status = test.get("status", "")
    if status == "failed" and test.get("error_type") == "WrongOutput":
        return "wrong_output"
    if test.get("exit_code") == NOT_CALLABLE_EXIT:
        return "function_not_found"
    if status in ("error", "failed"):
        return f"runtime_error:{test.get('error_type') or 'exit'}"
    return str(status)


@dataclass
class TaskResult:
    """One answer's outcome on one PSB2 task."""

    task_id: str
    status: str
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind -> [n, exact, eps]
    failures: Counter[str] = field(default_factory=Counter)
    first_failure: str = ""

    def ratio(self, kind: str, epsilon: bool) -> float | None:
        n, exact, eps = self.counts.get(kind, [0, 0, 0])
        if not n:
            return None
        return (eps if epsilon else exact) / n

    def passed(self, kind: str, epsilon: bool) -> bool | None:
        """Whether every case of ``kind`` passed (``None``: the task has no such cases)."""
        if kind not in self.counts:
            return None
        n, exact, eps = self.counts[kind]
        return (eps if epsilon else exact) == n


def task_result(row: Row, n_tests: dict[str, int], epsilon: float = EPSILON) -> TaskResult:
    """Count exact and epsilon passes per case kind (``edge``/``random``) of a sample.

    ``n_tests`` is how many cases of each kind the task has: a sample that stopped early
    (no code, compile error) counts every case it did not run as failed.
    """
    res = row.result
    out = TaskResult(row.sample.task_id, res.status if res else "unscored")
    out.counts = {kind: [n, 0, 0] for kind, n in n_tests.items()}
    tests = (res.details or {}).get("tests", []) if res else []
    for test in tests:
        kind = str(test.get("name", "")).split("-")[0]
        if kind not in out.counts:
            continue
        if test.get("status") == "passed":
            out.counts[kind][1] += 1
            out.counts[kind][2] += 1
            continue
        if failure_kind(test) == "wrong_output" and within_epsilon(
            test.get("message", ""), epsilon
        ):
            out.counts[kind][2] += 1
            continue
        out.failures[failure_kind(test)] += 1
        if not out.first_failure:
            out.first_failure = f"{test.get('name')}: {test.get('message', '')}".strip()
    if res is None or (not tests and res.status != "passed"):
        out.failures[res.status if res else "unscored"] += 1
    return out


def collect(
    rows: list[Row], epsilon: float = EPSILON
) -> dict[tuple[str, str, str], list[TaskResult]]:
    """(benchmark, condition, model) -> the first answer's result per task (first answer
    accepted, as the seed does)."""
    out: dict[tuple[str, str, str], list[TaskResult]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: (r.sample.task_id, r.sample.sample_index)):
        s = row.sample
        if s.sample_index != 0 or not s.benchmark.startswith("psb2"):
            continue
        n_tests = _n_tests(row)
        out[(s.benchmark, s.condition, s.model)].append(task_result(row, n_tests, epsilon))
    return out


def _n_tests(row: Row) -> dict[str, int]:
    """Cases per kind the task declares (recorded by the functional evaluator), so a sample
    whose time ran out part-way counts the cases it never reached as failed. Results scored
    before that record existed fall back to the cases the sample ran. A kind with no case
    recorded at all (no code, compile error) counts as one failed case: its ratio is 0."""
    details = (row.result.details or {}) if row.result else {}
    declared = details.get("tests_declared") or {}
    names = Counter(str(t.get("name", "")).split("-")[0] for t in details.get("tests", []))
    kinds = ("edge",) if row.sample.benchmark.endswith("-edge") else ("edge", "random")
    return {k: max(int(declared.get(k, 0)), names.get(k, 0), 1) for k in kinds}
