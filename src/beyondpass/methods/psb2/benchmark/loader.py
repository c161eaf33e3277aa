"""PSB2 as a beyondpass benchmark: one description task per problem, I/O tests.

Each task's tests are its edge cases (``edge-N``) then its random cases (``random-N``),
rendered with ``textio``; integer and string outputs are compared line by line
(``whitespace``), float outputs token-wise within ``EPSILON`` (``numeric``), the seed
paper's epsilon matching. ``psb2`` carries 10,000 random cases per problem, ``psb2-edge``
only the edge cases (a quick run). For a listing (``benchmarks.load_summary``) the random
cases are not generated: the tasks then hold their edge cases only, and everything a
listing shows (version, size, source, coverage) is the same.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import replace

from beyondpass.benchmarks import summary_only
from beyondpass.benchmarks.sources import file_digest
from beyondpass.benchmarks.task import Benchmark, OutputComparison, Task, TestCase
from beyondpass.errors import DataError
from beyondpass.methods.psb2.benchmark.data import (
    DEFAULT_RANDOM,
    DEFAULT_SEED,
    EDGE,
    GENERATOR_VERSION,
    QUIRKS,
    TASKS,
    Case,
    _data_file,
    load_descriptions,
    load_edge_cases,
    random_cases,
)
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS, Problem
from beyondpass.methods.psb2.benchmark.textio import render_lines
from beyondpass.methods.psb2.drivers import reference_program
from beyondpass.methods.psb2.prompts import prompt_fields

EPSILON = 1e-5
EXACT_LINES = OutputComparison("whitespace")


def comparison(problem: Problem, epsilon: float | None = None) -> OutputComparison:
    """Line-exact by default (epsilon matching is derived from the stored first differing
    line, ``analysis.within_epsilon``); ``epsilon`` makes float problems compare within it."""
    if epsilon and any(a.type in ("float", "vec_float") for a in problem.outputs):
        return OutputComparison("numeric", abs_tol=epsilon)
    return EXACT_LINES


def io_test(problem: Problem, case: Case, compare: OutputComparison) -> TestCase:
    """A PSB2 case as an I/O test."""
    return TestCase(
        name=f"{case.kind}-{case.index}",
        stdin=render_lines(problem.inputs, case.inputs),
        expected_stdout=render_lines(problem.outputs, case.outputs),
        compare=compare,
    )


@functools.lru_cache(maxsize=32)
def _random_tests(
    name: str, n: int, seed: int, data_dir: str, compare: OutputComparison
) -> tuple[tuple[TestCase, ...], str]:
    """A problem's random cases as I/O tests, kept for the process: ``psb2``,
    ``psb2-cpp`` and ``psb2-java`` share them (rendering 250,000 cases takes seconds)."""
    cases, origin = random_cases(name, n, seed, data_dir or None)
    return tuple(io_test(PROBLEMS[name], c, compare) for c in cases), origin


def load(
    data_dir: str | os.PathLike[str] | None = None,
    n_random: int = DEFAULT_RANDOM,
    seed: int = DEFAULT_SEED,
    name: str = "psb2",
    language: str = "python",
) -> Benchmark:
    """The 25 PSB2 problems with edge and ``n_random`` random cases each."""
    descriptions = load_descriptions(data_dir)
    edges = load_edge_cases(data_dir)
    missing = sorted(set(PROBLEMS) - set(descriptions))
    missing += sorted(set(PROBLEMS) - set(edges))
    if missing:
        raise DataError(f"PSB2 data lacks problems: {', '.join(sorted(set(missing)))}")
    tasks: dict[str, Task] = {}
    with_random = bool(n_random) and not summary_only()
    for pname, problem in PROBLEMS.items():
        task = problem_task(problem, descriptions[pname], edges[pname], name, language, n_random)
        if with_random:
            cases = _random_tests(pname, n_random, seed, str(data_dir or ""), comparison(problem))
            task = replace(task, tests=task.tests + cases[0])
        tasks[task.task_id] = task
    paths = [p for p in (_data_file(TASKS, data_dir), _data_file(EDGE, data_dir)) if p]
    version = file_digest(*paths) if paths else "original-psb2"
    return Benchmark(
        name=name,
        # 16 hex digits like every benchmark: the data files' hash, generator, seed and count
        version=hashlib.sha256(
            f"{version}+gen{GENERATOR_VERSION}-seed{seed}-n{n_random}".encode()
        ).hexdigest()[:16],
        tasks=tasks,
        source=", ".join(str(p) for p in paths) or "PSB2 original files",
        description="PSB2, 25 program-synthesis problems (stdin/stdout, edge + random cases)",
        coverage=(
            f"25 problems, edge cases + {n_random} random cases each (seed {seed}, "
            f"generator v{GENERATOR_VERSION}); data quirks in task metadata"
        ),
    )


def problem_task(
    problem: Problem,
    description: str,
    edges: list[Case],
    name: str,
    language: str,
    n_random: int = 0,
    task_id: str | None = None,
) -> Task:
    """One problem as a task of benchmark ``name`` in ``language``, its edge cases as I/O
    tests (``n_random``: how many random cases the caller adds; ``task_id``: the problem's
    hyphenated name unless given)."""
    compare = comparison(problem)
    return Task(
        benchmark=name,
        task_id=task_id or problem.hyphenated,
        language=language,
        prompt=description,
        entry_point=problem.name,
        # ours is Python; C++/Java references come with their runners
        reference_solution=reference_program(problem) if language == "python" else "",
        tests=tuple(io_test(problem, c, compare) for c in edges),
        prompt_style="description",
        metadata={
            "psb2_problem": problem.name,
            "inputs": [[a.name, a.type] for a in problem.inputs],
            "outputs": [[a.name, a.type] for a in problem.outputs],
            "n_edge": len(edges),
            "n_random": n_random,
            "compare": compare.as_dict(),
            "quirks": {f"edge-{i}": why for (p, i), why in QUIRKS.items() if p == problem.name},
            "prompt_fields": prompt_fields(problem, language),
        },
    )


def load_psb2(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2``: edge cases and 10,000 random cases per problem."""
    return load(data_dir)


def load_psb2_edge(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2-edge``: the edge cases only."""
    return load(data_dir, n_random=0, name="psb2-edge")


def load_psb2_cpp(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2-cpp``: as ``psb2``, answered in C++ (compiled once in the sandbox, then run on
    every case; execution/languages.py)."""
    return load(data_dir, name="psb2-cpp", language="cpp")


def load_psb2_java(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2-java``: as ``psb2``, answered in Java (see ``load_psb2_cpp``)."""
    return load(data_dir, name="psb2-java", language="java")


def load_psb2_cpp_edge(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2-cpp-edge``: the edge cases only, answered in C++. A program-mode answer runs
    one process per case, so the 10,000 random cases of ``psb2-cpp`` take minutes per
    answer; the 481 edge cases take seconds."""
    return load(data_dir, n_random=0, name="psb2-cpp-edge", language="cpp")


def load_psb2_java_edge(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``psb2-java-edge``: the edge cases only, answered in Java (one JVM per case in
    program mode: see ``load_psb2_cpp_edge``)."""
    return load(data_dir, n_random=0, name="psb2-java-edge", language="java")
