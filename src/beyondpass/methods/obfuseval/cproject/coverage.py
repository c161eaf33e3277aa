"""Which tests cover which functions of a C project: gcov, one test at a time.

The project is built with the description's coverage build (``--coverage``); every test
runs alone after the counters are cleared, and ``gcov --json-format`` reads the functions
that ran. The granularity is the runner's: a test is whatever name the test command takes
(libgit2's clar suites, redis's test units).
"""

from __future__ import annotations

import json
from pathlib import Path

from beyondpass.errors import ConfigError
from beyondpass.methods.obfuseval.cproject import testruns
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.project.workspace import PLUGIN_DIR, ProjectSandbox

#: (source file relative to the project root, function) -> the tests that ran it
FunctionTests = dict[tuple[str, str], set[str]]


def _gcov(sandbox: ProjectSandbox, copy: Path, spec: ProjectSpec) -> set[tuple[str, str]]:
    out = copy / PLUGIN_DIR / "gcov.json"
    inside = f"{sandbox.root_inside(copy)}/{PLUGIN_DIR}/gcov.json"
    script = f'find . -name "*.gcda" -exec gcov --json-format --stdout {{}} + > "{inside}"'
    done = sandbox.run(copy, ["sh", "-c", script], spec.timeout_s)
    if done.returncode != 0:
        raise ConfigError(f"{spec.name}: gcov failed: {done.stderr.strip()[-300:]}")
    ran: set[tuple[str, str]] = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        for entry in json.loads(line).get("files", []):
            path = Path(entry["file"]).as_posix().removeprefix("./")
            for function in entry.get("functions", []):
                if function.get("execution_count", 0) > 0:
                    ran.add((path, function["name"]))
    return ran


def measure(
    sandbox: ProjectSandbox, copy: Path, spec: ProjectSpec
) -> tuple[list[str], FunctionTests]:
    """(every test the runner reports, the tests covering each function) in ``copy``."""
    (copy / PLUGIN_DIR).mkdir(exist_ok=True)
    built = sandbox.run(copy, ["sh", "-c", spec.coverage_build], spec.timeout_s)
    if built.returncode != 0:
        tail = (built.stdout + built.stderr).strip()[-300:]
        raise ConfigError(f"{spec.name}: the coverage build failed: {tail}")
    everything = testruns.run(sandbox, copy, spec, None, copy / PLUGIN_DIR / "all.log")
    tests = sorted(everything.statuses)
    if not tests:
        raise ConfigError(
            f"{spec.name}: the test command printed no line that [test] result matches"
        )
    covering: FunctionTests = {}
    for test in tests:
        for stale in copy.rglob("*.gcda"):
            stale.unlink()
        testruns.run(sandbox, copy, spec, [test], copy / PLUGIN_DIR / "one.log")
        for key in _gcov(sandbox, copy, spec):
            covering.setdefault(key, set()).add(test)
    return tests, covering
