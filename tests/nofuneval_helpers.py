"""Helpers of the NoFunEval tests: running ``beyondpass nofuneval score``, and requiring the
static analysers of the oracle."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
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
