"""The code base stays ruff-clean (lint rules in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    assert ruff, "ruff is part of the test extra: pip install '.[test]'"
    proc = subprocess.run(
        [ruff, "check", "src", "tests", "benchmarks", "scripts"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
