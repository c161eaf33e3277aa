"""HumanEval (Chen et al. 2021) and HumanEval-ET (Dong et al., CodeScore).

Both are completion-style: the model sees a signature with a docstring and writes the body.
HumanEval's single test is its ``check(candidate)`` function; HumanEval-ET replaces it with
12-143 independent ``assert`` lines, each kept as its own test so per-test results and
timings are available.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.sources import DataFile, file_digest, resolve
from beyondpass.benchmarks.task import Benchmark, Task, TestCase
from beyondpass.errors import DataError
from beyondpass.jsonl import read_objects

HUMANEVAL_FILE = DataFile(
    "humaneval/HumanEval.jsonl.gz",
    "https://github.com/openai/human-eval/raw/master/data/HumanEval.jsonl.gz",
)
HUMANEVAL_ET_FILE = DataFile(
    "humaneval-et/HumanEval_ET.jsonl",
    "https://raw.githubusercontent.com/YihongDong/CodeGenEvaluation/main/HumanEval_ET.jsonl",
)


#: what a line of HumanEval's data files looks like, for error messages
HUMANEVAL_LINE = '{"task_id": ..., "prompt": ..., "entry_point": ..., "test": ...}'


def read_jsonl(path: Path, example: str = HUMANEVAL_LINE) -> list[dict[str, Any]]:
    """The objects of a (possibly gzipped) JSONL data file; a bad line is a DataError
    naming it (:func:`beyondpass.jsonl.read_objects`)."""
    return [row for _, row in read_objects(path, example, "the benchmark data file")]


def _require(row: dict[str, Any], path: Path, *fields: str) -> None:
    missing = [f for f in fields if f not in row]
    if missing:
        raise DataError(f"{path}: task {row.get('task_id', '?')} lacks field(s) {missing}")


def _id_aliases(task_ids: list[str]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for tid in task_ids:
        number = tid.rsplit("/", 1)[-1]
        aliases[number] = tid
        aliases[tid.lower()] = tid
    return aliases


def load_humaneval(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    path = resolve(HUMANEVAL_FILE, data_dir)
    tasks: dict[str, Task] = {}
    for row in read_jsonl(path):
        _require(row, path, "task_id", "prompt", "entry_point", "canonical_solution", "test")
        entry = row["entry_point"]
        tasks[row["task_id"]] = Task(
            benchmark="humaneval",
            task_id=row["task_id"],
            language="python",
            prompt=row["prompt"],
            entry_point=entry,
            reference_solution=row["prompt"] + row["canonical_solution"],
            tests=(TestCase(name="check", code=f"{row['test']}\ncheck({entry})\n"),),
            prompt_style="completion",
        )
    return Benchmark(
        name="humaneval",
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description="HumanEval: 164 hand-written Python problems (Chen et al. 2021)",
        id_aliases=_id_aliases(list(tasks)),
    )


def load_humaneval_et(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    path = resolve(HUMANEVAL_ET_FILE, data_dir)
    tasks: dict[str, Task] = {}
    for row in read_jsonl(path):
        _require(row, path, "task_id", "prompt", "entry_point", "canonical_solution")
        _require(row, path, "test_case_list")
        cases = row["test_case_list"]
        if not isinstance(cases, list) or not cases:
            raise DataError(f"{path}: task {row['task_id']} has no test_case_list entries")
        tasks[row["task_id"]] = Task(
            benchmark="humaneval-et",
            task_id=row["task_id"],
            language="python",
            prompt=row["prompt"],
            entry_point=row["entry_point"],
            reference_solution=row["prompt"] + row["canonical_solution"],
            tests=tuple(TestCase(name=f"et{i}", code=c) for i, c in enumerate(cases)),
            prompt_style="completion",
        )
    return Benchmark(
        name="humaneval-et",
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description="HumanEval-ET: HumanEval with ~100 extended tests per task (Dong et al.)",
        id_aliases=_id_aliases(list(tasks)),
    )
