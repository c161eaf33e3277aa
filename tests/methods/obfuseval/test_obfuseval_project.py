"""Project-level ObfusEval on two real projects: judging regenerated functions.

``inflection`` (pure functions, one module, parametrised pytest suite) and ``cachetools``
(classes, src layout, unittest-style suite run by pytest), fetched from PyPI as sdists and
prepared once per test run (conftest.py beside this file). Their own test suites decide:
the project's functions spliced back pass every covering test, broken ones are caught and
classified, the user's copy of the project never changes. Answers that forge a pass, and
the other attacks every launcher must withstand, are the sandbox conformance suite's
(tests/execution/test_sandbox_conformance.py, on a small project of its own). The command
line on the same projects: test_obfuseval_project_cli.py.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

from beyondpass.methods.obfuseval.project.benchmark import prompt_for
from beyondpass.methods.obfuseval.project.evaluator import evaluation_of
from beyondpass.methods.obfuseval.project.runner import Prepared, crossing_check, evaluate
from beyondpass.methods.obfuseval.project.splice import splice
from beyondpass.methods.obfuseval.project.tasks import (
    ProjectTask,
    obfuscate_task,
    reference_answer,
)
from beyondpass.methods.obfuseval.project.testing import category_of, exception_in
from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox, tree_digest
from obfuseval_projects import FLAKY_ID, PROJECTS, sha


def _untouched(projects: dict, sdists: dict[str, Path]) -> None:
    assert sha(sdists["inflection"]) == projects["before"]["inflection"]
    assert tree_digest(projects["checkout"]) == projects["before"]["cachetools"]


def _with(prepared: Prepared, **spec_changes: object) -> Prepared:
    """``prepared`` judged under a changed spec (a shorter limit, fewer repeats)."""
    spec = replace(prepared.spec, **spec_changes)
    return replace(prepared, spec=spec, sandbox=ProjectSandbox(spec, prepared.sandbox.sandboxes))


def _task(projects: dict, project: str, task_id: str) -> ProjectTask:
    tasks = {t.task_id: t for t in projects["prepared"][project].tasks}
    return tasks[task_id]


@pytest.mark.parametrize("project", list(PROJECTS))
def test_the_projects_own_functions_spliced_back_pass_every_covering_test(
    project, projects, sdists, tmp_path
):
    # Two runs per answer instead of the seed's five: a passing answer runs all of them, and
    # two already prove the covering tests pass in fresh processes run after run. Answers
    # are judged with the project's own five in the command-line tests (inflection) and in
    # the test of thousands of calls (cachetools).
    prepared = _with(projects["prepared"][project], repeats=2)
    assert len(prepared.tasks) == 3
    assert all(task.tests for task in prepared.tasks)
    for task in prepared.tasks:
        result = evaluate(prepared, task, reference_answer(task), tmp_path / "work")
        assert (result.compiled, result.passed, result.category) == (True, True, None)
        assert result.tests == len(task.tests) > 0 and result.dropped == []
    _untouched(projects, sdists)


def test_a_flaky_test_of_the_untouched_project_is_found_and_excluded(projects):
    prepared = projects["prepared"]["cachetools"]
    assert prepared.flaky == [FLAKY_ID]
    hashkey = _task(projects, "cachetools", "cachetools.keys.hashkey")
    assert FLAKY_ID not in hashkey.tests
    assert any(t.startswith("tests/test_keys.py::") for t in hashkey.tests)


def test_splicing_the_original_back_reproduces_the_module_byte_for_byte(projects):
    for prepared in projects["prepared"].values():
        for task in prepared.tasks:
            source = (prepared.pristine / task.path).read_text()
            assert splice(source, task.scope, task.original) == source


def test_an_obfuscated_prompt_renamed_back_still_passes(projects, tmp_path):
    prepared = _with(projects["prepared"]["cachetools"], repeats=2)
    task = _task(projects, "cachetools", "cachetools.LFUCache.popitem")
    source = (prepared.pristine / task.path).read_text()
    renamed = obfuscate_task(task, source, 3)
    assert "LFUCache" in renamed.mapping  # the class name was renamed in the prompt
    prompt = prompt_for(renamed, "cachetools")
    assert "LFUCache" not in prompt and renamed.mapping["LFUCache"] in prompt
    result = evaluate(prepared, renamed, reference_answer(renamed), tmp_path / "work")
    assert (result.compiled, result.passed) == (True, True)


BROKEN = {
    # (project, task, answer) -> expected (compiled, category)
    "wrong value": (
        "inflection",
        "inflection.camelize",
        "def camelize(string, uppercase_first_letter=True):\n    return string.upper()\n",
        (True, "assertion"),
    ),
    "undefined name": (
        "cachetools",
        "cachetools.keys.hashkey",
        "def hashkey(*args, **kwargs):\n    return _HashedTupel(args)\n",
        (True, "name"),
    ),
    "wrong call": (
        "cachetools",
        "cachetools.LFUCache.popitem",
        "def popitem(self):\n    key = self.__counter.most_common(1, 2)\n    return key\n",
        (True, "type"),
    ),
    "missing attribute": (
        "cachetools",
        "cachetools.LFUCache.popitem",
        "def popitem(self):\n    return self.no_such_helper()\n",
        (True, "attribute"),
    ),
    "missing module": (
        "inflection",
        "inflection.camelize",
        "import inflection_helpers_nowhere\n\n\n"
        "def camelize(string, uppercase_first_letter=True):\n    return string\n",
        (False, "import"),
    ),
    "syntax": (
        "inflection",
        "inflection.camelize",
        "def camelize(string, uppercase_first_letter=True):\n    return string +\n",
        (False, "syntax"),
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_function_is_caught_and_classified(case, projects, sdists, tmp_path):
    project, task_id, code, (compiled, category) = BROKEN[case]
    prepared = projects["prepared"][project]
    task = _task(projects, project, task_id)
    result = evaluate(prepared, task, f"```python\n{code}```", tmp_path / "work")
    assert (result.compiled, result.passed, result.category) == (compiled, False, category)
    if compiled:
        assert result.failing_tests and set(result.failing_tests) <= set(task.tests)
    assert not (tmp_path / "work").exists()
    _untouched(projects, sdists)


def test_an_endless_function_is_a_timeout(projects, tmp_path):
    prepared = projects["prepared"]["inflection"]
    quick = _with(prepared, timeout_s=5.0)
    task = _task(projects, "inflection", "inflection.camelize")
    body = "def camelize(string, uppercase_first_letter=True):\n    while True:\n        pass\n"
    result = evaluate(quick, task, f"```python\n{body}```", tmp_path / "work")
    assert (result.passed, result.category) == (False, "timeout")


#: the splice keeps an answer's imports and functions, so code runs at import time through
#: a decorator of the answer's function
_AT_IMPORT = "\ndef _at_import(fn):\n    {call}\n    return fn\n\n\n@_at_import\n"
_WRONG = "def camelize(string, uppercase_first_letter=True):\n    {call}\n    return 'nope'\n"
_PASS = _WRONG.format(call="pass")


def test_tests_that_hand_the_function_callbacks_and_their_own_classes_are_kept(projects):
    """cachetools' cache tests build caches with ``getsizeof=lambda ...`` (a function in
    ``self``) and run the shared tests on cache classes of the test module: the lambda
    crosses by reference and a test's class as a shadow, so ``LFUCache.popitem`` keeps
    those tests (before, they were left out: "a function object is not data"). What is
    still left out is named with its reason, never faked."""
    prepared = projects["prepared"]["cachetools"]
    popitem = _task(projects, "cachetools", "cachetools.LFUCache.popitem")
    assert "tests/test_lfu.py::LFUCacheTest::test_lfu_getsizeof" in popitem.tests
    left = [r for r in prepared.not_crossing if r["task_id"] == popitem.task_id]
    assert all(r["test"] not in popitem.tests and r["reason"] for r in left)
    assert not any("not data" in r["reason"] for r in left), left


def test_a_method_called_thousands_of_times_on_a_growing_object_is_no_longer_left_out(
    projects, tmp_path
):
    """``test_pickle_maxsize`` fills a cache with 2,000 entries, one proxied
    ``Cache.__setitem__`` call each: with the whole of ``self`` crossing both ways per call
    it passed the time limit and was left out; with only the changes crossing it passes
    the crossing check and the project's own method passes it, five runs each (the other
    cache classes' copies of the test are the same calls)."""
    prepared = projects["prepared"]["cachetools"]
    path = "src/cachetools/__init__.py"
    module = cst.parse_module((prepared.pristine / path).read_text())
    cache = next(s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == "Cache")
    method = next(
        s
        for s in cache.body.body
        if isinstance(s, cst.FunctionDef) and s.name.value == "__setitem__"
    )
    tests = ("tests/test_cache.py::CacheTest::test_pickle_maxsize",)
    original = cst.Module(body=[method.with_changes(leading_lines=())]).code
    task = ProjectTask(
        "cachetools.Cache.__setitem__", path, ("Cache", "__setitem__"), "", "", original, tests
    )
    assert crossing_check(prepared, task, tmp_path / "crossing") == {}
    result = evaluate(prepared, task, reference_answer(task), tmp_path / "work")
    # a pass means every run ended within the project's time limit (else: timeout)
    assert (result.compiled, result.passed, result.failing_tests) == (True, True, [])


def test_exception_names_map_to_the_taxonomy():
    assert exception_in("E   NameError: name 'x' is not defined") == "NameError"
    assert exception_in("ERROR test_a.py - ModuleNotFoundError: No module named 'q'\n1 error") == (
        "ModuleNotFoundError"
    )
    assert exception_in("collected 3 items\n3 passed") is None
    assert [
        category_of(n) for n in ("IndentationError", "UnboundLocalError", "KeyError", None)
    ] == [
        "syntax",
        "name",
        "other",
        "other",
    ]


def test_statements_the_splice_leaves_out_are_counted_and_stored(projects, tmp_path):
    prepared = projects["prepared"]["inflection"]
    task = _task(projects, "inflection", "inflection.camelize")
    code = 'THRESHOLD = 3\nprint("at import")\n\n\n' + task.original
    result = evaluate(prepared, task, f"```python\n{code}```", tmp_path / "work")
    assert (result.passed, result.dropped) == (True, ["THRESHOLD = 3", 'print("at import")'])
    stored = evaluation_of(result)
    assert stored.metrics["dropped_statements"] == 2
    assert stored.details["dropped_statements"] == ["THRESHOLD = 3", 'print("at import")']


#: an answer that fails to import but says ``imported`` everywhere it can, then exits 0
_FAKE_IMPORT = (
    """import os, sys
def _claim():
    for fd in range(1, 64):
        try:
            os.write(fd, b"imported\\n")
        except OSError:
            pass
    sys.stdout.flush()
    os._exit(0)


"""
    + _AT_IMPORT.format(call="_claim()")
    + _PASS
)


def test_a_module_that_exits_after_claiming_it_imported_does_not_compile(projects, tmp_path):
    prepared = projects["prepared"]["inflection"]
    task = _task(projects, "inflection", "inflection.camelize")
    result = evaluate(prepared, task, f"```python\n{_FAKE_IMPORT}```", tmp_path / "work")
    assert (result.compiled, result.passed) == (False, False)
    assert result.detail.startswith("import failed")
