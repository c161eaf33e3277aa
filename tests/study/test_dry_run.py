"""``beyondpass run STUDY --dry-run``: what a run would send, counted before asking.

A real local HTTP model server (tests/fake_endpoints.py) answers the run afterwards and
counts what it receives: the dry run's count must be exactly that, for a design with a
two-step workflow, a condition that reuses another's answer, n = 3 and a model asked for
two samples per request; and after the run, or with the cache warm, nothing is left to send.
"""

from __future__ import annotations

import json
from pathlib import Path

from beyondpass.models.base import Message
from beyondpass.study.cost import estimate_tokens
from fake_endpoints import FakeEndpoint


def study(url: str, per_request: int) -> str:
    return f"""
name = "cost"
[[benchmarks]]
name = "demo"
limit = 3
[[models]]
spec = "openai:coder@{url}#samples_per_request={per_request}"
label = "coder"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{{prompt}}"
[[prompts.conditions]]
id = "refine"
steps = [
  {{ user = "Write it.\\n{{prompt}}" }},
  {{ user = "Make it readable.\\n{{code}}" }},
]
[[prompts.conditions]]
id = "improve-plain"
steps = [{{ reuse = "plain" }}, {{ user = "Improve this code:\\n{{code}}" }}]
[sampling]
n = 3
temperature = 0.8
max_tokens = 64
"""


def dry_run(run_cli, tmp_path: Path, body: str, out: str, cache: Path) -> dict:
    path = tmp_path / "study.toml"
    path.write_text(body, encoding="utf-8")
    args = ["run", path, "--out", tmp_path / out, "--cache-dir", cache, "--dry-run", "--json"]
    proc = run_cli(args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / out).exists()  # nothing written
    return json.loads(proc.stdout)


def test_the_dry_run_counts_what_the_server_then_receives(run_cli, tmp_path) -> None:
    cache = tmp_path / "cache"
    with FakeEndpoint() as server:
        body = study(server.openai_base_url, per_request=2)
        planned = dry_run(run_cli, tmp_path, body, "run", cache)
        lines = {line["condition"]: line for line in planned["lines"]}
        assert {c: line["samples"] for c, line in lines.items()} == dict.fromkeys(
            ("plain", "refine", "improve-plain"), 9
        )
        # 3 tasks x n = 3, two samples per first-step request: 2 batches per task
        assert lines["plain"]["requests"] == 6
        assert lines["refine"]["requests"] == 6 + 9  # step 2 carries each sample's own code
        assert lines["improve-plain"]["requests"] == 9  # its first step is plain's answer
        assert planned["totals"]["requests"] == 30
        assert lines["plain"]["max_completion_tokens"] == 6 * 64
        assert all(line["prompt_tokens"] > 0 for line in planned["lines"])

        path = tmp_path / "study.toml"
        done = run_cli(["run", path, "--out", tmp_path / "run", "--cache-dir", cache,
                        "--no-report", "--json"], cwd=tmp_path)  # fmt: skip
        assert done.returncode in (0, 1), done.stderr  # demo answers may fail their tests
        assert server.request_count == planned["totals"]["requests"]

        again = dry_run(run_cli, tmp_path, body, "fresh", cache)  # a new folder, warm cache
        assert again["totals"]["requests"] == 0
        assert again["totals"]["stored"] == 0
        assert again["totals"]["cached"] == 27  # every step of every sample
    resumed = run_cli(["run", path, "--out", tmp_path / "run", "--cache-dir", cache,
                       "--dry-run", "--json"], cwd=tmp_path)  # fmt: skip
    assert json.loads(resumed.stdout)["totals"] == {
        "samples": 27, "stored": 27, "cached": 0, "requests": 0,
        "prompt_tokens": 0,
    }  # fmt: skip


def test_one_sample_per_request_and_the_token_rule(run_cli, tmp_path) -> None:
    with FakeEndpoint() as server:
        planned = dry_run(
            run_cli, tmp_path, study(server.openai_base_url, per_request=1), "run", tmp_path
        )
        assert planned["totals"]["requests"] == 9 + 18 + 9
        assert server.request_count == 0  # a dry run asks nothing
    assert "characters / 4" in planned["token_estimate"]
    assert estimate_tokens([Message("user", "x" * 9)]) == 3 + 4
