"""Running a project's tests repeatedly in a copy and classifying what fails.

Each run is a fresh pytest process in the sandbox; a small pytest plugin written into the
copy records every selected test's outcome and, on failure, the exception's type. A test
passes only if it passed in every run (the seed's rule against flakiness); a test that
fails in any of the runs of the untouched project is flaky and left out up front.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from beyondpass.methods.obfuseval.project.workspace import PLUGIN_DIR, Completed, ProjectSandbox

#: the failure taxonomy, in the order ties are broken
CATEGORIES = ("syntax", "name", "import", "type", "attribute", "assertion", "timeout", "other")
_BY_EXCEPTION = {
    "SyntaxError": "syntax",
    "IndentationError": "syntax",
    "TabError": "syntax",
    "NameError": "name",
    "UnboundLocalError": "name",
    "ImportError": "import",
    "ModuleNotFoundError": "import",
    "TypeError": "type",
    "AttributeError": "attribute",
    "AssertionError": "assertion",
}
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception))(?=:|$)")
PLUGIN = "_beyondpass_outcomes"
_PLUGIN_CODE = '''"""Records each test's outcome and exception type (written by beyondpass)."""
import json
import os

_PATH = os.environ["BEYONDPASS_OUTCOMES"]


def pytest_runtest_makereport(item, call):
    error = call.excinfo
    row = {"nodeid": item.nodeid, "when": call.when,
           "error": error.typename if error is not None else None}
    with open(_PATH, "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\\n")
'''


def category_of(exception: str | None) -> str:
    """The taxonomy class of an exception type name (``other`` for anything unlisted)."""
    return _BY_EXCEPTION.get(exception or "", "other")


def exception_in(output: str) -> str | None:
    """The last exception type a traceback or pytest's error summary names, if any."""
    for line in reversed(output.strip().splitlines()):
        found = _EXCEPTION.findall(line)
        if found:
            return str(found[-1])
    return None


@dataclass
class TestRuns:
    """Outcomes of the selected tests over all runs: test -> the category of each failure."""

    tests: tuple[str, ...]
    runs: int
    failures: dict[str, list[str]] = field(default_factory=dict)
    timed_out: int = 0  # runs killed at the time limit

    @property
    def passing(self) -> list[str]:
        return [t for t in self.tests if not self.failures.get(t)]

    @property
    def failing(self) -> list[str]:
        return [t for t in self.tests if self.failures.get(t)]

    def category(self) -> str | None:
        """The most common failure class across failing tests (None: all passed)."""
        counts = Counter(self.failures[t][0] for t in self.failing)
        if not counts:
            return None
        return max(CATEGORIES, key=lambda c: (counts[c], -CATEGORIES.index(c)))


def _install_plugin(copy: Path) -> None:
    folder = copy / PLUGIN_DIR
    folder.mkdir(exist_ok=True)
    (folder / f"{PLUGIN}.py").write_text(_PLUGIN_CODE, encoding="utf-8")


def _outcomes(path: Path) -> dict[str, str | None]:
    """nodeid -> None (passed) or the exception type name of its first failing phase."""
    result: dict[str, str | None] = {}
    if not path.is_file():
        return result
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(row, dict) or not isinstance(row.get("nodeid"), str):
            continue
        node, error = row["nodeid"], row.get("error")
        if row.get("when") == "call" or error is not None:
            result.setdefault(node, None)
            if error is not None and result[node] is None:
                result[node] = str(error)
    return result


def pytest_words(
    sandbox: ProjectSandbox, copy: Path, tests: Iterable[str], extra: Iterable[str] = ()
) -> tuple[list[str], dict[str, str]]:
    """The test command for ``tests`` with the outcome plugin, and its environment."""
    _install_plugin(copy)
    inside = sandbox.root_inside(copy)
    env = {"BEYONDPASS_OUTCOMES": f"{inside}/{PLUGIN_DIR}/outcomes.jsonl"}
    words = [*sandbox.spec.test_command, "-p", "no:cacheprovider", "-p", PLUGIN, *extra, *tests]
    return words, env


def run_tests(sandbox: ProjectSandbox, copy: Path, tests: Iterable[str], repeats: int) -> TestRuns:
    """Run ``tests`` ``repeats`` times in fresh processes; collect failures per test (runs
    stop early once every test has failed)."""
    selected = tuple(sorted(set(tests)))
    runs = TestRuns(selected, repeats)
    if not selected:
        return runs
    words, env = pytest_words(sandbox, copy, selected)
    outcomes_file = copy / PLUGIN_DIR / "outcomes.jsonl"
    for _ in range(repeats):
        outcomes_file.unlink(missing_ok=True)
        done: Completed = sandbox.run(copy, words, sandbox.spec.timeout_s, env)
        seen = _outcomes(outcomes_file)
        if done.timed_out:
            runs.timed_out += 1
        for test in selected:
            if test in seen and seen[test] is None:
                continue
            if test in seen:
                what = category_of(seen[test])
            elif done.timed_out:
                what = "timeout"
            else:  # never reported: collection failed (an import error of the module, ...)
                what = category_of(exception_in(done.stdout + "\n" + done.stderr))
            runs.failures.setdefault(test, []).append(what)
        if len(runs.failing) == len(selected):  # every test has failed: more runs decide nothing
            break
    return runs
