"""``beyondpass demo``: the README's first command, offline, showing every verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    proc = subprocess.run(
        [sys.executable, "-m", "beyondpass", "demo", "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=out,
    )
    return out, proc


def test_demo_succeeds_and_reports(demo_run):
    out, proc = demo_run
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["complete"] and payload["samples_scored"] == 32
    html = out / "run" / "report.html"
    assert payload["report_html"] == str(html) and html.stat().st_size > 10_000
    assert (out / "run" / "report.md").read_text().startswith("# demo")


def test_demo_shows_every_verdict(demo_run):
    _, proc = demo_run
    groups = {(g["model"], g["condition"]): g for g in json.loads(proc.stdout)["groups"]}
    statuses = set()
    for g in groups.values():
        statuses |= set(g["status_counts"])
    assert {"passed", "failed", "error", "timeout", "no_code", "syntax_error"} <= statuses
    assert groups[("demo-careful", "function-only")]["pass@1"] == 1.0
    assert groups[("demo-sloppy", "function-only")]["pass@1"] == 0.5
    assert groups[("demo-sloppy", "function-only")]["status_counts"] == {
        "passed": 4,
        "timeout": 1,
        "no_code": 1,
        "failed": 1,
        "error": 1,
    }


def test_demo_rerun_resumes_without_rescoring(demo_run):
    out, _ = demo_run
    again = subprocess.run(
        [sys.executable, "-m", "beyondpass", "demo", "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=out,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["samples_scored"] == 32


def test_help_for_every_command():
    for args in (
        ["--help"],
        ["demo", "--help"],
        ["run", "--help"],
        ["evaluate", "--help"],
        ["report", "--help"],
        ["benchmarks", "list", "--help"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "beyondpass", *args], capture_output=True, text=True
        )
        assert proc.returncode == 0 and "Usage:" in proc.stdout, args
