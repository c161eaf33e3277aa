"""One run of a C project's tests in the sandbox, and what its runner reported.

The description's test command takes the tests to run in place of a ``{tests}`` word, or
repeats a word holding ``{test}`` once per test (clar's ``-s{test}``, redis's ``--single``
needs ``--single {test}``: write it as one word, ``--single={test}`` where the runner
takes that, or give a wrapper script); without either, every run is the whole suite (the
seed's ``make test``). Each test's result
is a line of its output that the description's ``result`` pattern matches (named groups
``name`` and ``status``). A test counts as passed only when its own line says so: a runner
that stops early, or an answer that ends the process before the tests report (a
constructor calling ``exit(0)``), leaves tests without a line, and they fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.project.workspace import Completed, ProjectSandbox

TESTS_WORD = "{tests}"
TEST_PART = "{test}"


@dataclass(frozen=True)
class TestRun:
    statuses: dict[str, str]  # test -> the status its line reported
    completed: Completed

    def failing(self, expected: list[str], passed: str) -> dict[str, str]:
        """test -> why, for each expected test that did not report ``passed``."""
        why = {}
        for name in expected:
            status = self.statuses.get(name)
            if status is None:
                end = (
                    "the run timed out"
                    if self.completed.timed_out
                    else f"the run ended with status {self.completed.returncode}"
                )
                why[name] = f"no result line ({end})"
            elif status != passed:
                why[name] = f"reported {status!r}"
        return why


def argv(spec: ProjectSpec, names: list[str] | None) -> list[str]:
    """The test command for ``names`` (every test when None or when it takes no names)."""
    words: list[str] = []
    for word in spec.test_command:
        if word == TESTS_WORD:
            words += names or []
        elif TEST_PART in word:
            words += [word.replace(TEST_PART, name) for name in names or []]
        else:
            words.append(word)
    return words


def parse(spec: ProjectSpec, output: str) -> dict[str, str]:
    """test -> status, from the result lines of a run's output (the last line of a test
    wins)."""
    pattern = re.compile(spec.result_pattern, re.MULTILINE)
    return {m.group("name"): m.group("status") for m in pattern.finditer(output)}


def logged(
    sandbox: ProjectSandbox, copy: Path, words: list[str], output: Path, timeout_s: float
) -> tuple[Completed, str]:
    """Run ``words`` in the copy with its whole output written to ``output`` there (the
    sandbox keeps only a stream's tail, and a build's first error or a suite's result
    lines may be anywhere in it); the run and the whole text."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)  # nothing of an earlier run may count
    inside = f"{sandbox.root_inside(copy)}/{output.relative_to(copy).as_posix()}"
    redirect = ["sh", "-c", 'out="$1"; shift; exec "$@" > "$out" 2>&1', "sh", inside]
    done = sandbox.run(copy, redirect + words, timeout_s)
    text = output.read_text(encoding="utf-8", errors="replace") if output.is_file() else ""
    return done, text


def run(
    sandbox: ProjectSandbox, copy: Path, spec: ProjectSpec, names: list[str] | None,
    output: Path,
) -> TestRun:  # fmt: skip
    """Run the tests once and read their result lines from the whole output."""
    done, text = logged(sandbox, copy, argv(spec, names), output, spec.timeout_s)
    return TestRun(parse(spec, text), Completed(done.returncode, text[-4000:], done.stderr))
