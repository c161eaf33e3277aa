"""Code smells and likely bugs by rule and severity: pylint and ruff (``smells_python``)
for Python, cppcheck and clang-tidy for C++ (``smells_cpp``), checkstyle for Java
(``smells_java``).

All answers of a batch are written to a private temporary directory as one file each and
analysed by the language's analysers, which read code and never run it; they run through
:mod:`beyondpass.analysers` (time and memory limits; versions and arguments recorded in the
run's metadata). One severity scale for every language, pylint's message types
(``findings.SEVERITIES``): ``fatal`` (the analyser could not read the code), ``error`` (a probable
bug), ``warning`` (suspicious code, a possible bug), ``refactor`` (a design or performance
smell), ``convention`` (a coding-standard or readability breach), ``info``; each other
analyser's levels are mapped onto it (docs/psb2.md has the tables). Metrics:
``smells`` (all findings) and one count per severity; details: counts per rule. The code
analysed is the model's (never our driver). A missing analyser is a one-line error naming
its package, never a count of zero.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pydantic

from beyondpass.analysers import AnalyserFailed, version
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution import BatchContext, BatchJob, BatchPool, LocalPool
from beyondpass.methods.psb2 import smells_cpp, smells_java, smells_python
from beyondpass.methods.psb2.findings import METRICS, SEVERITIES, Finding, tally

__all__ = ["METRICS", "SEVERITIES", "SUFFIXES", "Finding", "SmellEvaluator", "tally"]

#: the languages with analysers, and their files' suffix
SUFFIXES = {"python": ".py", "cpp": ".cpp", "java": ".java"}
#: the analysers each language's batch needs on the machine that runs it
TOOLS = {"python": ("ruff", "pylint"), "cpp": ("cppcheck", "clang-tidy"), "java": ("checkstyle",)}


def findings(
    language: str, paths: list[Path], timeout_s: float, workers: int | None = None
) -> dict[str, list[Finding]]:
    """Every analyser's findings for one language's files, by file name."""
    if language == "cpp":
        return smells_cpp.cpp_findings(paths, timeout_s, workers)
    if language == "java":
        return smells_java.java_findings(paths, timeout_s)
    return smells_python.python_findings(paths, timeout_s)


def smells_batch(
    args: tuple[str, float, bool], items: list[tuple[int, str]], ctx: BatchContext
) -> list[Evaluation]:
    """The batch function of a language's smells job (:mod:`beyondpass.execution.pool`):
    every ``(index, code)`` written as ``answer_<index><suffix>`` (the same names wherever
    the batch runs) to a private directory and analysed together."""
    language, timeout_s, remote = args
    out = [Evaluation() for _ in items]
    with tempfile.TemporaryDirectory(prefix="bp-smells-") as tmp:
        files = [Path(tmp) / f"answer_{i}{SUFFIXES[language]}" for i, _ in items]
        for path, (_, code) in zip(files, items, strict=True):
            # extraction strips the final newline: restore it, or every answer
            # would get a missing-final-newline message for our doing
            path.write_text(code.rstrip("\n") + "\n", encoding="utf-8")
        error = ""
        try:
            # locally the C++ analysers use every core, as before; a Ray task its own CPUs
            by_file = findings(language, files, timeout_s, ctx.cpus if remote else None)
        except AnalyserFailed as exc:
            error = f"not analysed: {str(exc)[:300]}"
        for ev, path in zip(out, files, strict=True):
            if error:
                ev.details = {"smells": error}
            else:
                ev.metrics, rules = tally(by_file.get(path.name, []))
                ev.details = {"smell_rules": rules}
    return out


class SmellOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    timeout_s: float = pydantic.Field(default=300.0, gt=0)


class SmellEvaluator(Evaluator):
    """Adds analyser findings per severity (and per rule in the details)."""

    name = "psb2-smells"
    metrics = METRICS

    def __init__(self, timeout_s: float = 300.0, pool: BatchPool | None = None) -> None:
        self.timeout_s = timeout_s
        self.pool = pool or LocalPool()

    @classmethod
    def build(cls, options: SmellOptions | None, ctx: Any) -> SmellEvaluator:
        return cls((options or SmellOptions()).timeout_s, getattr(ctx, "pool", None))

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"evaluator": self.name, "pylint": version("pylint")}
        meta["rcfile"] = smells_python.PYLINTRC
        meta["ruff"] = version("ruff")
        meta["ruff_args"] = smells_python.ruff_args()
        meta["clang_tidy_checks"] = smells_cpp.CLANG_TIDY_CHECKS
        meta["checkstyle_rules"] = smells_java.RULES
        # a tool that is not installed is recorded so; an answer in its language then
        # stops the run with a one-line error naming the package
        meta["analysers"] = {
            **smells_python.records(self.timeout_s),
            **smells_cpp.records(self.timeout_s),
            **smells_java.records(self.timeout_s),
        }
        return meta

    def findings(self, language: str, paths: list[Path]) -> dict[str, list[Finding]]:
        """Every analyser's findings for one language's files, by file name (here)."""
        return findings(language, paths, self.timeout_s)

    def job(self, language: str) -> BatchJob:
        """One language's smells as batch work. Python's are not split: pylint runs with its
        defaults, and ``duplicate-code`` relates the files of one batch."""
        remote = self.pool.name != LocalPool.name
        return BatchJob(
            smells_batch,
            (language, self.timeout_s, remote),
            f"code smells of {language} answers",
            tools=TOOLS[language],
            batch_size=64,
            split=language != "python",
            item_timeout_s=self.timeout_s,
        )

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = [Evaluation() for _ in candidates]
        todo: dict[str, list[int]] = {}
        for i, c in enumerate(candidates):
            if c.task.language in SUFFIXES and c.extraction.code.strip():
                todo.setdefault(c.task.language, []).append(i)
        for language, batch in todo.items():
            items = [(i, candidates[i].extraction.code) for i in batch]
            for i, ev in zip(batch, self.pool.map(self.job(language), items), strict=True):
                out[i] = ev
        for i, ev in enumerate(out):
            language = candidates[i].task.language
            if language not in SUFFIXES:
                ev.details = {"smells": f"no {language} analyser in this build"}
            elif not any(i in batch for batch in todo.values()):
                ev.details = {"smells": f"no {language} code to analyse"}
            if on_result is not None:
                on_result(i, ev)
        return out
