"""Shared helpers for the review tests: a two-model run (two pretend models on the `demo`
benchmark), a study on a copy of it, and form filling."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from beyondpass.review.cli import review as REVIEW_COMMAND
from beyondpass.review.db import PROPERTIES

PAIR = ("demo-careful", "demo-sloppy")


#: a two-model study on the 8 tasks of the `demo` benchmark (answers written by hand)
STUDY_DATA = Path(__file__).parents[1] / "data" / "two-models"


def demo_run(root: Path) -> Path:
    """A run of two pretend models (``data/study.toml``), made by the real `beyondpass run`."""
    proc = subprocess.run(
        [sys.executable, "-m", "beyondpass", "run", str(STUDY_DATA / "study.toml"), "--out",
         str(root / "demo" / "run")],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return root / "demo" / "run"


def study(template: Path, dest: Path, *args: str) -> tuple[Path, dict[str, str], str]:
    """A copy of the run with a review study; returns (run, reviewer -> link path, output)."""
    shutil.copytree(template, dest)
    result = CliRunner().invoke(REVIEW_COMMAND, ["create", str(dest), "--pair", *PAIR, *args])
    assert result.exit_code == 0, result.output
    links = dict(re.findall(r"(reviewer-\d+): http://127\.0\.0\.1:8765(/r/\S+)", result.output))
    return dest, links, result.output


def nonce_of(html: str) -> str:
    return re.search(r'name="nonce" value="([^"]+)"', html).group(1)


def form(values: dict[str, int] | None = None, better: str = "1", **extra: str) -> dict[str, str]:
    """A complete rating form; ``values`` maps "<property>_<1|2>" to a rating (default +1)."""
    data = {f"{p}_{pos}": "1" for p in PROPERTIES for pos in "12"}
    data.update({k: str(v) for k, v in (values or {}).items()})
    data["better"] = better
    data.update(extra)
    return data


def beyondpass(*args: str) -> subprocess.CompletedProcess[str]:
    """`beyondpass ARGS` in a fresh process (the comparison method registers `review`)."""
    return subprocess.run(
        [sys.executable, "-m", "beyondpass", *args], capture_output=True, text=True, check=False
    )
