"""``beyondpass run``: a study end to end through replay and a real local HTTP endpoint.

The OpenAI-compatible endpoint is a real HTTP server on 127.0.0.1 (tests/fake_endpoints.py)
reached through the official SDK; it answers from the prompt it receives, so what the
runner sent is exactly what gets scored.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.models.cache import ResponseCache
from beyondpass.store.run_store import RunStore
from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner
from fake_endpoints import FakeEndpoint, free_port

DEMO = load_benchmark("demo")
REFERENCE = {t.entry_point: t.reference_solution for t in DEMO.tasks.values()}


def answer_from_prompt(text: str) -> str:
    """A pretend model: answers the task named in the prompt with its reference solution,
    except for `fizzbuzz`, which it gets wrong."""
    name = re.search(r"def (\w+)\(", text).group(1)
    code = REFERENCE[name]
    if name == "fizzbuzz":
        code = code.replace("word or str(i)", "word or i")
    return f"Sure! Here it is:\n```python\n{code}```\nHope it helps."


def write_study(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


def test_replay_study_scores_every_condition(tmp_path):
    answers = tmp_path / "answers.jsonl"
    rows = []
    for tid, task in DEMO.tasks.items():
        good = f"```python\n{task.reference_solution}```"
        rows.append({"task_id": tid, "condition": "plain", "response": good})
        wrong = good if tid != "demo/add" else "```python\ndef add(a, b):\n    return a - b\n```"
        rows.append({"task_id": tid, "condition": "neutral", "response": wrong})
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    study = write_study(
        tmp_path / "study.toml",
        """
name = "replayed"
seed = 7
[[benchmarks]]
name = "demo"
[[models]]
spec = "replay:answers.jsonl"
label = "recorded"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{prompt}"
[[prompts.conditions]]
id = "neutral"
user = "Generate a {language} code to solve the problem!\\n{prompt}"
""",
    )
    outcome = StudyRunner(load_study(study), tmp_path / "run").run()
    assert outcome.complete and outcome.scored == outcome.expected == 16
    by_condition = {s.condition: s for s in outcome.summaries}
    assert by_condition["plain"].pass_at[1] == 1.0
    assert by_condition["neutral"].pass_at[1] == pytest.approx(7 / 8)
    assert by_condition["neutral"].status_counts == {"passed": 7, "failed": 1}

    with RunStore(tmp_path / "run", create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    assert meta["status"] == "complete"
    assert meta["study"]["seed"] == 7
    assert meta["benchmarks"]["demo"]["version"] == DEMO.version
    assert meta["models"]["recorded"]["identity"]["sha256"]
    assert "python" in meta["environment"] and "packages" in meta["environment"]
    assert meta["conditions"]["neutral"]["steps"][0]["user"].startswith("Generate a {language}")
    sample = next(r.sample for r in rows if r.sample.condition == "neutral")
    first_message = sample.transcript[0]["messages"][0]["content"]
    assert first_message.startswith("Generate a Python code to solve the problem!\n")
    assert DEMO.tasks[sample.task_id].prompt in first_message
    assert sample.raw and sample.code and sample.extraction["status"] == "ok"


def test_each_answer_is_extracted_once_in_the_plans_format(tmp_path, monkeypatch):
    """The plan says whole-program: the stored code is read that way, once per answer; the
    benchmark's default format (fenced-code) is never tried."""
    from collections import Counter

    from beyondpass import extraction

    calls: Counter[str] = Counter()
    registered = extraction.extractor_for

    def counted(fmt: str):
        real = registered(fmt)

        def read(answer, task):
            calls[fmt] += 1
            return real(answer, task)

        return read

    monkeypatch.setattr(extraction, "extractor_for", counted)
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"task_id": tid, "condition": "plain", "response": f"```python\n{t.reference_solution}```"}
        for tid, t in DEMO.tasks.items()
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    study = write_study(
        tmp_path / "study.toml",
        """
name = "once"
[[benchmarks]]
name = "demo"
[[models]]
spec = "replay:answers.jsonl"
label = "recorded"
[prompts]
answer_format = "whole-program"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{prompt}"
""",
    )
    outcome = StudyRunner(load_study(study), tmp_path / "run").run()
    assert outcome.complete and outcome.scored == len(DEMO.tasks)
    assert calls == Counter({"whole-program": len(DEMO.tasks)})
    with RunStore(tmp_path / "run", create=False) as store:
        assert all(r.sample.extraction["status"] == "ok" for r in store.rows())
        assert {r.result.status for r in store.rows()} == {"passed"}


def test_openai_endpoint_two_step_workflow_and_cache(tmp_path):
    cache = ResponseCache(tmp_path / "cache" / "responses.sqlite3")
    with FakeEndpoint(responder=answer_from_prompt) as server:
        study = write_study(
            tmp_path / "study.toml",
            f"""
name = "live"
[[benchmarks]]
name = "demo"
limit = 3
[[models]]
spec = "openai:pretend-coder@{server.openai_base_url}"
label = "pretend"
[[prompts.conditions]]
id = "generate-then-refine"
steps = [
  {{ user = "Complete the following code.\\n{{prompt}}" }},
  {{ user = "Given the following code, improve its readability.\\n{{code}}" }},
]
""",
        )
        config = load_study(study)
        outcome = StudyRunner(config, tmp_path / "run", cache=cache).run()
        assert outcome.complete
        assert server.request_count == 6  # 3 tasks x 2 steps
        bodies = [r.body for r in server.requests]
        assert all(b["temperature"] == 0 for b in bodies)
        refine = [b for b in bodies if "improve its readability" in b["messages"][-1]["content"]]
        assert len(refine) == 3
        for body in refine:  # step 2 received the code extracted from step 1, not the prose
            content = body["messages"][-1]["content"]
            assert "def " in content and "Sure! Here it is" not in content

        summary = outcome.summaries[0]
        # add and is_palindrome right, fizzbuzz wrong (see answer_from_prompt)
        assert summary.pass_at[1] == pytest.approx(2 / 3)
        assert summary.status_counts == {"passed": 2, "failed": 1}
        with RunStore(tmp_path / "run", create=False) as store:
            rows = list(store.rows())
        assert {len(r.sample.transcript) for r in rows} == {2}
        assert all(r.sample.generation["model_version"] == "pretend-coder" for r in rows)

        # same run directory again: nothing asked, nothing re-scored
        StudyRunner(config, tmp_path / "run", cache=cache).run()
        assert server.request_count == 6
        # a fresh run directory with the same cache: every answer comes from the cache
        again = StudyRunner(config, tmp_path / "run2", cache=cache).run()
        assert server.request_count == 6 and again.complete
    cache.close()


def test_refused_endpoint_fails_that_model_and_keeps_the_rest(tmp_path):
    port = free_port()
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"task_id": tid, "completion": t.reference_solution}) + "\n"
            for tid, t in DEMO.tasks.items()
        )
    )
    study = write_study(
        tmp_path / "study.toml",
        f"""
name = "partly-down"
[[benchmarks]]
name = "demo"
limit = 2
[[models]]
spec = "replay:answers.jsonl"
label = "recorded"
[[models]]
spec = "openai:m@http://127.0.0.1:{port}/v1"
label = "down"
max_attempts = 1
""",
    )
    env = {**os.environ, "BEYONDPASS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "beyondpass",
            "run",
            str(study),
            "--out",
            str(tmp_path / "run"),
            "--no-report",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert proc.returncode == 3, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["complete"] is False
    assert len(payload["failures"]) == 1
    assert "cannot reach" in payload["failures"][0]
    assert f"127.0.0.1:{port}" in payload["failures"][0]
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: model down: cannot reach") and "run the same command" in line
    groups = {g["model"]: g for g in payload["groups"]}
    assert set(groups) == {"recorded"} and groups["recorded"]["pass@1"] == 1.0


SLOW_STUDY = """
name = "killable"
[[benchmarks]]
name = "demo"
[[models]]
spec = "openai:slow-coder@{url}"
label = "slow"
max_concurrency = 1
"""


def _stored_samples(run_dir: Path) -> int:
    db = run_dir / "run.sqlite3"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_kill_9_loses_at_most_in_flight_work_and_rerun_resumes(tmp_path):
    def slow_answer(text: str) -> str:
        time.sleep(0.3)
        return answer_from_prompt(text)

    with FakeEndpoint(responder=slow_answer) as server:
        study = write_study(tmp_path / "study.toml", SLOW_STUDY.format(url=server.openai_base_url))
        run_dir = tmp_path / "run"
        env = {**os.environ, "BEYONDPASS_CACHE_DIR": str(tmp_path / "cache")}
        cmd = [
            sys.executable,
            "-m",
            "beyondpass",
            "run",
            str(study),
            "--out",
            str(run_dir),
            "--no-report",
            "--json",
        ]
        proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
        )
        deadline = time.monotonic() + 60
        while _stored_samples(run_dir) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stored = _stored_samples(run_dir)
        assert 3 <= stored < 8
        asked_before = server.request_count

        done = subprocess.run(
            cmd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        payload = json.loads(done.stdout)
        assert payload["complete"] and payload["samples_scored"] == 8
        # every stored sample was kept; at most the one request in flight was asked twice
        assert server.request_count - asked_before <= 8 - stored + 1
        prompts = [r.body["messages"][-1]["content"] for r in server.requests]
        assert len(prompts) - len(set(prompts)) <= 1


def test_an_answer_cut_at_the_token_limit_is_counted_as_truncated(tmp_path):
    """The endpoint stops two answers at the token budget (``finish_reason = length``): the
    one still complete enough passes and is not counted; the one cut inside its code fails
    and is counted ``truncated`` in the summary, the CLI's JSON and the failure analysis."""
    from fake_endpoints import Reply

    def respond(text: str) -> Reply:
        name = re.search(r"def (\w+)\(", text).group(1)
        code = REFERENCE[name]
        if name == "add":  # stopped at the limit after the code: passes
            return Reply(text=f"```python\n{code}```\nIn short,", finish_reason="length")
        if name == "fizzbuzz":  # stopped at the limit inside the code: fails
            return Reply(text=f"```python\n{code[: len(code) // 2]}", finish_reason="length")
        return Reply(text=f"```python\n{code}```")

    with FakeEndpoint(responder=respond) as server:
        study = write_study(
            tmp_path / "study.toml",
            f"""
name = "cut"
[[benchmarks]]
name = "demo"
[[models]]
spec = "openai:pretend-coder@{server.openai_base_url}"
label = "pretend"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{{prompt}}"
""",
        )
        proc = subprocess.run(
            [sys.executable, "-m", "beyondpass", "run", str(study), "--out",
             str(tmp_path / "run"), "--no-cache", "--json"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (group,) = json.loads(proc.stdout)["groups"]
    assert group["truncated"] == 1
    assert group["status_counts"]["passed"] == len(DEMO.tasks) - 1
    with RunStore(tmp_path / "run", create=False) as store:
        cut = {r.sample.task_id: r.result.passed for r in store.rows()
               if r.sample.generation["finish_reason"] == "length"}  # fmt: skip
    assert sorted(cut.values()) == [False, True]
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    failures = report[report.index("### Failure analysis") :]
    header, _, row = failures.split("\n\n", 3)[2].splitlines()[:3]
    assert "truncated" in header
    truncated_col = [c.strip() for c in header.split("|")].index("truncated (of not passing)")
    assert [c.strip() for c in row.split("|")][truncated_col].startswith("1 ")
