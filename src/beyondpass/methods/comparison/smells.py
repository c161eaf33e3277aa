"""Code smells and likely bugs by rule and severity: pylint and ruff (``smells_python``)
for Python, cppcheck and clang-tidy for C++ (``smells_cpp``), checkstyle for Java
(``smells_java``).

All answers of a batch are written to a private temporary directory as one file each and
analysed by the language's analysers, which read code and never run it; a time limit bounds
each analyser process. One severity scale for every language, pylint's message types
(``SEVERITIES``): ``fatal`` (the analyser could not read the code), ``error`` (a probable
bug), ``warning`` (suspicious code, a possible bug), ``refactor`` (a design or performance
smell), ``convention`` (a coding-standard or readability breach), ``info``; each other
analyser's levels are mapped onto it (docs/comparison.md has the tables). Metrics:
``smells`` (all findings) and one count per severity; details: counts per rule. The code
analysed is the model's (never our driver). A missing analyser is a one-line error naming
its package, never a count of zero.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from beyondpass.errors import ConfigError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation

#: the languages with analysers, and their files' suffix
SUFFIXES = {"python": ".py", "cpp": ".cpp", "java": ".java"}
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


@dataclass(frozen=True)
class Finding:
    """One analyser message: its rule (``tool:rule``) and its level on ``SEVERITIES``."""

    rule: str
    severity: str


def tally(findings: Sequence[Finding]) -> tuple[dict[str, int], dict[str, int]]:
    """(metrics, per-rule counts) of one file's findings."""
    severities = Counter(f.severity for f in findings)
    metrics = {"smells": len(findings)}
    metrics.update({f"smells_{s}": severities.get(s, 0) for s in SEVERITIES})
    return metrics, dict(sorted(Counter(f.rule for f in findings).items()))


def count(messages: Sequence[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """(metrics, per-rule counts) of one file's pylint messages."""
    return tally([_pylint_finding(m) for m in messages])


def _pylint_finding(message: dict[str, Any]) -> Finding:
    return Finding(f"{message.get('symbol')} ({message.get('message-id')})", str(message["type"]))


class SmellEvaluator(Evaluator):
    """Adds analyser findings per severity (and per rule in the details)."""

    name = "psb2_smells"
    metrics = METRICS

    def __init__(self, timeout_s: float = 300.0) -> None:
        self.timeout_s = timeout_s

    @classmethod
    def build(cls, options: SmellOptions | None, ctx: Any) -> SmellEvaluator:
        return cls((options or SmellOptions()).timeout_s)

    def metadata(self) -> dict[str, Any]:
        import pylint

        meta: dict[str, Any] = {"evaluator": self.name, "pylint": pylint.__version__}
        meta["rcfile"] = "none"
        from beyondpass.methods.comparison import smells_cpp, smells_java, smells_python

        for module in (smells_python, smells_cpp, smells_java):
            # not installed: an answer in that language then stops the run with that error
            with contextlib.suppress(ConfigError):
                meta.update(module.versions())
        meta["ruff_args"] = smells_python.ruff_args()
        meta["clang_tidy_checks"] = smells_cpp.CLANG_TIDY_CHECKS
        meta["checkstyle_rules"] = smells_java.RULES
        return meta

    def findings(self, language: str, paths: list[Path]) -> dict[str, list[Finding]]:
        """Every analyser's findings for one language's files, by file name."""
        if language == "cpp":
            from beyondpass.methods.comparison.smells_cpp import cpp_findings

            return cpp_findings(paths, self.timeout_s)
        if language == "java":
            from beyondpass.methods.comparison.smells_java import java_findings

            return java_findings(paths, self.timeout_s)
        from beyondpass.methods.comparison.smells_python import ruff_findings

        by_file = ruff_findings(paths, self.timeout_s)  # first: a missing ruff stops here
        for m in pylint_messages(paths, self.timeout_s):
            by_file.setdefault(Path(str(m.get("path", ""))).name, []).append(_pylint_finding(m))
        return by_file

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = [Evaluation() for _ in candidates]
        todo: dict[str, dict[int, Candidate]] = {}
        for i, c in enumerate(candidates):
            if c.task.language in SUFFIXES and c.extraction.code.strip():
                todo.setdefault(c.task.language, {})[i] = c
        with tempfile.TemporaryDirectory(prefix="bp-smells-") as tmp:
            for language, batch in todo.items():
                folder = Path(tmp) / language
                folder.mkdir()
                files = {i: folder / f"answer_{i}{SUFFIXES[language]}" for i in batch}
                for i, path in files.items():
                    # extraction strips the final newline: restore it, or every answer
                    # would get a missing-final-newline message for our doing
                    code = batch[i].extraction.code.rstrip("\n") + "\n"
                    path.write_text(code, encoding="utf-8")
                error = ""
                try:
                    by_file = self.findings(language, list(files.values()))
                except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
                    error = f"not analysed: {type(exc).__name__}: {str(exc)[:200]}"
                for i, path in files.items():
                    if error:
                        out[i].details = {"smells": error}
                    else:
                        out[i].metrics, rules = tally(by_file.get(path.name, []))
                        out[i].details = {"smell_rules": rules}
        for i, ev in enumerate(out):
            language = candidates[i].task.language
            if language not in SUFFIXES:
                ev.details = {"smells": f"no {language} analyser in this build"}
            elif not any(i in batch for batch in todo.values()):
                ev.details = {"smells": f"no {language} code to analyse"}
            if on_result is not None:
                on_result(i, ev)
        return out


def require(command: str, package: str) -> str:
    """The path of ``command``; a one-line ``ConfigError`` naming the Debian package when it
    is missing (a missing analyser must never read as zero smells)."""
    path = shutil.which(command)
    if path is None:
        raise ConfigError(
            f"code smells of this language need {command}, which is not installed — "
            f"apt-get install {package}"
        )
    return path


def run_analyser(cmd: Sequence[str], timeout_s: float, cwd: Path) -> subprocess.CompletedProcess:
    """One analyser process: no stdin, output captured, bounded by ``timeout_s``."""
    return subprocess.run(
        list(cmd),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        check=False,
    )
