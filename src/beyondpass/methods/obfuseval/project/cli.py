"""``beyondpass obfuseval project tasks|run``: project-level ObfusEval on the command line."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import emit_json
from beyondpass.errors import ConfigError

_ISOLATION = click.Choice(["auto", "bwrap", "unshare", "process"])


def _prepare(project: str, isolation: str, seed: int, scratch: Path) -> Any:
    from beyondpass.methods.obfuseval.project.runner import prepare
    from beyondpass.methods.obfuseval.project.spec import load_project

    spec = load_project(project)
    if spec.language != "python":
        raise ConfigError(
            f"{project}: language {spec.language!r} is described but only Python projects can "
            "be run (coverage, splicing and the import check are Python-only)"
        )
    prepared = prepare(spec, scratch, isolation, seed)
    if prepared.sandbox.warning:
        click.echo(prepared.sandbox.warning, err=True)
    return prepared


@click.group("project")
def project() -> None:
    """Project-level mode: regenerate a real project's functions and run its own tests."""


@project.command("tasks")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the choice.")
@click.option("--isolation", type=_ISOLATION, default="auto", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the tasks as JSON.")
def tasks(project_file: str, seed: int, isolation: str, as_json: bool) -> None:
    """List the functions a run would ask for, with their covering tests."""
    scratch = Path(tempfile.mkdtemp(prefix="beyondpass-project-"))
    try:
        prepared = _prepare(project_file, isolation, seed, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    payload = {
        "project": prepared.spec.name,
        "tasks": [t.as_dict() for t in prepared.tasks],
        "flaky_excluded": prepared.flaky,
        "dropped": prepared.dropped,
        "not_crossing": prepared.not_crossing,
    }
    if as_json:
        emit_json(payload)
        return
    for task in prepared.tasks:
        click.echo(f"{task.task_id}  ({task.path}, {len(task.tests)} covering tests)")
    click.echo(
        f"{len(prepared.tasks)} tasks; {len(prepared.flaky)} flaky tests excluded; "
        f"{len(prepared.not_crossing)} tests left out (they fail with the original function "
        "behind the process boundary)"
    )
    for item in prepared.dropped:
        click.echo(f"  dropped {item['task_id']}: {item['reason']}")


def _model_answerer(spec: str) -> Any:
    from beyondpass.models.base import GenerationRequest, Message
    from beyondpass.models.client import ModelClient
    from beyondpass.models.factory import create_provider

    client = ModelClient(create_provider(spec), max_concurrency=1)

    def answer(task: Any, prompt: str) -> tuple[str, str]:
        condition = "obfuscated" if task.mapping else "original"
        request = GenerationRequest(
            (Message("user", prompt),), task_id=task.task_id, condition=condition
        )
        generation = client.generate(request)
        return generation.text, generation.model_version

    return answer


@project.command("run")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--model", "model", help="Model spec, e.g. openai:NAME@http://127.0.0.1:8000/v1.")
@click.option(
    "--reference", is_flag=True, help="Answer with the project's own functions (a check)."
)
@click.option(
    "--out", "out", required=True, type=click.Path(file_okay=False), help="Result directory."
)
@click.option("--obfuscate", is_flag=True, help="Rename the prompt's symbols (mapped back).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of choice and names.")
@click.option("--isolation", type=_ISOLATION, default="auto", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def run(
    project_file: str,
    model: str | None,
    reference: bool,
    out: str,
    obfuscate: bool,
    seed: int,
    isolation: str,
    as_json: bool,
) -> None:
    """Regenerate each selected function, splice it into a copy, run its tests: CPR, TPR."""
    from beyondpass.methods.obfuseval.project.runner import run_project
    from beyondpass.methods.obfuseval.project.tasks import reference_answer

    if bool(model) == reference:
        raise ConfigError("give exactly one of --model SPEC or --reference")
    if model:
        answer_for = _model_answerer(model)
    else:

        def answer_for(task: Any, prompt: str) -> tuple[str, str]:
            return reference_answer(task), "reference"

    scratch = Path(tempfile.mkdtemp(prefix="beyondpass-project-"))
    try:
        prepared = _prepare(project_file, isolation, seed, scratch)
        summary = run_project(
            prepared,
            answer_for,
            Path(out),
            model=model or "reference",
            obfuscate=obfuscate,
            seed=seed,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if as_json:
        emit_json(summary)
        return
    failures = ", ".join(f"{k} {v}" for k, v in summary["failures"].items() if v) or "none"
    click.echo(
        f"{summary['project']['name']}: {summary['n_tasks']} tasks, "
        f"CPR {100 * summary['cpr']:.1f}%, TPR {100 * summary['tpr']:.1f}%; failures: {failures}"
    )
    click.echo(f"results: {Path(out) / 'results.jsonl'}")
