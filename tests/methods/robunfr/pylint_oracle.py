"""The independent oracle for pylint counts: the real ``pylint`` command, one process per
file, with its *default* configuration, in a scratch directory with a scratch HOME, so no
user or project rc file is read — independent of the rc file and the batching the NFR
evaluator uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def pylint_oracle(source: str, name: str, scratch: Path) -> list[dict]:
    """Messages of the real ``pylint`` command (defaults, no rc file) on one file."""
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / name
    path.write_text(source, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYLINT")}
    env.update(
        HOME=str(scratch),
        XDG_CONFIG_HOME=str(scratch / ".config"),
        PYLINTHOME=str(scratch / ".pylint.d"),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pylint", "--output-format=json", name],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode & 32 == 0, proc.stderr  # 32: usage error
    return json.loads(proc.stdout)
