"""Helpers of the NoFunEval tests: running ``beyondpass nofuneval score`` and small studies,
and requiring the static analysers of the oracle."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from nofuneval_data import nofuneval_dir


def score_cli(
    run_cli: Callable[..., subprocess.CompletedProcess[str]],
    cwd: str | os.PathLike[str],
    *args: Any,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``beyondpass nofuneval score ARGS`` in a subprocess, with the test data directory."""
    data = nofuneval_dir().parent
    return run_cli(
        ["nofuneval", "score", *args], cwd=cwd, env={"BEYONDPASS_DATA": str(data), **(env or {})}
    )


def need_analysers(*tools: str) -> None:
    """The analysers are part of CI (.ci/run): missing there fails, elsewhere skips."""
    missing = [t for t in tools if shutil.which(t) is None]
    if importlib.util.find_spec("bandit") is None:
        missing.append("bandit")
    if missing:
        message = f"analysers not installed: {', '.join(missing)}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


def run_study(tmp_path: Path, text: str, data_dir: Any = None) -> Path:
    """Write ``text`` as a study file, run it into ``tmp_path/run`` (complete, or the test
    fails with the failures) and return the run directory."""
    from beyondpass.study.config import load_study
    from beyondpass.study.runner import StudyRunner

    study = tmp_path / "study.toml"
    study.write_text(text)
    run = tmp_path / "run"
    data = str(data_dir) if data_dir is not None else None
    outcome = StudyRunner(load_study(study), run, data_dir=data).run()
    assert outcome.complete, outcome.failures
    return run
