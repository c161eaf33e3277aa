"""``beyondpass obfuseval cproject check|judge``: C project mode on the command line.

``check`` prepares a C project (build, coverage, tasks, flaky tests) and judges each task's
own function spliced back: the machinery check, every one must build and pass. ``judge``
judges one answer file for one task.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import isolation_option, json_option, process_budget_option


def _prepare(
    project_file: str, seed: int, scratch: Path, isolation: str | None, budget: str | None
) -> tuple[Any, dict[str, Any]]:
    """The project prepared in sandboxes of the level and process budget the user chose
    (builds and test runs alike; a level or budget that cannot hold is refused here), and
    those sandboxes' record."""
    from beyondpass.execution import Sandboxes
    from beyondpass.methods.obfuseval.cproject.runner import prepare
    from beyondpass.methods.obfuseval.project.spec import load_project

    spec = load_project(project_file)
    sandboxes = Sandboxes(isolation or "auto", budget or "auto", announce=False)
    return prepare(spec, scratch, sandboxes, seed), sandboxes.metadata()


def _row(result) -> dict:
    return {
        "task_id": result.task_id, "compiled": result.compiled, "passed": result.passed,
        "category": result.category, "detail": result.detail, "failing": result.failing,
        "added": result.added, "dropped": result.dropped,
    }  # fmt: skip


@click.group("cproject")
def cproject() -> None:
    """C project mode: a model's C function spliced into a real C project, built, tested."""


@cproject.command("check")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the choice.")
@isolation_option
@process_budget_option
@json_option()
def check(
    project_file: str,
    seed: int,
    isolation: str | None,
    process_budget: str | None,
    as_json: bool,
) -> None:
    """Prepare the project and judge each task's own function spliced back (all must
    build and pass); exit 1 when one does not."""
    from beyondpass.methods.obfuseval.cproject.runner import judge

    with tempfile.TemporaryDirectory(prefix="beyondpass-cproject-") as scratch:
        prepared, sandbox = _prepare(
            project_file, seed, Path(scratch) / "prepare", isolation, process_budget
        )
        results = [
            judge(prepared, task, task.function.text, Path(scratch) / "work")
            for task in prepared.tasks
        ]
    summary = {
        "project": prepared.spec.name, "compiler": prepared.compiler, "sandbox": sandbox,
        "tests": len(prepared.tests), "flaky": prepared.flaky, "dropped": prepared.dropped,
        "tasks": [
            dict(_row(r), tests=list(t.tests))
            for r, t in zip(results, prepared.tasks, strict=True)
        ],
        "compiled": sum(r.compiled for r in results), "passed": sum(r.passed for r in results),
    }  # fmt: skip
    if as_json:
        emit_json(summary)
    else:
        for row in summary["tasks"]:
            verdict = "pass" if row["passed"] else f"FAIL ({row['category']}: {row['detail']})"
            click.echo(f"{row['task_id']}: {len(row['tests'])} covering tests — {verdict}")
        click.echo(
            f"{summary['project']} ({summary['compiler']}): {summary['tests']} tests, "
            f"{len(summary['flaky'])} flaky, {len(results)} tasks, "
            f"{summary['compiled']} built, {summary['passed']} passed"
        )
    if summary["passed"] != len(results):
        raise SystemExit(1)


@cproject.command("judge")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--task", "task_id", required=True, help="FILE::FUNCTION, as check lists them")
@click.option(
    "--answer", type=click.Path(dir_okay=False, exists=True, path_type=Path), required=True
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the choice.")
@isolation_option
@process_budget_option
@json_option()
def judge_command(
    project_file: str,
    task_id: str,
    answer: Path,
    seed: int,
    isolation: str | None,
    process_budget: str | None,
    as_json: bool,
) -> None:
    """Judge one answer (a file of C code) for one task."""
    from beyondpass.errors import ConfigError
    from beyondpass.methods.obfuseval.cproject.runner import judge

    with tempfile.TemporaryDirectory(prefix="beyondpass-cproject-") as scratch:
        prepared, _ = _prepare(
            project_file, seed, Path(scratch) / "prepare", isolation, process_budget
        )
        task = next((t for t in prepared.tasks if t.task_id == task_id), None)
        if task is None:
            known = ", ".join(t.task_id for t in prepared.tasks)
            raise ConfigError(f"no task {task_id!r} — the tasks are {known}")
        result = judge(prepared, task, answer.read_text(errors="replace"), Path(scratch) / "w")
    row = _row(result)
    if as_json:
        emit_json(row)
    else:
        verdict = "pass" if result.passed else f"FAIL ({result.category}: {result.detail})"
        click.echo(f"{task_id}: built {'yes' if result.compiled else 'no'} — {verdict}")
    if not result.passed:
        raise SystemExit(1)


cproject.add_command(judge_command, "judge")
