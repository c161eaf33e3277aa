"""PSB2's demo benchmarks: two problems in Python, C++ and Java, edge cases only.

The descriptions and cases were written for the demo and sit in ``beyondpass.demo``'s data
folder in PSB2's data format (``psb2/tasks.txt``, ``psb2/edge.jsonl``); the expected outputs
are those of beyondpass's reference solutions. Each language is a benchmark, as in the
method; a task id names its language (``cpp/gcd``) because one answers file per model
answers all three, and a replayed answer is found by task id and condition.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from beyondpass.benchmarks.sources import file_digest
from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import DataError
from beyondpass.methods.psb2.benchmark.data import EDGE, TASKS, load_descriptions, load_edge_cases
from beyondpass.methods.psb2.benchmark.loader import problem_task
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS

LANGUAGES = ("python", "cpp", "java")


def benchmark_name(language: str) -> str:
    """``psb2-demo-<language>-edge``: edge cases only, as ``psb2-edge`` (the name says so)."""
    return f"psb2-demo-{language}-edge"


def load_demo(language: str) -> Benchmark:
    """The demo's problems answered in ``language``."""
    from beyondpass.demo import data_dir

    folder = data_dir()
    descriptions = load_descriptions(folder)
    edges = load_edge_cases(folder)
    if set(descriptions) != set(edges):
        raise DataError(f"{folder}/psb2: tasks.txt and edge.jsonl name different problems")
    name = benchmark_name(language)
    tasks = {}
    for pname in descriptions:
        problem = PROBLEMS[pname]
        task_id = f"{language}/{problem.hyphenated}"
        tasks[task_id] = problem_task(
            problem, descriptions[pname], edges[pname], name, language, task_id=task_id
        )
    return Benchmark(
        name=name,
        version=file_digest(folder / TASKS.relpath, folder / EDGE.relpath),
        tasks=tasks,
        source=str(folder / "psb2"),
        description=f"PSB2-style problems written for the demo, answered in {language}",
        coverage=f"{len(tasks)} problems, edge cases only",
    )


def _loader(language: str) -> Callable[..., Benchmark]:
    def load(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
        return load_demo(language)

    load.__name__ = f"load_demo_{language}"
    return load


load_demo_python = _loader("python")
load_demo_cpp = _loader("cpp")
load_demo_java = _loader("java")
