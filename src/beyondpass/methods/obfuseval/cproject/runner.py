"""C project mode end to end: prepare a project (build, coverage, tasks, flaky tests) and
judge an answer (splice, incremental build: CPR; the covering tests, every one of the
repeats: TPR), each command in the project sandbox with only its copy writable.

A C answer is linked into the project's test binary, so the process boundary that keeps a
Python answer from faking a pass does not exist here: the answer runs inside the runner
and can do what the runner does. What is checked: every covering test must print its own
passing result line in every run (an answer that ends the process early, or crashes it,
leaves tests unreported, and they fail); and an answer that declares code to run outside
any call of its function (a ``constructor`` or ``destructor`` attribute, an
``.init_array`` entry) is refused before it is built. What is not: an answer whose
function prints the result lines itself when it is called. docs/obfuseval.md says so; the
hostile tests show both.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from beyondpass.errors import ConfigError
from beyondpass.execution import Sandboxes
from beyondpass.methods.obfuseval.cproject import coverage, names, splice, taxonomy, testruns
from beyondpass.methods.obfuseval.cproject.functions import CFunction, functions
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.project.workspace import (
    PLUGIN_DIR,
    ProjectSandbox,
    fresh_copy,
    materialise,
)

#: code that runs outside any call of the function: before ``main`` or after it
_OUTSIDE_CALLS = re.compile(
    r"__attribute__\s*\(\(\s*(?:__)?(?:constructor|destructor)|\.init_array|\.fini_array|"
    r"#\s*pragma\s+(?:init|fini)"
)


@dataclass(frozen=True)
class CTask:
    function: CFunction
    tests: tuple[str, ...]

    @property
    def task_id(self) -> str:
        return self.function.task_id


@dataclass
class CPrepared:
    spec: ProjectSpec
    sandbox: ProjectSandbox
    built: Path  # the project built once: every answer's copy starts from it
    tests: list[str]
    tasks: list[CTask] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    compiler: str = ""


@dataclass
class CResult:
    task_id: str
    compiled: bool = False
    passed: bool = False
    category: str = ""  # why not: no_code | not_spliced | hostile | compile | test | timeout
    detail: str = ""
    failing: dict[str, str] = field(default_factory=dict)
    added: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, list[str]] = field(default_factory=dict)


def compiler_identity() -> str:
    """The C compiler's first ``--version`` line (implicit declarations are warnings in
    gcc 12 and errors in gcc 14: a verdict depends on it)."""
    try:
        done = subprocess.run(["cc", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "cc: not found"
    return (done.stdout.splitlines() or ["cc: no version"])[0]


def _build(sandbox: ProjectSandbox, copy: Path, spec: ProjectSpec) -> tuple[int | None, str]:
    """Run the build; its whole log is read (the first error decides the category)."""
    log = copy / PLUGIN_DIR / "build.log"
    done, text = testruns.logged(sandbox, copy, ["sh", "-c", spec.install], log, spec.timeout_s)
    return done.returncode, (text + "\n" + done.stderr).strip()


def _candidates(spec: ProjectSpec, root: Path) -> list[CFunction]:
    files = sorted({p for pattern in spec.paths for p in root.glob(pattern) if p.is_file()})
    if not files:
        raise ConfigError(f"{spec.file}: [select] paths match no file in the project")
    found = []
    for file in files:
        for function in functions(root, file.relative_to(root).as_posix()):
            if spec.functions and function.name not in spec.functions:
                continue
            if function.last_line - function.first_line + 1 >= spec.min_lines + 2:
                found.append(function)
    return found


def prepare(spec: ProjectSpec, scratch: Path, sandboxes: Sandboxes, seed: int = 0) -> CPrepared:
    """Build the project, find the tests covering each candidate function, pick the tasks
    (seeded, at most ``max_functions``) and leave out tests that fail in any of the
    repeats with the project as it is."""
    if spec.language != "c":
        raise ConfigError(f'{spec.file}: C project mode runs C projects (language = "c")')
    sandbox = ProjectSandbox(spec, sandboxes)
    scratch.mkdir(parents=True, exist_ok=True)
    pristine = materialise(spec, scratch)
    built = fresh_copy(pristine, scratch / "built")
    status, log = _build(sandbox, built, spec)
    if status is None:
        raise ConfigError(f"{spec.name}: the build passed [test] timeout_s ({spec.timeout_s:g} s)")
    if status != 0:
        raise ConfigError(f"{spec.name}: the project does not build as it is: {log[-300:]}")
    candidates = _candidates(spec, pristine)
    if spec.whole_suite:  # the seed's choice: every test judges every function
        listed = testruns.run(sandbox, built, spec, None, built / PLUGIN_DIR / "all.log")
        tests = sorted(listed.statuses)
        if not tests:
            raise ConfigError(
                f"{spec.name}: the test command printed no line that [test] result matches"
            )
        covering = {(f.path, f.name): set(tests) for f in candidates}
    else:
        copy = fresh_copy(pristine, scratch / "coverage")
        tests, covering = coverage.measure(sandbox, copy, spec)
    prepared = CPrepared(spec, sandbox, built, tests, compiler=compiler_identity())
    chosen = [f for f in candidates if covering.get((f.path, f.name))]
    if len(chosen) > spec.max_functions:
        chosen = sorted(
            random.Random(seed).sample(chosen, spec.max_functions),
            key=lambda f: (f.path, f.first_line),
        )
    wanted = sorted({t for f in chosen for t in covering[(f.path, f.name)]})
    flaky: set[str] = set()
    for _ in range(spec.repeats):
        asked = None if spec.whole_suite else wanted
        run = testruns.run(sandbox, built, spec, asked, built / PLUGIN_DIR / "baseline.log")
        flaky |= set(run.failing(wanted, spec.passed_status))
    prepared.flaky = sorted(flaky)
    for function in chosen:
        tests_of = tuple(sorted(covering[(function.path, function.name)] - flaky))
        if tests_of:
            prepared.tasks.append(CTask(function, tests_of))
        else:
            prepared.dropped.append(
                {"task_id": function.task_id, "reason": "every covering test is flaky"}
            )
    shutil.rmtree(scratch / "coverage", ignore_errors=True)
    return prepared


def judge(
    prepared: CPrepared, task: CTask, answer: str, work: Path,
    dictionary: names.Dictionary | None = None,
) -> CResult:  # fmt: skip
    """Splice ``answer`` (C code; its names mapped back with ``dictionary``) into a copy of
    the built project, build it incrementally, and run the covering tests ``repeats``
    times; never raises for a bad answer."""
    spec, sandbox = prepared.spec, prepared.sandbox
    result = CResult(task.task_id)
    answer = splice.code_of(answer, task.function.name)
    if dictionary is not None:
        answer = names.map_back(answer, dictionary)
    outside = _OUTSIDE_CALLS.search(answer)
    if outside is not None:
        result.category = "hostile"
        result.detail = f"code that runs outside any call of the function ({outside.group(0)})"
        return result
    copy = fresh_copy(prepared.built, work)
    try:
        source = copy / task.function.path
        try:
            spliced = splice.splice(source.read_text(), task.function.name, answer)
        except splice.SpliceError as exc:
            result.category = "no_code" if "answer" in str(exc) else "not_spliced"
            result.detail = str(exc)
            return result
        result.added, result.dropped = spliced.added, spliced.dropped
        source.write_text(spliced.text)
        status, log = _build(sandbox, copy, spec)
        if status is None:
            result.category = "timeout"
            result.detail = f"the build passed {spec.timeout_s:g} s"
            return result
        if status != 0:
            found = taxonomy.classify(log)
            result.category, result.detail = (
                "compile",
                f"{found.major} / {found.category}: {found.message}",
            )
            return result
        result.compiled = True
        for _ in range(spec.repeats):
            asked = None if spec.whole_suite else list(task.tests)
            run = testruns.run(sandbox, copy, spec, asked, copy / PLUGIN_DIR / "run.log")
            failing = run.failing(list(task.tests), spec.passed_status)
            if failing:
                result.failing = failing
                result.category = "timeout" if run.completed.timed_out else "test"
                result.detail = f"{len(failing)} of {len(task.tests)} covering tests fail"
                return result
        result.passed = True
        return result
    finally:
        shutil.rmtree(copy, ignore_errors=True)
