"""NoFunEval's subsets as benchmarks (``nofuneval-latency``, ... ``nofuneval-classify``).

Edit subsets (latency, resource_util, runtime_efficiency, security, maintainability): one
task per dataset row, task id = the row's index (NoFunEval's rows carry no id; its
generation files are in the same order). ``metadata`` holds ``source_code``,
``target_code``, ``pl``, the requirement, the four prompts (as ``prompt_fields`` for the
plans) and both classification prompts with their labels. runtime_efficiency tasks carry
their CodeNet stdin/stdout cases as I/O tests. HumanEvalClassify has only classification
prompts; its task id is the row's ``unique_id``. NoFunClassify is the edit subsets asked as
classification pairs: ``nofuneval-classify-<subset>`` (task id = row index). Classification
tasks carry both orderings' prompts as ``prompt_fields`` and are decided by the
``nofuneval-classify`` evaluator.

Files are resolved like every benchmark's (``--data-dir`` / ``BEYONDPASS_DATA``, cache,
download from NoFunEval's repository at a pinned commit). The maintainability subset is not
public: ``nofuneval-maintainability`` reads ``nofuneval/maintainability.jsonl`` in the data
directory, or the file named by ``BEYONDPASS_NOFUNEVAL_MAINTAINABILITY``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.sources import DataFile, explicit_data_dir, file_digest, resolve
from beyondpass.benchmarks.task import Benchmark, OutputComparison, Task, TestCase
from beyondpass.errors import DataError

COMMIT = "7f6b4d29669caec3b980525954628225025633b9"
UPSTREAM = f"https://raw.githubusercontent.com/microsoft/NoFunEval/{COMMIT}"
#: NoFunEval's subsets, each the name of its dataset file (without .jsonl): the one list
#: every command, reader and table uses (this module imports nothing heavy at the top)
EDIT_SUBSETS = ("latency", "resource_util", "runtime_efficiency", "security", "maintainability")
SUBSETS = (*EDIT_SUBSETS, "humanevalclassify")
#: the four NoFunEdit prompts, in the paper's order; folder names in NoFunEval's tree
PROMPTS = ("base_prompt", "one_shot", "chain_of_thought", "coding_concepts")
#: subsets judged by the static oracle too (docs/nofuneval-oracles.md)
ORACLE_SUBSETS = ("security", "maintainability")
MAINTAINABILITY_ENV = "BEYONDPASS_NOFUNEVAL_MAINTAINABILITY"
CASES_DIR = "nofuneval/codenet_public_test_cases"
#: NoFunEval's comparison of outputs (PIE harness): numbers within 1e-3 (compat)
AUTHORS_TOLERANCE = 1e-3
#: beyondpass's default: whitespace-normalised lines, numbers within 1e-6 relative
DEFAULT_COMPARE = OutputComparison("numeric", abs_tol=0.0, rel_tol=1e-9)
REQUIRED = ("source_code", "target_code", "pl", *PROMPTS)


def benchmark_name(subset: str) -> str:
    return "nofuneval-classify" if subset == "humanevalclassify" else f"nofuneval-{subset}"


def data_file(subset: str) -> DataFile:
    return DataFile(f"nofuneval/{subset}.jsonl", f"{UPSTREAM}/datasets/{subset}.jsonl")


def subset_path(subset: str, data_dir: str | os.PathLike[str] | None) -> Path:
    if subset not in SUBSETS:
        raise DataError(f"unknown NoFunEval subset {subset!r} — choose {', '.join(SUBSETS)}")
    if subset != "maintainability":
        return resolve(data_file(subset), data_dir)
    env = os.environ.get(MAINTAINABILITY_ENV)
    candidates = [Path(env).expanduser()] if env else []
    base = explicit_data_dir(data_dir)
    if base is not None:
        candidates.append(base / "nofuneval" / "maintainability.jsonl")
    for path in candidates:
        if path.is_file():
            return path
    raise DataError(
        "the NoFunEval maintainability subset is not public: put your copy at "
        f"<data dir>/nofuneval/maintainability.jsonl or set {MAINTAINABILITY_ENV}"
        + (f" (looked at {', '.join(map(str, candidates))})" if candidates else "")
    )


def io_cases(problem: str, data_dir: str | os.PathLike[str] | None) -> tuple[TestCase, ...]:
    """The CodeNet public cases of ``problem`` (``input.N.txt`` / ``output.N.txt``)."""
    base = explicit_data_dir(data_dir)
    folder = base / CASES_DIR / problem if base is not None else None
    if folder is None or not folder.is_dir():
        raise DataError(
            f"CodeNet test cases for {problem} not found (looked in {folder or '(no data dir)'}):"
            f" copy NoFunEval's src/evaluation/pie-perf/codenet/public_test_cases to "
            f"<data dir>/{CASES_DIR}"
        )
    cases = []
    for inp in sorted(folder.glob("input.*.txt"), key=lambda p: int(p.name.split(".")[1])):
        out = inp.with_name(inp.name.replace("input", "output", 1))
        if not out.is_file():
            raise DataError(f"{inp} has no matching {out.name}")
        cases.append(
            TestCase(
                name=f"{problem}/{inp.name.split('.')[1]}",
                stdin=inp.read_text("utf-8"),
                expected_stdout=out.read_text("utf-8"),
                compare=DEFAULT_COMPARE,
            )
        )
    if not cases:
        raise DataError(f"{folder} holds no input.N.txt files")
    return tuple(cases)


def _edit_task(
    name: str,
    subset: str,
    n: int,
    row: dict[str, Any],
    where: str,
    data_dir: str | os.PathLike[str] | None,
    *,
    published: bool = False,
) -> Task:
    """Row ``n`` as an edit task. ``published``: a line of the authors' generations file,
    which carries the row's source, target and language but not its prompts (the task has
    none, and no cases: the file is scored for DiffBLEU and the oracle)."""
    required = ("source_code", "target_code", "pl") if published else REQUIRED
    missing = [f for f in required if f not in row]
    if missing:
        raise DataError(f"{where}: row {n} lacks field(s) {missing}")
    tests: tuple[TestCase, ...] = ()
    if subset == "runtime_efficiency" and not published:
        tests = io_cases(str(row["problem_id"]), data_dir)
    meta = {k: v for k, v in row.items() if k not in (*PROMPTS, "generated_answers")}
    meta.update(
        subset=subset,
        evaluator="nofuneval-edit",
        requirement=str(row.get("non_functional_requirement") or _REQUIREMENT[subset]),
        prompt_fields={} if published else {p: str(row[p]) for p in PROMPTS},
        row=n,
    )
    return Task(
        benchmark=name,
        task_id=str(n),
        language=str(row["pl"]).lower(),
        prompt="" if published else str(row["base_prompt"]),
        entry_point=None,
        reference_solution=str(row["target_code"]),
        tests=tests,
        prompt_style="description",
        metadata=meta,
    )


def _benchmark(name: str, path: Path, tasks: dict[str, Task], description: str) -> Benchmark:
    if not tasks:
        raise DataError(f"{path}: no rows")
    return Benchmark(
        name=name,
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description=description,
        coverage=f"{len(tasks)} rows",
    )


_REQUIREMENT = {
    "latency": "latency",
    "resource_util": "resource utilization",
    "runtime_efficiency": "runtime efficiency",
    "security": "security",
    "maintainability": "maintainability",
}


def _classify_task(
    name: str, n: int, row: dict[str, Any], where: str, subset: str = "humanevalclassify"
) -> Task:
    fields = [
        f"classification_{side}_{kind}"
        for side in ("left", "right")
        for kind in ("prompt", "label")
    ]
    missing = [f for f in fields if f not in row]
    if missing:
        raise DataError(f"{where}: row {n} lacks field(s) {missing}")
    meta: dict[str, Any] = {f: str(row[f]) for f in fields}
    meta.update(
        row=n,
        requirement=_REQUIREMENT.get(subset, "correctness"),
        subset=subset,
        evaluator="nofuneval-classify",
        prompt_fields={f: meta[f] for f in fields if f.endswith("_prompt")},
    )
    return Task(
        benchmark=name,
        task_id=str(row.get("unique_id", n)) if subset == "humanevalclassify" else str(n),
        language="python",
        prompt=str(row["classification_left_prompt"]),
        entry_point=None,
        reference_solution="",
        tests=(),
        prompt_style="description",
        metadata=meta,
    )


def load_subset(
    subset: str,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    classify: bool = False,
    name: str | None = None,
) -> Benchmark:
    """A subset as a benchmark; ``classify``: an edit subset as NoFunClassify pairs;
    ``name``: the benchmark's name (default: the subset's)."""
    path = subset_path(subset, data_dir)
    classify = classify or subset == "humanevalclassify"
    if name is None:
        name = benchmark_name(subset)
        if classify and subset != "humanevalclassify":
            name = f"nofuneval-classify-{subset}"
    tasks: dict[str, Task] = {}
    from beyondpass.benchmarks.humaneval import read_jsonl

    for n, row in enumerate(read_jsonl(path)):
        task = (
            _classify_task(name, n, row, str(path), subset)
            if classify
            else _edit_task(name, subset, n, row, str(path), data_dir)
        )
        if task.task_id in tasks:
            raise DataError(f"{path}: row {n} repeats id {task.task_id}")
        tasks[task.task_id] = task
    kind = " classification" if classify else ""
    return _benchmark(name, path, tasks, f"NoFunEval {subset}{kind} (Singhal et al.)")


#: the benchmark built from a published generations file (``nofuneval-published:PATH``)
PUBLISHED = "nofuneval-published"


def load_published(data_dir: str | os.PathLike[str] | None, argument: str) -> Benchmark:
    """The rows of one of the NoFunEval authors' generation files as edit tasks, for a
    subset whose dataset file is not at hand (maintainability is not public): line *i* is
    row *i* and carries its ``source_code``, ``target_code`` and ``pl``; the subset is the
    folder of the file in their tree (``<subset>/<model>/<prompt>/<n>_samples/``). The
    tasks have no prompts (the robust reader finds the echoed one itself) and no cases."""
    from beyondpass.methods.nofuneval.files.generations import generation_lines

    path = Path(argument).expanduser()
    subset = path.parts[-5] if len(path.parts) >= 5 else ""
    if subset not in EDIT_SUBSETS:
        raise DataError(
            f"{path}: not in NoFunEval's generations tree (<subset>/<model>/<prompt>/"
            f"<n>_samples/generated_outputs.jsonl with a subset of {', '.join(EDIT_SUBSETS)})"
        )
    name = f"{PUBLISHED}:{path}"
    tasks: dict[str, Task] = {}
    for n, obj in generation_lines(path):
        where = f"{path}:{n}"
        task = _edit_task(name, subset, len(tasks), obj, where, data_dir, published=True)
        tasks[task.task_id] = task
    description = f"NoFunEval {subset}: the rows of a published generations file"
    return _benchmark(name, path, tasks, description)


#: the demo's benchmark: latency edits of Python programs, written for the demo
DEMO = "nofuneval-demo"


def load_demo(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``nofuneval-demo``: four latency edits of small Python programs written for the demo
    (``nofuneval/latency.jsonl`` of ``beyondpass.demo``'s data folder, in the dataset's
    format; no tests, so their edits are scored by DiffBLEU), whatever ``data_dir`` says."""
    from beyondpass.demo import data_dir as demo_data

    bench = load_subset("latency", demo_data(), name=DEMO)
    bench.description = "NoFunEval-style latency edits written for the demo (Python)"
    return bench


def _loader(subset: str, classify: bool = False) -> Callable[..., Benchmark]:
    def load(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
        return load_subset(subset, data_dir, classify=classify)

    load.__name__ = f"load_{'classify_' if classify else ''}{subset}"
    return load


load_latency = _loader("latency")
load_resource_util = _loader("resource_util")
load_runtime_efficiency = _loader("runtime_efficiency")
load_security = _loader("security")
load_maintainability = _loader("maintainability")
load_classify = _loader("humanevalclassify")
load_classify_latency = _loader("latency", classify=True)
load_classify_resource_util = _loader("resource_util", classify=True)
load_classify_runtime_efficiency = _loader("runtime_efficiency", classify=True)
load_classify_security = _loader("security", classify=True)
load_classify_maintainability = _loader("maintainability", classify=True)
