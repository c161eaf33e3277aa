"""The verdict evaluator of project mode: splice the answer, check the import, run the tests.

A study's verdict evaluator like ``functional``, chosen by the tasks of the benchmark
``obfuseval-project:...`` (``metadata["evaluator"]``), so asking, storing, resuming and
``rescore`` are the study runner's. Per batch it unpacks the project once from the
description the run recorded (refusing a source whose sha256 changed since), then judges
each answer with :func:`runner.evaluate` — sequentially: every answer already runs its
tests ``repeats`` times in sandboxes.

That work is a :class:`~beyondpass.execution.BatchJob` (:func:`judge_batch`) on the run's
batch pool: in this process by default (all answers one batch, exactly as before), on Ray
workers with ``--executor ray`` (each batch unpacks the project again on its worker). A
worker reads the project source at the path the run recorded: on one machine that is the
same path; on a multi-node cluster the checkout or sdist must be at that path on every
node (a shared file system, or a copy), else the batch stops with one line naming the node
and the missing path — never a skipped answer.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from beyondpass.errors import DataError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution import (
    BatchContext,
    BatchJob,
    BatchPool,
    ExecutorChoice,
    LocalPool,
    NodeLacksTool,
    Sandboxes,
)
from beyondpass.methods.obfuseval.project.benchmark import EVALUATOR, OBFUSCATED, spec_from_record
from beyondpass.methods.obfuseval.project.runner import (
    Prepared,
    TaskResult,
    evaluate,
    tool_versions,
)
from beyondpass.methods.obfuseval.project.tasks import ProjectTask
from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox, materialise, tree_digest

METRICS = ("compiled", "tests_run", "tests_failing", "dropped_statements")


class ProjectOptions(BaseModel):
    """``[evaluation.obfuseval-project]``: no options of its own — how the project's
    commands are confined is the run's executor choice (``[execution]`` isolation and
    process budget), shared by every command that runs code."""

    model_config = ConfigDict(extra="forbid")


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

    def __init__(self, choice: ExecutorChoice | None = None, pool: BatchPool | None = None) -> None:
        self.choice = choice or ExecutorChoice()
        self.pool = pool or LocalPool()

    def metadata(self) -> dict[str, Any]:
        return {
            "evaluator": self.name,
            "isolation": self.choice.isolation,
            "process_budget": self.choice.process_budget,
            "pool": self.pool.name,
            "tools": tool_versions(),
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        records: list[dict[str, Any]] = []
        index: dict[int, int] = {}  # id of a task's record -> its place in ``records``
        items: list[tuple[int, ProjectTask, str]] = []
        for cand in candidates:
            record = cand.task.metadata["project_record"]
            if id(record) not in index:
                index[id(record)] = len(records)
                records.append({k: v for k, v in record.items() if k != "tasks"})
            task = cand.task.metadata["project_task"][
                OBFUSCATED if cand.condition == OBFUSCATED else "original"
            ]
            items.append((index[id(record)], task, cand.raw))
        if not items:
            return []
        return self.pool.map(self.job(records), items, on_result)

    def job(self, records: list[dict[str, Any]]) -> BatchJob:
        """The batch job judging answers to tasks of ``records``: one CPU per batch (the
        test process and the function's worker take turns), a few answers per batch so a
        cluster's CPUs share a run's answers."""
        worst = max(
            float(r["project"]["timeout_s"]) * (int(r["project"]["repeats"]) + 3) for r in records
        )
        return BatchJob(
            judge_batch,
            JudgeArgs(self.choice.isolation, self.choice.process_budget, tuple(records)),
            purpose="project-mode test suites",
            modules=("pytest", "libcst"),
            batch_size=4,
            item_timeout_s=worst,
        )


@dataclass(frozen=True)
class JudgeArgs:
    """What every batch of :func:`judge_batch` gets: the isolation level and process budget
    asked for (decided on the machine that runs the batch) and the projects (their records
    without the task lists; an item names its project by place)."""

    isolation: str
    process_budget: str
    records: tuple[dict[str, Any], ...]


def judge_batch(
    args: JudgeArgs, items: list[tuple[int, ProjectTask, str]], ctx: BatchContext
) -> list[Evaluation]:
    """The batch function (module-level: a Ray worker imports it): each project the batch
    needs unpacked once, then each (project, task, answer) judged in turn."""
    out: list[Evaluation] = []
    sandboxes = Sandboxes(args.isolation, args.process_budget, announce=False)
    with tempfile.TemporaryDirectory(prefix="beyondpass-project-") as scratch:
        projects: dict[int, Prepared] = {}
        for i, (which, task, answer) in enumerate(items):
            prepared = projects.get(which)
            if prepared is None:
                work = Path(scratch) / str(len(projects))
                prepared = restore(args.records[which], sandboxes, work, ctx.node)
                projects[which] = prepared
            result = evaluate(prepared, task, answer, Path(scratch) / "work")
            result.mapping = dict(task.mapping)
            evaluation = evaluation_of(result)
            out.append(evaluation)
            if ctx.emit is not None:
                ctx.emit(i, evaluation)
    return out


def restore(record: dict[str, Any], sandboxes: Sandboxes, scratch: Path, node: str) -> Prepared:
    """The project as the run prepared it, unpacked again on ``node`` (``local``: in this
    process); its source must be there, at the recorded path, with the same sha256."""
    spec = spec_from_record(record)
    on = "" if node == "local" else f" on node {node}"
    source = spec.checkout if spec.checkout is not None else spec.sdist
    if source is None or not source.exists():
        where = "this machine" if node == "local" else f"node {node}"
        raise NodeLacksTool(
            f"{where} lacks the project source {source} of {spec.name}, needed for "
            "project-mode test suites — every node that judges answers needs the checkout "
            "or sdist at that path (a shared file system, or a copy there)"
        )
    sandbox = ProjectSandbox(spec, sandboxes, on)
    scratch.mkdir(parents=True)
    pristine = materialise(spec, scratch)
    digest = tree_digest(pristine)
    if digest != record["source_sha256"]:
        raise DataError(
            f"{spec.name}: the project source changed since the run was prepared "
            f"(sha256 {digest[:12]}, the run's {str(record['source_sha256'])[:12]}){on}"
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
    """The registry's factory (``EvaluatorSpec``): the run's executor choice confines the
    suites and its batch pool places them."""
    return ProjectEvaluator(
        getattr(context, "executor_choice", None), getattr(context, "pool", None)
    )
