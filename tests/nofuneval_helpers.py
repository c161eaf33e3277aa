"""Running ``beyondpass nofuneval score`` from the NoFunEval tests (one helper for all)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from typing import Any

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
