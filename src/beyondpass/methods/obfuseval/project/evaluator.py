"""The verdict evaluator of project mode: splice the answer, check the import, run the tests.

A study's verdict evaluator like ``functional``, chosen by the tasks of the benchmark
``obfuseval-project:...`` (``metadata["evaluator"]``), so asking, storing, resuming and
``rescore`` are the study runner's. Per batch it unpacks the project once from the
description the run recorded (refusing a source whose sha256 changed since), then judges
each answer with :func:`runner.evaluate` — sequentially: every answer already runs its
tests ``repeats`` times in sandboxes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.methods.obfuseval.project.benchmark import EVALUATOR, OBFUSCATED, spec_from_record
from beyondpass.methods.obfuseval.project.runner import (
    Prepared,
    TaskResult,
    evaluate,
    tool_versions,
)
from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox, materialise, tree_digest

METRICS = ("compiled", "tests_run", "tests_failing", "dropped_statements")


class ProjectOptions(BaseModel):
    """``[evaluation.obfuseval-project]``: how the project's commands are confined."""

    model_config = ConfigDict(extra="forbid")
    isolation: Literal["auto", "bwrap", "unshare", "process"] = "auto"


def status_of(result: TaskResult) -> str:
    """The store's status of a task verdict (the taxonomy class stays in the details)."""
    if result.passed:
        return "passed"
    if result.category == "timeout":
        return "timeout"
    if result.compiled:
        return "failed"
    if result.detail == "no code in the answer":
        return "no_code"
    return "syntax_error" if result.category == "syntax" else "compile_error"


def evaluation_of(result: TaskResult) -> Evaluation:
    return Evaluation(
        status=status_of(result),
        passed=result.passed,
        metrics={
            "compiled": 1.0 if result.compiled else 0.0,
            "tests_run": result.tests,
            "tests_failing": len(result.failing_tests),
            "dropped_statements": len(result.dropped),
        },
        details={
            "message": result.detail,
            "category": result.category,
            "failing_tests": list(result.failing_tests),
            "dropped_statements": list(result.dropped),
            "mapping": dict(result.mapping),
        },
    )


class ProjectEvaluator(Evaluator):
    """Judges answers to project tasks by the project's own covering tests."""

    name = EVALUATOR
    decides_verdict = True
    version = "1"
    metrics = METRICS

    def __init__(self, isolation: str = "auto") -> None:
        self.isolation = isolation

    def metadata(self) -> dict[str, Any]:
        return {"evaluator": self.name, "isolation": self.isolation, "tools": tool_versions()}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out: list[Evaluation] = []
        with tempfile.TemporaryDirectory(prefix="beyondpass-project-") as scratch:
            projects: dict[int, Prepared] = {}
            for i, cand in enumerate(candidates):
                record = cand.task.metadata["project_record"]
                prepared = projects.get(id(record))
                if prepared is None:
                    prepared = self._restore(record, Path(scratch) / str(len(projects)))
                    projects[id(record)] = prepared
                task = cand.task.metadata["project_task"][
                    OBFUSCATED if cand.condition == OBFUSCATED else "original"
                ]
                result = evaluate(prepared, task, cand.raw, Path(scratch) / "work")
                result.mapping = dict(task.mapping)
                evaluation = evaluation_of(result)
                out.append(evaluation)
                if on_result is not None:
                    on_result(i, evaluation)
        return out

    def _restore(self, record: dict[str, Any], scratch: Path) -> Prepared:
        """The project as the run prepared it, unpacked again; its sha256 must match."""
        spec = spec_from_record(record)
        sandbox = ProjectSandbox(spec, self.isolation)
        if sandbox.level != "bwrap":
            raise ConfigError(
                f"{spec.name}: project mode needs the bwrap sandbox (level {sandbox.level!r} "
                "does not confine the filesystem)"
            )
        scratch.mkdir(parents=True)
        pristine = materialise(spec, scratch)
        digest = tree_digest(pristine)
        if digest != record["source_sha256"]:
            raise DataError(
                f"{spec.name}: the project source changed since the run was prepared "
                f"(sha256 {digest[:12]}, the run's {str(record['source_sha256'])[:12]})"
            )
        return Prepared(
            spec,
            sandbox,
            pristine,
            digest,
            [],
            list(record["flaky_excluded"]),
            list(record["dropped"]),
            list(record["not_crossing"]),
            tuple(record["test_files"]),
        )


def build(options: ProjectOptions | None, context: Any) -> ProjectEvaluator:
    """The registry's factory (``EvaluatorSpec``)."""
    return ProjectEvaluator(isolation=options.isolation if options is not None else "auto")
