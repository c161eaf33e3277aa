"""Code smells and likely bugs by rule and severity, for Python answers: pylint.

All answers of a batch are written to a private temporary directory as one file each and
analysed by one pylint process (``python -m pylint --output-format=json``), which reads
code and never runs it; a time limit bounds the batch. pylint's message types are the
severities (``fatal``, ``error``, ``warning``, ``refactor``, ``convention``, ``info``).
Metrics: ``smells`` (all messages) and one count per severity; details: counts per rule
(``symbol`` with its id). The code analysed is the model's (never our driver).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pydantic

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation

SEVERITIES = ("fatal", "error", "warning", "refactor", "convention", "info")
METRICS = ("smells", *(f"smells_{s}" for s in SEVERITIES))


class SmellOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    timeout_s: float = pydantic.Field(default=300.0, gt=0)


def pylint_messages(files: Sequence[Path], timeout_s: float = 300.0) -> list[dict[str, Any]]:
    """pylint's JSON messages for ``files`` (one process, no plugins, no rc file)."""
    cmd = [
        sys.executable,
        "-m",
        "pylint",
        "--output-format=json",
        "--rcfile=/dev/null",
        "--jobs=1",
        "--persistent=n",
        "--score=n",
        *map(str, files),
    ]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
        cwd=files[0].parent if files else None,
        check=False,
    )
    if proc.returncode & 32 or not proc.stdout.strip().startswith("["):  # usage error
        raise RuntimeError(f"pylint failed: {(proc.stderr or proc.stdout).strip()[:200]}")
    return json.loads(proc.stdout)


def count(messages: Sequence[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """(metrics, per-rule counts) of one file's messages."""
    severities = Counter(str(m.get("type", "")) for m in messages)
    rules = Counter(f"{m.get('symbol')} ({m.get('message-id')})" for m in messages)
    metrics = {"smells": len(messages)}
    metrics.update({f"smells_{s}": severities.get(s, 0) for s in SEVERITIES})
    return metrics, dict(sorted(rules.items()))


class SmellEvaluator(Evaluator):
    """Adds pylint message counts per severity (and per rule in the details)."""

    name = "psb2_smells"
    metrics = METRICS

    def __init__(self, timeout_s: float = 300.0) -> None:
        self.timeout_s = timeout_s

    @classmethod
    def build(cls, options: SmellOptions | None, ctx: Any) -> SmellEvaluator:
        return cls((options or SmellOptions()).timeout_s)

    def metadata(self) -> dict[str, Any]:
        import pylint

        return {"evaluator": self.name, "pylint": pylint.__version__, "rcfile": "none"}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = [Evaluation() for _ in candidates]
        todo = {
            i: c
            for i, c in enumerate(candidates)
            if c.task.language == "python" and c.extraction.code.strip()
        }
        with tempfile.TemporaryDirectory(prefix="bp-smells-") as tmp:
            files = {i: Path(tmp) / f"answer_{i}.py" for i in todo}
            for i, path in files.items():
                # extraction strips the final newline: restore it, or every answer would
                # get pylint's missing-final-newline for our doing
                path.write_text(todo[i].extraction.code.rstrip("\n") + "\n", encoding="utf-8")
            by_file: dict[str, list[dict[str, Any]]] = {p.name: [] for p in files.values()}
            error = ""
            if files:
                try:
                    for m in pylint_messages(list(files.values()), self.timeout_s):
                        by_file.setdefault(Path(str(m.get("path", ""))).name, []).append(m)
                except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
                    error = f"not analysed: {type(exc).__name__}: {str(exc)[:200]}"
            for i, path in files.items():
                if error:
                    out[i].details = {"smells": error}
                else:
                    out[i].metrics, rules = count(by_file[path.name])
                    out[i].details = {"smell_rules": rules}
        for i, ev in enumerate(out):
            if i not in todo:
                ev.details = {"smells": "no Python code to analyse"}
            if on_result is not None:
                on_result(i, ev)
        return out
