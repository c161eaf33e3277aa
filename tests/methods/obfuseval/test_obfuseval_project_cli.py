"""Project-level ObfusEval on the command line, on the real projects of
test_obfuseval_project.py (prepared once per test run: conftest.py beside this file).

The model is a real HTTP server on 127.0.0.1 (tests/fake_endpoints.py) speaking the OpenAI
wire format: a whole run, both conditions with reference answers, a run killed with
SIGKILL and resumed, and bad input refused in one line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.obfuseval.project.benchmark import (
    TASKS_FILE,
    keep,
    project_record,
    record_id,
    write_record,
)
from beyondpass.methods.obfuseval.project.runner import tool_versions
from beyondpass.methods.obfuseval.project.spec import load_project
from beyondpass.methods.obfuseval.project.tasks import obfuscate_task, reference_answer
from beyondpass.store.run_store import RunStore
from fake_endpoints import FakeEndpoint


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
        first.wait()
        before = server.request_count
        assert before >= 3 and first.returncode == -signal.SIGKILL
        stored = len(_rows(out))
        assert stored < 4  # killed mid-run: not every answer stored
        done = run_cli(args, cwd=tmp_path, timeout=600)
        asked = server.request_count - before
        assert server.max_in_flight == 2  # several requests in flight, at most the limit
    assert done.returncode == 0, done.stderr
    # the second run asks only for samples the first left without a stored result, each
    # once (an answer sent just before the kill but never stored is paid again, no more)
    assert asked <= 4 - stored, (asked, stored)
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


def test_an_sdist_that_is_not_there_is_named_missing_and_a_wrong_file_is_named_wrong(tmp_path):
    (tmp_path / "notes.txt").write_text("not an archive")
    for sdist, said in (("gone.tar.gz", "does not exist"), ("notes.txt", "is not a .tar.gz")):
        description = tmp_path / f"{sdist}.toml"
        description.write_text(f'name = "x"\n[source]\nsdist = "{sdist}"\n')
        with pytest.raises(ConfigError) as caught:
            load_project(description)
        assert str(caught.value) == f"{description}: sdist {tmp_path / sdist} {said}" + (
            " or .zip file" if sdist == "notes.txt" else ""
        )


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
        '[build]\ninstall = "make"\ncoverage = "make CFLAGS=--coverage"\n'
        '[test]\ncommand = "make test"\nresult = "^(?P<status>ok|err) (?P<name>.+)$"\n'
        '[select]\npaths = ["src/*.c"]\n'
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
        if args[:3] == ["run", c_project, "--reference"]:  # C project mode's
            assert "beyondpass obfuseval cproject check" in done.stderr
