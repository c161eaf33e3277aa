"""A NoFunEval study run against a real local HTTP model server, killed with SIGKILL while
it asks the model and run again: every sample is stored once, and no request is paid twice
beyond the one in flight at the kill (the model answers one request at a time).

The server holds the first run's request after the first ``ANSWERED`` until the kill, so
the kill lands while asking the model however loaded the machine is (no fixed sleeps)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from fake_endpoints import FakeEndpoint
from nofuneval_data import nofuneval_dir, rows

TASKS = [str(n) for n in range(8)]
ANSWERED = 5  # answers the first run gets before its next request is held
PROMPTS = ["base_prompt", "coding_concepts"]
STUDY = """
name = "nofuneval-killable"
[[benchmarks]]
name = "nofuneval-latency"
tasks = {tasks}
[prompts]
plan = "nofuneval-edit"
select = {prompts}
[[models]]
spec = "openai:slow-editor@{url}#api=completions"
label = "slow"
max_concurrency = 1
[sampling]
max_tokens = 64
"""


def _samples(run_dir: Path) -> list[str]:
    db = run_dir / "run.sqlite3"
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return [k for (k,) in conn.execute("SELECT key FROM samples")]
    except sqlite3.OperationalError:  # not created yet
        return []


def test_killed_nofuneval_study_resumes_without_paying_twice(tmp_path):
    data = rows("latency.jsonl")
    released = threading.Event()
    asked = []

    def edit(prompt: str) -> str:  # the row's target, closing the fence the prompt opened
        asked.append(prompt)
        if len(asked) > ANSWERED:
            released.wait(300)  # held until the kill (a guard, not a timing assumption)
        row = next(r for r in data if r["source_code"].strip() in prompt)
        return row["target_code"] + "\n```\n"

    n_samples = len(TASKS) * len(PROMPTS)
    with FakeEndpoint(responder=edit) as server:
        study = tmp_path / "study.toml"
        study.write_text(
            STUDY.format(
                tasks=json.dumps(TASKS), prompts=json.dumps(PROMPTS), url=server.openai_base_url
            )
        )
        run_dir = tmp_path / "run"
        env = {
            **os.environ,
            "BEYONDPASS_DATA": str(nofuneval_dir().parent),
            "BEYONDPASS_CACHE_DIR": str(tmp_path / "cache"),
        }
        env.pop("OPENAI_API_KEY", None)
        cmd = [sys.executable, "-m", "beyondpass", "run", str(study), "--out", str(run_dir),
               "--no-report", "--json"]  # fmt: skip
        proc = subprocess.Popen(
            cmd, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 300  # a guard against hanging, no timing assertion
            while len(_samples(run_dir)) < ANSWERED and proc.poll() is None:
                assert time.monotonic() < deadline, "no samples stored"
                time.sleep(0.05)
            assert proc.poll() is None, "stopped before the kill: " + proc.stderr.read().decode()
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stderr.close()
            released.set()
        stored = _samples(run_dir)
        assert len(stored) == ANSWERED  # what was answered is stored; the held one is not
        asked_before = server.request_count

        done = subprocess.run(
            cmd, env=env, cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert done.returncode == 0, done.stderr
        payload = json.loads(done.stdout)
        assert payload["complete"]
        final = _samples(run_dir)
        assert len(final) == len(set(final)) == n_samples  # every sample once
        assert set(stored) <= set(final)
        # the rerun asked only for what was not stored, plus at most the one in flight
        assert server.request_count - asked_before <= n_samples - len(stored) + 1
        prompts = [r.body["prompt"] for r in server.requests]
        assert len(prompts) - len(set(prompts)) <= 1
        assert len(set(prompts)) == n_samples

    with sqlite3.connect(run_dir / "run.sqlite3") as conn:
        verdicts = conn.execute(
            "SELECT status, metrics FROM evaluations WHERE status IS NOT NULL"
        ).fetchall()
    assert len(verdicts) == n_samples
    assert all(json.loads(m)["diffbleu"] == 1.0 for _, m in verdicts)  # the target itself
