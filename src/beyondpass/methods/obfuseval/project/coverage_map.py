"""Which of the project's own tests execute which lines: coverage.py's per-test contexts.

The whole suite runs once, in the sandbox, under pytest-cov with ``--cov-context=test``:
coverage.py then records, for each line, the pytest node ids whose setup, call or
teardown executed it. The data file is read back with coverage.py's own API.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from beyondpass.errors import ConfigError
from beyondpass.methods.obfuseval.project.testing import exception_in, pytest_words
from beyondpass.methods.obfuseval.project.workspace import PLUGIN_DIR, ProjectSandbox

#: relative file -> line -> node ids of the tests that ran it
LineTests = dict[str, dict[int, frozenset[str]]]
_PHASES = ("|setup", "|run", "|teardown")


def _node_id(context: str) -> str:
    for phase in _PHASES:
        if context.endswith(phase):
            return context[: -len(phase)]
    return context


def measure(sandbox: ProjectSandbox, copy: Path) -> LineTests:
    """Run the suite once under coverage in ``copy`` and map lines to covering tests."""
    from coverage import CoverageData  # the obfuseval extra

    inside = sandbox.root_inside(copy)
    data_inside = f"{inside}/{PLUGIN_DIR}/coverage"
    words = pytest_words(
        sandbox,
        copy,
        (),
        # pytest-cov named: the project's command may switch plugin autoloading off
        ("-p", "pytest_cov", f"--cov={inside}", "--cov-context=test", "--cov-report=", "-q"),
    )
    env = {"COVERAGE_FILE": data_inside}
    done = sandbox.run(copy, words, sandbox.spec.timeout_s * 3, env)
    data_file = copy / PLUGIN_DIR / "coverage"
    if done.timed_out or not data_file.is_file():
        why = "timed out" if done.timed_out else (exception_in(done.stdout + done.stderr) or "")
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
        raise ConfigError(
            f"{sandbox.spec.name}: the test suite under coverage gave no data ({why or tail[0]})"
        )
    data = CoverageData(basename=str(data_file))
    data.read()
    lines: LineTests = {}
    for measured in data.measured_files():
        rel = Path(measured).as_posix()
        prefix = inside.rstrip("/") + "/"
        if not rel.startswith(prefix):
            continue
        by_line: dict[int, set[str]] = defaultdict(set)
        for line, contexts in data.contexts_by_lineno(measured).items():
            by_line[line].update(_node_id(c) for c in contexts if c)
        lines[rel[len(prefix) :]] = {n: frozenset(t) for n, t in by_line.items() if t}
    return lines
