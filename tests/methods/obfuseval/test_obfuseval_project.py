"""Project-level ObfusEval on two real projects, fetched from PyPI as sdists at test time.

``inflection`` (pure functions, one module, parametrised pytest suite) and ``cachetools``
(classes, src layout, unittest-style suite run by pytest). Their own test suites decide:
the project's functions spliced back pass every covering test, broken ones are caught and
classified, the user's copy of the project never changes. The model is a real HTTP server
on 127.0.0.1 (tests/fake_endpoints.py) speaking the OpenAI wire format.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.obfuseval.project.benchmark import (
    TASKS_FILE,
    keep,
    project_record,
    prompt_for,
    record_id,
    write_record,
)
from beyondpass.methods.obfuseval.project.evaluator import evaluation_of
from beyondpass.methods.obfuseval.project.runner import (
    crossing_check,
    evaluate,
    prepare,
    tool_versions,
)
from beyondpass.methods.obfuseval.project.spec import load_project
from beyondpass.methods.obfuseval.project.splice import splice
from beyondpass.methods.obfuseval.project.tasks import (
    ProjectTask,
    obfuscate_task,
    reference_answer,
)
from beyondpass.methods.obfuseval.project.testing import category_of, exception_in
from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox, tree_digest
from beyondpass.store.run_store import RunStore
from fake_endpoints import FakeEndpoint

PROJECTS = {"inflection": "0.5.1", "cachetools": "5.5.0"}
#: a test added to the cachetools checkout that fails in exactly one of its runs (the 3rd
#: run in the same copy): the flaky-test detection must exclude it up front
FLAKY_TEST = """
import os

from cachetools import keys


def test_sometimes():
    path = os.path.join(os.path.dirname(__file__), ".runs")
    n = len(open(path).read()) if os.path.exists(path) else 0
    with open(path, "a") as out:
        out.write("x")
    assert keys.hashkey(1, a=2) == keys.hashkey(1, a=2)
    assert n != 2
"""
FLAKY_ID = "tests/test_zz_flaky.py::test_sometimes"


@pytest.fixture(scope="module")
def sdists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two sdists, downloaded from PyPI (a failed download fails the test under CI)."""
    folder = tmp_path_factory.mktemp("sdists")
    pins = [f"{name}=={version}" for name, version in PROJECTS.items()]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-binary",
            ":all:",
            "--no-deps",
            "--disable-pip-version-check",
            "-q",
            "-d",
            str(folder),
            *pins,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = {name: next(folder.glob(f"{name}-*.tar.gz"), None) for name in PROJECTS}
    if done.returncode != 0 or None in found.values():
        message = f"pip download of {pins} failed: {done.stderr.strip()[-300:]}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return {name: path for name, path in found.items() if path is not None}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def projects(sdists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Both projects described and prepared: inflection from its sdist, cachetools from a
    checkout (the unpacked sdist plus one flaky test)."""
    base = tmp_path_factory.mktemp("projects")
    (base / "inflection.toml").write_text(
        f'name = "inflection"\n[source]\nsdist = "{sdists["inflection"]}"\n'
        '[test]\ntimeout_s = 120\n[select]\npaths = ["inflection/__init__.py"]\n'
        "max_functions = 3\n"
    )
    with tarfile.open(sdists["cachetools"]) as archive:
        archive.extractall(base / "unpacked", filter="data")
    checkout = next((base / "unpacked").iterdir())
    (checkout / "tests" / "test_zz_flaky.py").write_text(FLAKY_TEST)
    (base / "cachetools.toml").write_text(
        f'name = "cachetools"\n[source]\ncheckout = "{checkout}"\n'
        '[build]\npythonpath = ["src"]\n'
        '[test]\ntimeout_s = 120\n[select]\npaths = ["src/cachetools/*.py"]\n'
        'functions = ["cachetools.keys.hashkey", "cachetools.LFUCache.popitem", '
        '"cachetools.Cache.pop"]\n'
        "[descriptions]\n"
        '"cachetools.Cache.pop" = "Remove key and return its value; when key is absent, return '
        'default, or raise KeyError when no default is given."\n'
    )
    before = {"inflection": _sha(sdists["inflection"]), "cachetools": tree_digest(checkout)}
    prepared = {
        name: prepare(load_project(base / f"{name}.toml"), base / f"scratch-{name}")
        for name in PROJECTS
    }
    return {"base": base, "prepared": prepared, "before": before, "checkout": checkout}


def _untouched(projects: dict, sdists: dict[str, Path]) -> None:
    assert _sha(sdists["inflection"]) == projects["before"]["inflection"]
    assert tree_digest(projects["checkout"]) == projects["before"]["cachetools"]


def _task(projects: dict, project: str, task_id: str) -> ProjectTask:
    tasks = {t.task_id: t for t in projects["prepared"][project].tasks}
    return tasks[task_id]


@pytest.mark.parametrize("project", list(PROJECTS))
def test_the_projects_own_functions_spliced_back_pass_every_covering_test(
    project, projects, sdists, tmp_path
):
    prepared = projects["prepared"][project]
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
    prepared = projects["prepared"]["cachetools"]
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
    spec = replace(prepared.spec, timeout_s=5.0)
    quick = replace(prepared, spec=spec, sandbox=ProjectSandbox(spec))
    task = _task(projects, "inflection", "inflection.camelize")
    body = "def camelize(string, uppercase_first_letter=True):\n    while True:\n        pass\n"
    result = evaluate(quick, task, f"```python\n{body}```", tmp_path / "work")
    assert (result.passed, result.category) == (False, "timeout")


#: answers that return a wrong value and try to make the verdict say "passed" anyway; the
#: forging code is what would have worked when the tests shared a process with the answer.
#: ``TESTS`` is replaced by the task's covering test ids (the forger knows them all).
_FORGE = """
import json, os
def _forge():
    rows = "".join(json.dumps({"nodeid": t, "when": w, "error": None}) + "\\n"
                   for t in TESTS for w in ("setup", "call", "teardown"))
    paths = {os.environ.get("BEYONDPASS_OUTCOMES", ""), "/tmp/project/.beyondpass/outcomes.jsonl"}
    for path in paths:
        try:
            with open(path, "a") as out:
                out.write(rows)
        except OSError:
            pass
    print(rows)
    for fd in range(3, 256):  # every descriptor this process holds
        try:
            os.write(fd, rows.encode())
        except OSError:
            pass
    for pid in os.listdir("/proc"):  # every other process's descriptors
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                with open(f"/proc/{pid}/fd/{fd}", "a") as out:
                    out.write(rows)
            except OSError:
                pass
"""
_PATCH = """
import builtins, sys
def _patch():
    try:
        import pytest, _pytest.runner, _pytest.reports
        _pytest.runner.call_and_report = lambda *a, **k: None
        _pytest.reports.TestReport.passed = property(lambda self: True)
        pytest.fail = lambda *a, **k: None
    except Exception:
        pass
    builtins.AssertionError = type("AssertionError", (Exception,), {})
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("_beyondpass"):
            for name in dir(module):
                if name.startswith("pytest_"):
                    setattr(module, name, lambda *a, **k: None)
"""
#: the splice keeps an answer's imports and functions, so code runs at import time through
#: a decorator of the answer's function
_AT_IMPORT = "\ndef _at_import(fn):\n    {call}\n    return fn\n\n\n@_at_import\n"
_WRONG = "def camelize(string, uppercase_first_letter=True):\n    {call}\n    return 'nope'\n"
_PASS = _WRONG.format(call="pass")
HOSTILE = {
    "forged outcomes at import": _FORGE + _AT_IMPORT.format(call="_forge()") + _PASS,
    "forged outcomes at call": _FORGE + _WRONG.format(call="_forge()"),
    "forge then exit at import": "import os\n"
    + _FORGE
    + _AT_IMPORT.format(call="_forge(); os._exit(0)")
    + _PASS,
    "forge then exit at call": "import os\n" + _FORGE + _WRONG.format(call="_forge(); os._exit(0)"),
    "os._exit(0) at import": "import os\n" + _AT_IMPORT.format(call="os._exit(0)") + _PASS,
    "sys.exit(0) at import": "import sys\n" + _AT_IMPORT.format(call="sys.exit(0)") + _PASS,
    "os._exit(0) at call": "import os\n" + _WRONG.format(call="os._exit(0)"),
    "sys.exit(0) at call": "import sys\n" + _WRONG.format(call="sys.exit(0)"),
    "pytest and builtins patched at import": _PATCH + _AT_IMPORT.format(call="_patch()") + _PASS,
    "pytest and builtins patched at call": _PATCH + _WRONG.format(call="_patch()"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_answer_cannot_fake_a_pass(case, projects, sdists, tmp_path):
    # a shorter limit per test run than the project's 120 s: an answer that jams the run
    # (forged frames on every descriptor) is a failure either way, only found sooner
    prepared = projects["prepared"]["inflection"]
    spec = replace(prepared.spec, timeout_s=30.0)
    sandbox = ProjectSandbox(spec, prepared.sandbox.level)
    prepared = replace(prepared, spec=spec, sandbox=sandbox)
    task = _task(projects, "inflection", "inflection.camelize")
    code = HOSTILE[case].replace("TESTS", repr(list(task.tests)))
    result = evaluate(prepared, task, f"```python\n{code}```", tmp_path / "work")
    assert result.passed is False
    assert result.category is not None and result.category != "syntax", result.detail
    if result.compiled:  # every covering test fails: no forged row counted as a pass
        assert sorted(result.failing_tests) == sorted(task.tests)
    _untouched(projects, sdists)


def test_a_task_whose_arguments_cannot_cross_is_excluded_with_the_reason(projects):
    """cachetools' cache tests build caches with ``getsizeof=lambda ...``: a function in
    ``self`` cannot cross to the worker, so those tests leave the task up front, with the
    reason, never faked."""
    prepared = projects["prepared"]["cachetools"]
    popitem = _task(projects, "cachetools", "cachetools.LFUCache.popitem")
    left = [r for r in prepared.not_crossing if r["task_id"] == popitem.task_id]
    assert left and all(r["test"] not in popitem.tests for r in left)
    assert any(r["reason"].startswith("ArgumentsCannotCross") for r in left)
    assert any("function" in r["reason"] for r in left)


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


def test_a_prepared_project_is_a_benchmark_found_by_its_content(tmp_path, monkeypatch):
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "cache"))
    record = {"format": 1, "project": {"name": "p"}, "seed": 0, "tasks": []}
    ident = keep(record)
    assert ident == record_id(record) and ident.startswith("p@")
    bench = load_benchmark(f"obfuseval-project:{ident}")
    assert (bench.name, bench.version, len(bench)) == (f"obfuseval-project:{ident}", ident[2:], 0)
    (tmp_path / "run").mkdir()
    write_record({**record, "seed": 1}, tmp_path / "run" / TASKS_FILE)  # other content
    for name in (f"obfuseval-project:{record_id({**record, 'seed': 1})}", "obfuseval-project"):
        with pytest.raises((DataError, ConfigError)) as caught:
            load_benchmark(name)
        assert "\n" not in str(caught.value)
    moved = load_benchmark(
        f"obfuseval-project:{record_id({**record, 'seed': 1})}", tmp_path / "run"
    )
    assert len(moved) == 0  # the run's own copy, with --data-dir


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


def _responder(prepared, seed: int, broken: str, delay: float = 0.0, extra: str = ""):
    """The model behind the HTTP server: each prompt (original or obfuscated) gets the
    project's function renamed as in that prompt; the task ``broken`` gets a wrong one;
    ``extra`` (module-level statements the splice leaves out) goes before every answer."""
    by_stub = {}
    for task in prepared.tasks:
        source = (prepared.pristine / task.path).read_text()
        renamed = obfuscate_task(task, source, seed)
        by_stub[renamed.stub] = renamed
        by_stub[task.stub] = task

    def answer(prompt: str) -> str:
        time.sleep(delay)
        matches = [t for stub, t in by_stub.items() if stub in prompt]
        assert len(matches) == 1, prompt
        task = matches[0]
        if task.task_id == broken:
            name = task.mapping.get(task.name, task.name)
            return f"```python\ndef {name}(*args, **kwargs):\n    return 'nope'\n```"
        return reference_answer(task).replace("```python\n", "```python\n" + extra, 1)

    return answer


def _prepared_run(projects, project: str, out: Path, n_tasks: int | None = None) -> None:
    """The run directory with the fixture's prepared project (seed 0) already in it, as a
    first run leaves it: the command reads it back instead of preparing again."""
    prepared = projects["prepared"][project]
    if n_tasks is not None:
        prepared = replace(prepared, tasks=prepared.tasks[:n_tasks])
    out.mkdir(parents=True)
    write_record(project_record(prepared, 0, tool_versions()), out / TASKS_FILE)


def test_end_to_end_on_the_command_line_with_a_model_over_http(projects, run_cli, tmp_path):
    prepared = projects["prepared"]["inflection"]
    broken = prepared.tasks[0].task_id
    _prepared_run(projects, "inflection", tmp_path / "out")
    with FakeEndpoint(responder=_responder(prepared, 0, broken)) as server:
        done = run_cli(
            [
                "obfuseval",
                "project",
                "run",
                projects["base"] / "inflection.toml",
                "--model",
                f"openai:pretend@{server.openai_base_url}",
                "--out",
                tmp_path / "out",
                "--obfuscate",
                "--seed",
                "0",
                "--json",
            ],
            cwd=tmp_path,
        )
        prompts = [r.body["messages"][-1]["content"] for r in server.requests]
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["n_tasks"], summary["compiled"], summary["passed"]) == (3, 3, 2)
    assert summary["failures"]["assertion"] == 1 and sum(summary["failures"].values()) == 1
    assert summary["model"].startswith("openai:pretend@") and summary["obfuscated"] is True
    assert len(prompts) == 3
    for prompt in prompts:
        assert "inflection" not in prompt
        assert not any(f"def {task.name}(" in prompt for task in prepared.tasks)


def test_reference_answers_pass_in_both_conditions_of_one_run(projects, run_cli, tmp_path):
    """``--reference``: the project's own function, renamed like each prompt, answers
    through a replay file; both conditions of one run pass, and a second run of the same
    command asks and judges nothing again."""
    out = tmp_path / "out"
    _prepared_run(projects, "inflection", out, n_tasks=1)
    args = ["obfuseval", "project", "run", projects["base"] / "inflection.toml", "--reference"]
    args += ["--out", out, "--conditions", "original,obfuscated", "--json"]
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["conditions"]
    assert [(c, f["n_tasks"], f["cpr"], f["tpr"]) for c, f in figures.items()] == [
        ("original", 1, 1.0, 1.0),
        ("obfuscated", 1, 1.0, 1.0),
    ]
    before = _judged(out)
    again = run_cli(args, cwd=tmp_path)
    assert again.returncode == 0 and json.loads(again.stdout)["conditions"] == figures
    assert _judged(out) == before and len(before) == 2  # nothing asked or judged again


def _judged(out: Path) -> set:
    """(sample, when it was judged) of every stored verdict."""
    with RunStore(out, create=False) as store:
        return {(e.key, e.created_at) for e in store.evaluations()}


def _rows(out: Path) -> list:
    with RunStore(out, create=False) as store:
        return list(store.rows())


def test_a_killed_run_resumes_from_the_store_without_paying_twice(projects, run_cli, tmp_path):
    """Two tasks x two conditions over HTTP with two requests in flight; SIGKILL once
    some answers came in; the same command then finishes: every result exactly once, no
    call paid twice beyond those in flight at the kill; report and rescore read the run."""
    prepared = projects["prepared"]["inflection"]
    out, cache = tmp_path / "out", tmp_path / "cache"
    _prepared_run(projects, "inflection", out, n_tasks=2)
    broken = prepared.tasks[1].task_id
    responder = _responder(prepared, 0, broken, delay=0.4, extra="LIMIT = 3\n")
    with FakeEndpoint(responder=responder) as server:
        args = [
            *("obfuseval", "project", "run", projects["base"] / "inflection.toml"),
            *("--model", f"openai:pretend@{server.openai_base_url}", "--out", out),
            *("--conditions", "original,obfuscated", "--max-concurrency", "2"),
            *("--cache-dir", cache, "--json"),
        ]
        first = subprocess.Popen(
            [sys.executable, "-m", "beyondpass", *map(str, args)],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while server.request_count < 3 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.02)
        os.killpg(first.pid, signal.SIGKILL)
        in_flight = server.in_flight
        first.wait()
        assert server.request_count >= 3 and first.returncode == -signal.SIGKILL
        stored = len(_rows(out))
        assert stored < 4  # killed mid-run: not every answer stored
        done = run_cli(args, cwd=tmp_path, timeout=600)
        asked = server.request_count
        assert server.max_in_flight == 2  # several requests in flight, at most the limit
    assert done.returncode == 0, done.stderr
    assert asked <= 4 + in_flight, (asked, in_flight)
    rows = _rows(out)
    keys = sorted((r.sample.task_id, r.sample.condition) for r in rows)
    expected = sorted(
        (t.task_id, c) for t in prepared.tasks[:2] for c in ("original", "obfuscated")
    )
    assert keys == expected and all(r.result is not None for r in rows)
    lines = [json.loads(line) for line in (out / "results.jsonl").open()]
    assert sorted((r["task_id"], r["condition"]) for r in lines) == expected
    summary = json.loads(done.stdout)
    for condition in ("original", "obfuscated"):
        figures = summary["conditions"][condition]
        assert (figures["n_tasks"], figures["compiled"], figures["passed"]) == (2, 2, 1)
        assert figures["dropped_statements"] == 1  # LIMIT = 3, before the one right answer
    verdicts = {(r.sample.task_id, r.sample.condition): r.result.passed for r in rows}
    rescored = run_cli(["rescore", out, "--json"], cwd=tmp_path, timeout=600)
    assert rescored.returncode == 0, rescored.stderr
    assert {(r.sample.task_id, r.sample.condition): r.result.passed for r in _rows(out)} == verdicts
    reported = run_cli(["report", out], cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr
    text = (out / "report.md").read_text()
    assert "project-level CPR, TPR and failures" in text and "original vs obfuscated" in text
    assert "Ranking by TPR (obfuscated)" in text


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


def test_bad_input_is_one_line_and_non_zero(projects, run_cli, tmp_path):
    cases = {
        "nothing.toml": None,
        "bad.toml": "name = \n",
        "nosource.toml": 'name = "x"\n[select]\npaths = ["a.py"]\n',
        "repeats.toml": f'name = "x"\n[source]\ncheckout = "{tmp_path}"\n[test]\nrepeats = 2\n'
        '[select]\npaths = ["a.py"]\n',
        "typo.toml": f'name = "x"\n[source]\ncheckout = "{tmp_path}"\n[tset]\n',
    }
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        with pytest.raises(ConfigError) as caught:
            load_project(tmp_path / name)
        assert "\n" not in str(caught.value) and str(tmp_path / name) in str(caught.value)
    c_project = tmp_path / "c.toml"
    c_project.write_text(
        f'name = "redis"\nlanguage = "c"\n[source]\ncheckout = "{tmp_path}"\n'
        '[build]\ninstall = "make"\n[test]\ncommand = "make test"\n[select]\npaths = ["src/*.c"]\n'
    )
    assert load_project(c_project).test_command == ("make", "test")  # the format fits C
    for args in (
        ["run", c_project, "--reference", "--out", tmp_path / "o"],
        ["run", c_project, "--out", tmp_path / "o"],
        ["tasks", tmp_path / "bad.toml"],
    ):
        done = run_cli(["obfuseval", "project", *args], cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
