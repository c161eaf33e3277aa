"""MBPP sanitized (Austin et al. 2021; 427 tasks) and MBPP-ET (Dong et al.; 397 of them).

MBPP is description-style: the model gets prose plus one example assertion (so it knows the
function name, as EvalPlus does) and writes a whole program. Task ids keep MBPP's own numbers
(``MBPP/11``), which are shared by the full 500-task split, the sanitized subset and MBPP-ET,
so answers recorded on any of them line up.

MBPP-ET's extended tests were generated from the *original* MBPP problems, whose function
signatures sanitized MBPP sometimes changed (``find_Max_Num(arr, n)`` became
``find_Max_Num(arr)``). So MBPP-ET tasks keep MBPP-ET's own text, reference code and entry
point, restricted to the task ids of sanitized MBPP; the tasks MBPP-ET lacks are reported as
coverage, not hidden.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.humaneval import read_jsonl
from beyondpass.benchmarks.sources import DataFile, file_digest, resolve
from beyondpass.benchmarks.task import Benchmark, Task, TestCase
from beyondpass.errors import DataError

MBPP_FILE = DataFile(
    "mbpp/sanitized-mbpp.json",
    "https://github.com/google-research/google-research/raw/master/mbpp/sanitized-mbpp.json",
)
MBPP_ET_FILE = DataFile(
    "mbpp-et/MBPP_ET.jsonl",
    "https://raw.githubusercontent.com/YihongDong/CodeGenEvaluation/main/MBPP_ET.jsonl",
)
#: what a line of MBPP-ET looks like, for error messages
ET_LINE = '{"task_id": ..., "text": ..., "code": ..., "test_list": [...]}'
N_SANITIZED = 427


def mbpp_id(number: int | str) -> str:
    return f"MBPP/{int(number)}"


def mbpp_prompt(text: str, example_test: str) -> str:
    """The MBPP task text with one example assertion, the only hint of the function name."""
    return f"{text.strip()}\nYour code should pass this test:\n{example_test.strip()}\n"


def entry_point_of(code: str, test: str) -> str | None:
    """The function a test calls that the reference code defines."""
    try:
        defined = {
            n.name
            for n in ast.parse(code).body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        calls = [
            n.func.id
            for n in ast.walk(ast.parse(test))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        ]
    except SyntaxError:
        return None
    return next((c for c in calls if c in defined), None)


def _read_sanitized(path: Path) -> list[dict[str, Any]]:
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: cannot read MBPP data ({exc})") from exc
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a JSON list of tasks")
    for row in rows:
        missing = [f for f in ("task_id", "prompt", "code", "test_list") if f not in row]
        if missing:
            raise DataError(f"{path}: task {row.get('task_id', '?')} lacks field(s) {missing}")
    return rows


def _aliases(tasks: dict[str, Task]) -> dict[str, str]:
    out: dict[str, str] = {}
    for tid in tasks:
        number = tid.split("/")[1]
        out.update({number: tid, tid.lower(): tid, f"mbpp/{number}": tid})
    return out


def _task(
    benchmark: str, number: int, text: str, code: str, tests: list[str], setup: str = ""
) -> Task:
    code = code.replace("\r\n", "\n")
    return Task(
        benchmark=benchmark,
        task_id=mbpp_id(number),
        language="python",
        prompt=mbpp_prompt(text, tests[0]),
        entry_point=entry_point_of(code, tests[0]),
        reference_solution=code,
        tests=tuple(TestCase(name=f"t{i}", code=t) for i, t in enumerate(tests)),
        test_setup=setup,
        prompt_style="description",
    )


def load_mbpp(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    path = resolve(MBPP_FILE, data_dir)
    rows = _read_sanitized(path)
    tasks = {
        mbpp_id(r["task_id"]): _task(
            "mbpp",
            r["task_id"],
            r["prompt"],
            r["code"],
            r["test_list"],
            "\n".join(r.get("test_imports") or []),
        )
        for r in rows
    }
    return Benchmark(
        name="mbpp",
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description="MBPP sanitized: 427 crowd-sourced Python problems (Austin et al. 2021)",
        coverage=f"{len(tasks)} of {N_SANITIZED} sanitized MBPP tasks",
        id_aliases=_aliases(tasks),
    )


def load_mbpp_et(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    sanitized_path = resolve(MBPP_FILE, data_dir)
    et_path = resolve(MBPP_ET_FILE, data_dir)
    sanitized = {int(r["task_id"]): r for r in _read_sanitized(sanitized_path)}
    tasks: dict[str, Task] = {}
    for row in read_jsonl(et_path, ET_LINE):
        missing_fields = [f for f in ("task_id", "text", "code", "test_list") if f not in row]
        if missing_fields:
            raise DataError(f"{et_path}: task {row.get('task_id', '?')} lacks {missing_fields}")
        number = int(row["task_id"])
        if number not in sanitized:  # rows outside sanitized MBPP are not part of this benchmark
            continue
        tests = row["test_list"]
        if isinstance(tests, str):
            tests = ast.literal_eval(tests)
        tasks[mbpp_id(number)] = _task(
            "mbpp-et", number, row["text"], row["code"], list(tests), row.get("test_setup_code", "")
        )
    ordered = dict(sorted(tasks.items(), key=lambda kv: int(kv[0].split("/")[1])))
    missing = sorted(set(sanitized) - {int(t.split("/")[1]) for t in ordered})
    return Benchmark(
        name="mbpp-et",
        version=file_digest(sanitized_path, et_path),
        tasks=ordered,
        source=f"{sanitized_path} + {et_path}",
        description="MBPP-ET: sanitized MBPP tasks with ~100 extended tests each (Dong et al.)",
        coverage=(
            f"{len(ordered)} of {N_SANITIZED} sanitized MBPP tasks "
            f"({len(missing)} have no MBPP-ET tests: {', '.join(map(str, missing))})"
        ),
        id_aliases=_aliases(ordered),
    )
