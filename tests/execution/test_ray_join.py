"""Joining a Ray cluster as docs/scale-out.md says, under Ray's default authentication.

One head for the module, started as a user starts it (``ray start --head --port P``) on a
machine that has a token in ``~/.ray/auth_token`` (what ``ray get-auth-token --generate`` or
any earlier local Ray instance leaves there), so Ray turns token authentication on. Every
command runs with ``HOME`` in a temporary directory (the token stays there), and every
process of the head carries a tag in its environment: teardown kills those, never another
Ray instance of the machine (``ray stop`` would stop them all).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_ray_resume import TAG, left_after, tagged

from beyondpass.store.run_store import RunStore

#: Nothing of the machine's Ray settings reaches the commands: each test sets its own.
RAY_ENV = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")
ANSWERS = [
    {"task_id": "demo/add", "solution": "def add(a, b):\n    return a + b\n"},
    {"task_id": "demo/add", "solution": "def add(a, b):\n    return a - b\n"},
]
AUTH_NOTICE = "Token authentication is enabled"


@dataclass(frozen=True)
class Head:
    address: str  # as `ray start` printed it
    env: dict[str, str]  # HOME (its ~/.ray/auth_token: the head's token) and the tag


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RAY_ENV}
    return {**env, **extra}


def kill_tagged(tag: str) -> list[str]:
    """Kill what carries the tag; what is still alive afterwards (should be nothing)."""
    for pid in tagged(tag):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left_after(tag)


@pytest.fixture(scope="module")
def head() -> Iterator[Head]:
    # a short path: Ray's unix sockets live under --temp-dir and their paths are limited
    root = Path(tempfile.mkdtemp(prefix="bp-join-"))
    home = root / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    tag = uuid.uuid4().hex
    env = {"HOME": str(home), TAG: tag}
    with socket.socket() as s:
        s.bind(("", 0))
        port = s.getsockname()[1]
    ray_cli = Path(sys.executable).with_name("ray")
    start = [str(ray_cli), "start", "--head", "--port", str(port), "--temp-dir", str(root / "ray")]
    try:
        proc = subprocess.run(
            [*start, "--include-dashboard=false", "--disable-usage-stats"],
            env=clean_env(**env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        printed = proc.stdout + proc.stderr
        assert proc.returncode == 0, printed
        assert AUTH_NOTICE in printed  # the head requires a token: the case under test
        found = re.search(r"ray start --address='([^']+)'", printed)
        assert found, printed
        yield Head(found.group(1), env)
    finally:
        left = kill_tagged(tag)
        shutil.rmtree(root, ignore_errors=True)
        assert left == []


def evaluate(
    run_cli, tmp_path: Path, address: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(a) + "\n" for a in ANSWERS), encoding="utf-8")
    args = ["evaluate", "--benchmark", "demo", "--samples", answers, "--out", tmp_path / "out"]
    return run_cli(
        [*args, "--executor", "ray", "--ray-address", address, "--json"],
        cwd=tmp_path,
        env=env,
        unset=[name for name in RAY_ENV if name not in env],
    )


def test_joins_the_head_by_the_address_ray_start_printed(head, run_cli, tmp_path):
    proc = evaluate(run_cli, tmp_path, head.address, head.env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status_counts"] == {"passed": 1, "failed": 1}
    rows = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["passed", "failed"]
    with RunStore(tmp_path / "out", create=False) as store:
        meta = store.all_meta()["executor"]
    # the head's own address, not loopback, and nothing was started here
    assert (meta["ray_address"], meta["ray_started_here"]) == (head.address, False)
    assert AUTH_NOTICE not in proc.stderr


NEEDS = "the cluster requires its authentication token, and"
#: The cause the one line names, by what the driver's machine has.
CAUSES = {
    "wrong token": f"{NEEDS} the one sent from RAY_AUTH_TOKEN is not the head's",
    "no token here": f"{NEEDS} none was found here",
    "RAY_AUTH_MODE=disabled": f"{NEEDS} RAY_AUTH_MODE=disabled here sends none",
    "RAY_AUTH_MODE=token": "RAY_AUTH_MODE=token is set here but no authentication token",
}


@pytest.mark.parametrize("case", list(CAUSES))
def test_a_refused_token_is_one_line_naming_cause_and_fix(head, run_cli, tmp_path, case):
    env = {
        **head.env,
        # one attempt, not Ray's 20 one-second retries: the refusal is the same
        "RAY_gcs_server_port_wait_time_s": "1",
    }
    if case == "wrong token":
        env["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    elif case == "no token here":
        env["HOME"] = str(tmp_path)
    elif case == "RAY_AUTH_MODE=disabled":  # the user's choice is kept, though a token is here
        env["RAY_AUTH_MODE"] = "disabled"
    else:
        env.update(HOME=str(tmp_path), RAY_AUTH_MODE="token")
    proc = evaluate(run_cli, tmp_path, head.address, env)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith(
        f"error: ray executor: could not start or join Ray at {head.address}: {CAUSES[case]}"
    )
    assert "`ray get-auth-token` on the head" in errors[0]
    assert "start the head with RAY_AUTH_MODE=disabled" in errors[0]


LOCAL_INSTANCE = """
import json, socket, sys
from ray._common.network_utils import node_ip_address_from_perspective
from beyondpass.execution.ray_cluster import RayConnection

conn = RayConnection(None, {"num_cpus": 1}, "test")
ray, _ = conn.connect(1)
gcs_host, gcs_port = ray.get_runtime_context().gcs_address.rsplit(":", 1)
network = node_ip_address_from_perspective()  # the machine's own address, as Ray sees it
with socket.socket() as s:
    reachable = s.connect_ex((network, int(gcs_port))) == 0
seen = {
    "gcs": gcs_host,
    "nodes": sorted({n["NodeManagerAddress"] for n in ray.nodes()}),
    "network": network,
    "reachable_off_loopback": reachable,
}
conn.close()
print(json.dumps(seen))
"""


def test_a_private_instance_listens_on_loopback_only(tmp_path):
    tag = uuid.uuid4().hex
    try:
        proc = subprocess.run(
            [sys.executable, "-c", LOCAL_INSTANCE],
            env=clean_env(HOME=str(tmp_path), **{TAG: tag}),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        assert kill_tagged(tag) == []
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert (seen["gcs"], seen["nodes"]) == ("127.0.0.1", ["127.0.0.1"])
    if seen["network"] != "127.0.0.1":  # a machine with a network address
        assert seen["reachable_off_loopback"] is False
    assert AUTH_NOTICE not in proc.stderr  # Ray's notice on its own default is dropped
    assert (tmp_path / ".ray" / "auth_token").is_file()  # with Ray's default: token auth
