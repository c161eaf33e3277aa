"""Preparing a project and judging one answer: splice, import check (CPR), tests (TPR).

Asking, storing and resuming are the study runner's (``study.py`` builds the run); this
module holds what is particular to a project.

Preparation (once): unpack/copy the project into scratch, measure which tests cover which
lines, pick the tasks, and run all their covering tests ``repeats`` times on an untouched
copy — a test that fails in any of those runs is flaky (or broken upstream) and is left
out of every task. Then each task's tests run once with the original function behind the
process boundary (``boundary``): a test that fails there (an argument that is not data, a
behaviour the boundary changes) is left out of that task with the reason. Per task: a
test copy with the proxy and a worker copy with the answer spliced in, the install/build
step, an import of the module in the worker copy that must prove over a socket of its own
that the import returned (CPR, ``importcheck.py``), then the remaining covering tests
``repeats`` times (TPR), every call of the function answered by a sandboxed worker.
"""

from __future__ import annotations

import platform
import shutil
from collections import Counter
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.execution import Sandboxes
from beyondpass.extraction import extract
from beyondpass.methods.obfuseval.project.boundary import testing_copy, worker_copy
from beyondpass.methods.obfuseval.project.coverage_map import measure
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.project.splice import SpliceError, dropped_statements
from beyondpass.methods.obfuseval.project.tasks import (
    ProjectTask,
    map_back,
    module_name,
    select_tasks,
)
from beyondpass.methods.obfuseval.project.testing import (
    CATEGORIES,
    Worker,
    category_of,
    exception_in,
    import_check,
    pytest_words,
    run_once,
    run_tests,
)
from beyondpass.methods.obfuseval.project.workspace import (
    ProjectSandbox,
    fresh_copy,
    materialise,
    tree_digest,
)
from beyondpass.methods.obfuseval.symbol import Unsupported


@dataclass
class Prepared:
    """A project ready to be asked about."""

    spec: ProjectSpec
    sandbox: ProjectSandbox
    pristine: Path
    source_digest: str
    tasks: list[ProjectTask]
    flaky: list[str] = field(default_factory=list)  # failed in some run of the untouched copy
    dropped: list[dict[str, str]] = field(default_factory=list)  # tasks left without tests
    #: tests left out of a task: they fail (or are slow) with the original behind the boundary
    not_crossing: list[dict[str, str]] = field(default_factory=list)
    test_files: tuple[str, ...] = ()  # files of the project's tests (kept from the worker)


@dataclass
class TaskResult:
    """The verdict on one regenerated function."""

    task_id: str
    compiled: bool
    passed: bool
    category: str | None  # the failure class (None: passed)
    detail: str
    tests: int  # covering tests run (flaky ones excluded)
    failing_tests: list[str]
    prompt: str
    answer: str
    model_version: str = ""
    mapping: dict[str, str] = field(default_factory=dict)
    #: first lines of the answer's statements the splice left out (``splice.py``)
    dropped: list[str] = field(default_factory=list)


def prepare(spec: ProjectSpec, scratch: Path, sandboxes: Sandboxes, seed: int = 0) -> Prepared:
    """Unpack, measure coverage, pick tasks, find flaky tests and tests whose calls cannot
    cross the process boundary (all in ``scratch``), in the run's ``sandboxes``."""
    sandbox = ProjectSandbox(spec, sandboxes)
    scratch.mkdir(parents=True, exist_ok=True)
    pristine = materialise(spec, scratch)
    digest = tree_digest(pristine)
    coverage = measure(sandbox, fresh_copy(pristine, scratch / "coverage"))
    test_files = tuple(
        sorted({t.split("::")[0] for lines in coverage.values() for n in lines.values() for t in n})
    )
    tasks = select_tasks(spec, pristine, coverage, seed)
    wanted = sorted({t for task in tasks for t in task.tests})
    baseline = run_tests(
        sandbox, fresh_copy(pristine, scratch / "baseline"), wanted, spec.repeats, None
    )
    flaky = set(baseline.failing)
    prepared = Prepared(spec, sandbox, pristine, digest, [], sorted(flaky), [], [], test_files)
    for task in tasks:
        tests = tuple(t for t in task.tests if t not in flaky)
        crossing = crossing_check(prepared, _with_tests(task, tests), scratch / "crossing")
        for test, why in crossing.items():
            prepared.not_crossing.append({"task_id": task.task_id, "test": test, "reason": why})
        tests = tuple(t for t in tests if t not in crossing)
        if tests:
            prepared.tasks.append(_with_tests(task, tests))
        elif crossing:
            first = next(iter(crossing.values()))
            prepared.dropped.append(
                {
                    "task_id": task.task_id,
                    "reason": f"no covering test works across the "
                    f"process boundary with the original function ({first})",
                }
            )
        else:
            prepared.dropped.append(
                {"task_id": task.task_id, "reason": "every covering test is flaky"}
            )
    for name in ("coverage", "baseline", "crossing"):
        shutil.rmtree(scratch / name, ignore_errors=True)
    return prepared


def crossing_check(prepared: Prepared, task: ProjectTask, work: Path) -> dict[str, str]:
    """The task's tests that fail in one run with the original function in the worker:
    test -> why (``ArgumentsCannotCross: ... a function object is not data``). A run that
    reaches its time limit charges the test it was in; the tests it never reached run
    again in a new run. Tests that pass but are slow across the boundary are left out too
    (:func:`too_slow`)."""
    if not task.tests:
        return {}
    sandbox = prepared.sandbox
    module = module_name(task.path, prepared.spec)
    tests = testing_copy(prepared.pristine, work / "tests", task, module)
    worker = Worker(
        worker_copy(prepared.pristine, work / "worker", task, None, prepared.test_files), module
    )
    for copy in (tests, worker.copy):
        sandbox.install(copy)
    reasons: dict[str, str] = {}
    seconds: dict[str, float] = {}
    remaining = sorted(task.tests)
    while remaining:
        words = pytest_words(sandbox, tests, remaining)
        done, seen, started = run_once(sandbox, tests, words, worker)
        for test in remaining:
            outcome = seen.get(test)
            if outcome is not None and outcome.error is not None:
                reasons[test] = f"{outcome.error}: {outcome.message}"[:300]
            elif outcome is not None:
                seconds[test] = outcome.seconds
        unseen = [t for t in remaining if t not in seen]
        if not done.timed_out:
            why = exception_in(done.stdout + "\n" + done.stderr) or "not reported"
            reasons.update(dict.fromkeys(unseen, why))
            break
        hung = [t for t in unseen if t in started] or unseen[:1]
        limit = f"timeout: the run passed {prepared.spec.timeout_s:g} s in this test"
        reasons.update(dict.fromkeys(hung, limit))
        remaining = [t for t in unseen if t not in hung]
    shutil.rmtree(work, ignore_errors=True)
    reasons.update(too_slow(seconds, prepared.spec.timeout_s))
    return reasons


def too_slow(seconds: dict[str, float], limit_s: float) -> dict[str, str]:
    """The slowest of the tests that crossed (test -> seconds), left out until the others
    together take at most half the run's time limit: every judged run keeps that much time
    in hand, so an answer's verdict does not turn on how loaded the machine is (a test
    that streams 78,498 items across the boundary one message each came near the limit
    in one of five runs)."""
    kept = sorted(seconds.items(), key=lambda item: (item[1], item[0]))
    total = sum(seconds.values())
    slow: dict[str, str] = {}
    while kept and total > limit_s / 2:
        test, took = kept.pop()
        total -= took
        slow[test] = (
            f"slow: {took:.1f} s with the original function behind the process boundary; "
            f"a task's tests together stay within half of the run's {limit_s:g} s limit"
        )
    return slow


def _with_tests(task: ProjectTask, tests: tuple[str, ...]) -> ProjectTask:
    return ProjectTask(**{**asdict(task), "tests": tests, "scope": task.scope})


def _entry_name(task: ProjectTask) -> str:
    return task.mapping.get(task.name, task.name)


def evaluate(prepared: Prepared, task: ProjectTask, answer: str, work: Path) -> TaskResult:
    """Splice ``answer`` into a fresh copy and run the covering tests; never raises for a
    bad answer."""
    spec, sandbox = prepared.spec, prepared.sandbox
    result = TaskResult(task.task_id, False, False, None, "", len(task.tests), [], "", answer)

    def fail(category: str, detail: str) -> TaskResult:
        result.category, result.detail = category, detail
        return result

    probe = Task(
        spec.name,
        task.task_id,
        "python",
        task.stub,
        _entry_name(task),
        "",
        (),
        prompt_style="description",
    )
    found = extract(answer, probe)
    if found.status == "no_code":
        return fail("other", "no code in the answer")
    if found.status == "syntax_error":
        return fail("syntax", found.error)
    try:
        code = map_back(found.program, task)
    except Unsupported as exc:
        return fail("syntax", str(exc))
    module = module_name(task.path, spec)
    try:
        result.dropped = dropped_statements(code, task.name)
        tests = testing_copy(prepared.pristine, work / "tests", task, module)
        worker = worker_copy(prepared.pristine, work / "worker", task, code, prepared.test_files)
        for copy in (tests, worker):
            installed = sandbox.install(copy)
            if installed is not None and installed.returncode != 0:
                if installed.timed_out:
                    return fail("timeout", "the install/build step timed out")
                out = installed.stdout + installed.stderr
                return fail(
                    category_of(exception_in(out)), "install/build failed: " + out.strip()[-300:]
                )
        compiled, check = import_check(sandbox, worker, module)
        if not compiled:
            if check.timed_out:
                return fail("timeout", "importing the module timed out")
            line = (check.stderr.strip().splitlines() or ["the import did not return"])[-1]
            return fail(category_of(exception_in(check.stderr)), f"import failed: {line}")
        result.compiled = True
        runs = run_tests(sandbox, tests, task.tests, spec.repeats, Worker(worker, module))
        result.failing_tests = runs.failing
        if runs.failing:
            category = runs.category() or "other"
            return fail(category, f"{len(runs.failing)} of {len(task.tests)} covering tests fail")
        result.passed = True
        return result
    except SpliceError as exc:
        return fail("syntax" if str(exc).startswith("SyntaxError") else "other", str(exc))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summarise(results: list[TaskResult]) -> dict[str, Any]:
    """CPR, TPR and the failure taxonomy (tasks by class; failing tests by class)."""
    n = len(results)
    by_task = Counter(r.category for r in results if r.category)
    return {
        "n_tasks": n,
        "compiled": sum(r.compiled for r in results),
        "passed": sum(r.passed for r in results),
        "cpr": sum(r.compiled for r in results) / n if n else 0.0,
        "tpr": sum(r.passed for r in results) / n if n else 0.0,
        "failures": {c: by_task.get(c, 0) for c in CATEGORIES},
    }


def tool_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("beyondpass", "pytest", "pytest-cov", "coverage", "libcst"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions
