"""One PSB2 study the method's tests share: a right gcd answer through a replay file, on
psb2-edge, with the ``[evaluation]`` table the test gives."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

GCD_ANSWER = (
    "```python\na = int(input())\nb = int(input())\nwhile b:\n    a, b = b, a % b\nprint(a)\n```"
)


def run_gcd_study(run_cli: Any, tmp_path: Path, name: str, evaluation: str, *extra: str) -> Path:
    """Run the study ``name`` (``evaluation``: its ``[evaluation]`` tables, TOML) in
    ``tmp_path``; the run directory, once the command succeeded."""
    (tmp_path / "a.jsonl").write_text(json.dumps({"task_id": "gcd", "response": GCD_ANSWER}) + "\n")
    study = f"""
        name = "{name}"
        seed = 0
        [[benchmarks]]
        name = "psb2-edge"
        tasks = ["gcd"]
        [[models]]
        spec = "replay:a.jsonl"
        [prompts]
        plan = "psb2-program"
        """
    (tmp_path / "s.toml").write_text(textwrap.dedent(study) + textwrap.dedent(evaluation))
    proc = run_cli(["run", "s.toml", *extra], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "runs" / name
