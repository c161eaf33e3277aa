"""``evaluate --nfr --executor ray``: a driver killed mid-run resumes without losing work.

The command runs as a real subprocess with a private local Ray instance (the default of
``--executor ray``); ``pause_points`` stops it once the first NFR results are stored, so the
kill lands at a known point of NFR scoring, on Ray, without any timing. The answers are
real model output (HumanEval, gpt-3.5-turbo-0613: four answers, three passing and one
failing). Every process the command started carries a tag in its environment (Ray's
workers inherit the driver's), which is how the test finds what the kill left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from beyondpass.store.run_store import RunStore
from pause_points import run_until_paused

TAG = "BEYONDPASS_TEST_RAY_RESUME"
N_ANSWERS = 4
EXEC_TIME = ("exec_time_ms", "exec_time_stdev_ms", "exec_time_ref")


def tagged(tag: str) -> list[int]:
    """The living processes whose environment carries ``TAG=tag`` (read from /proc)."""
    needle = f"{TAG}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if needle in environ and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def named(tag: str) -> dict[int, str]:
    """The command's processes by their name (``comm``: raylet, gcs_server, ...)."""
    names = {}
    for pid in tagged(tag):
        with contextlib.suppress(OSError):
            names[pid] = Path(f"/proc/{pid}/comm").read_text().strip()
    return names


def left_after(tag: str) -> list[str]:
    """What of the command is still alive once its processes had their chance to end (the
    loop is a guard against waiting forever, not a timing assertion)."""
    for _ in range(300):
        if not tagged(tag):
            return []
        time.sleep(0.1)
    return [f"{pid} {name}" for pid, name in named(tag).items()]


@pytest.fixture
def ray_tag(monkeypatch) -> Iterator[str]:
    """A tag for this test's commands; whatever carries it is killed when the test ends."""
    tag = uuid.uuid4().hex
    monkeypatch.setenv(TAG, tag)
    yield tag
    for pid in tagged(tag):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def recorded_samples(data_dir: Path, path: Path) -> list[dict]:
    rows = [
        json.loads(line)
        for line in (data_dir / "recorded" / "humaneval-gpt-3.5-turbo-0613.jsonl").open()
    ]
    chosen = rows[::13][:N_ANSWERS]  # tasks spread over HumanEval, passing and failing
    lines = [{"task_id": r["task_id"], "solution": r["solution"]} for r in chosen]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return lines


def evaluations(run: Path, evaluator: str) -> dict[str, tuple[float, dict, dict]]:
    with RunStore(run, create=False) as store:
        return {e.key: (e.created_at, e.metrics, e.details) for e in store.evaluations(evaluator)}


def results(run: Path) -> list[dict]:
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in EXEC_TIME} for line in lines]


def test_killed_ray_driver_resumes_without_loss_or_rework(tmp_path, run_cli, data_dir, ray_tag):
    answers = tmp_path / "answers.jsonl"
    lines = recorded_samples(data_dir, answers)
    common = ["evaluate", "--benchmark", "humaneval", "--samples", answers, "--nfr", "--json"]
    args = [*common, "--executor", "ray", "--out", tmp_path / "ray"]

    # stopped in the driver once the first Ray batch's NFR results are being stored
    running: dict[int, str] = {}
    stored_before = run_until_paused(
        args, tmp_path, "nfr", after=1, while_paused=lambda: running.update(named(ray_tag))
    )
    # the tag reached the private Ray instance: its processes were seen while paused
    assert {"raylet", "gcs_server"} <= set(running.values()), running
    assert left_after(ray_tag) == []  # and the kill took all of them with the driver
    verdicts = evaluations(tmp_path / "ray", "functional")
    nfr = evaluations(tmp_path / "ray", "nfr")
    assert len(verdicts) == N_ANSWERS  # every verdict was stored before NFR scoring began
    assert sorted(nfr) == sorted(stored_before)  # nothing stored was lost
    assert 1 <= len(nfr) < N_ANSWERS  # the rest was in flight on Ray when the driver died
    assert not (tmp_path / "ray" / "results.jsonl").exists()

    again = run_cli(args, cwd=tmp_path)  # the same command resumes
    assert again.returncode == 0, again.stderr
    assert left_after(ray_tag) == []  # and its Ray instance ends with it
    assert evaluations(tmp_path / "ray", "functional") == verdicts  # not re-run
    final = evaluations(tmp_path / "ray", "nfr")
    assert sorted(final) == sorted(verdicts)  # every sample has its NFR metrics
    assert all(final[k] == nfr[k] for k in nfr)  # stored before the kill: kept, not redone
    assert all("pylint_refactor" in metrics for _, metrics, _ in final.values())
    assert json.loads(again.stdout)["n_samples"] == N_ANSWERS

    local = run_cli([*common, "--out", tmp_path / "local"], cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    resumed, uninterrupted = results(tmp_path / "ray"), results(tmp_path / "local")
    assert len(resumed) == len(lines)
    assert resumed == uninterrupted  # verdicts and NFR metrics as an uninterrupted local run
    assert {r["status"] for r in resumed} >= {"passed", "failed"}  # both kinds of sample
