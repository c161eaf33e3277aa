"""``beyondpass.run`` from Python against a real local HTTP model server (tests/fake_endpoints.py,
the OpenAI wire format through the official SDK): a run started in a Python process is killed
with SIGKILL while it asks the model, then resumed in this process by calling
``beyondpass.run`` again with the same study and directory.

The server holds the request after the first ``ANSWERED`` answers until the kill, so the kill
lands while the model is being asked however loaded the machine is (no fixed sleeps). The
model answers one request at a time, so that held request is the only one in flight.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import beyondpass
from beyondpass.benchmarks import load_benchmark
from fake_endpoints import FakeEndpoint

TASKS = ["demo/add", "demo/fizzbuzz", "demo/count_vowels", "demo/running_max"]
ANSWERED = 2  # answers the first run gets before its next request is held
STUDY = """
name = "api-killable"
[[benchmarks]]
name = "demo"
tasks = {tasks}
[[models]]
spec = "openai:coder@{url}"
label = "coder"
max_concurrency = 1
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{{prompt}}"
[execution]
timeout_s = 5
"""
# the first run, as a researcher's script would start it
SCRIPT = """
import sys
import beyondpass

beyondpass.run(sys.argv[1], out=sys.argv[2], cache_dir=sys.argv[3], report=False)
"""

REFERENCE = {t.entry_point: t.reference_solution for t in load_benchmark("demo").tasks.values()}


def _answer(prompt: str) -> str:
    """The reference solution of the task the prompt asks for, except fizzbuzz's (wrong)."""
    name = re.search(r"def (\w+)\(", prompt).group(1)
    code = REFERENCE[name]
    if name == "fizzbuzz":
        code = code.replace("word or str(i)", "word or i")
    return f"Here it is:\n```python\n{code}```\n"


def _stored(run_dir: Path) -> list[str]:
    db = run_dir / "run.sqlite3"
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return [k for (k,) in conn.execute("SELECT key FROM samples")]
    except sqlite3.OperationalError:  # tables not made yet
        return []


def test_a_run_killed_mid_run_resumes_from_python_without_losing_or_reasking(tmp_path):
    released = threading.Event()
    killed = threading.Event()
    answered: list[str] = []  # prompts whose answer went back to a live run

    def model(prompt: str) -> str:
        if len(answered) >= ANSWERED and not killed.is_set():
            released.wait(300)  # held until the kill (a guard, not a timing assumption)
            return _answer(prompt)  # to a killed process: nobody receives it
        answered.append(prompt)
        return _answer(prompt)

    held: set[str] = set()
    with FakeEndpoint(responder=model) as server:
        study = tmp_path / "study.toml"
        study.write_text(STUDY.format(tasks=json.dumps(TASKS), url=server.openai_base_url))
        run_dir, cache_dir = tmp_path / "run", tmp_path / "cache"
        script = tmp_path / "first_run.py"
        script.write_text(SCRIPT, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        proc = subprocess.Popen(
            [sys.executable, str(script), str(study), str(run_dir), str(cache_dir)],
            cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 300  # a guard against hanging, no timing assertion
            while not (len(_stored(run_dir)) == ANSWERED and server.request_count > ANSWERED):
                if proc.poll() is not None:
                    raise AssertionError("stopped before the kill: " + proc.stderr.read().decode())
                assert time.monotonic() < deadline, "the first run never got to the held request"
                time.sleep(0.05)
        finally:
            held.update(_prompts(server)[ANSWERED:])  # the request in flight at the kill
            killed.set()
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stderr.close()
            released.set()
        assert proc.returncode == -signal.SIGKILL
        before = _stored(run_dir)
        assert len(before) == ANSWERED and len(held) == 1
        asked_before = server.request_count

        result = beyondpass.run(study, out=run_dir, cache_dir=cache_dir, report=False)

        # every sample is stored once, those stored before the kill among them
        after = _stored(run_dir)
        assert len(after) == len(set(after)) == len(TASKS)
        assert set(before) <= set(after)
        # the resumed run asked only for what was not stored: the held request again, and
        # the tasks never reached; no answered prompt was asked twice
        assert server.request_count - asked_before == len(TASKS) - ANSWERED
        asked = Counter(_prompts(server))
        assert len(asked) == len(TASKS)
        assert {p for p, n in asked.items() if n > 1} == held
        assert sorted(Counter(answered).values()) == [1] * len(TASKS)

    assert result.complete and result.exit_code == 0 and not result.failures
    assert result.samples_expected == result.samples_scored == len(TASKS)
    (group,) = result.groups
    assert group.pass_at[1] == 0.75 and group.status_counts == {"passed": 3, "failed": 1}
    rows = {r.task_id: r for r in beyondpass.open_run(run_dir).rows}
    assert set(rows) == set(TASKS)
    assert {t for t, r in rows.items() if not r.passed} == {"demo/fizzbuzz"}
    for r in rows.values():  # what was asked and answered, as the server saw it
        assert r.prompt in asked and r.prompt.startswith("Complete the following code.\n")
        assert r.raw == _answer(r.prompt) and r.code.startswith("def ")


def _prompts(server: FakeEndpoint) -> list[str]:
    return [r.body["messages"][-1]["content"] for r in server.requests]
