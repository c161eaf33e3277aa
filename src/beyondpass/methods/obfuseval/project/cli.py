"""``beyondpass obfuseval project tasks|run``: project-level ObfusEval on the command line."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import executor_choice, executor_options, json_option
from beyondpass.errors import ConfigError


def _load(project: str) -> Any:
    from beyondpass.methods.obfuseval.project.spec import load_project

    spec = load_project(project)
    if spec.language != "python":
        raise ConfigError(
            f"{project}: a {spec.language!r} project runs in C project mode — "
            f"beyondpass obfuseval cproject check {project}"
        )
    return spec


def _choice(
    executor: str | None, isolation: str | None, ray_address: str | None, budget: str | None
) -> Any:
    """The executor choice every command that runs code shares: where the answers' test
    suites run (here, or the batch pool on Ray) and how their sandboxes are confined."""
    from beyondpass.execution import ExecutorChoice

    chosen = executor_choice(executor, isolation, ray_address, process_budget=budget)
    return chosen or ExecutorChoice()


@click.group("project")
def project() -> None:
    """Project-level mode: regenerate a real project's functions and run its own tests."""


@project.command("tasks")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the choice.")
@executor_options
@json_option("Print the tasks as JSON.")
def tasks(
    project_file: str,
    seed: int,
    executor: str | None,
    isolation: str | None,
    ray_address: str | None,
    process_budget: str | None,
    as_json: bool,
) -> None:
    """List the functions a run would ask for, with their covering tests."""
    from beyondpass.methods.obfuseval.project.runner import prepare

    spec = _load(project_file)
    sandboxes = _choice(executor, isolation, ray_address, process_budget).sandboxes()
    scratch = Path(tempfile.mkdtemp(prefix="beyondpass-project-"))
    try:
        prepared = prepare(spec, scratch, sandboxes, seed)
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
        f"{len(prepared.not_crossing)} tests left out (with the original function behind the "
        "process boundary they fail, or together take over half the time limit)"
    )
    for item in prepared.dropped:
        click.echo(f"  dropped {item['task_id']}: {item['reason']}")


def _variants(obfuscate: bool, conditions: str | None) -> list[str]:
    from beyondpass.methods.obfuseval.project.benchmark import CONDITIONS

    if conditions is None:
        return ["obfuscated"] if obfuscate else ["original"]
    chosen = [c.strip() for c in conditions.split(",") if c.strip()]
    if obfuscate or not chosen or any(c not in CONDITIONS for c in chosen):
        raise ConfigError(
            "--conditions lists original and/or obfuscated, comma-separated (without "
            f"--obfuscate), got {conditions!r}"
        )
    return list(dict.fromkeys(chosen))


def _cache(cache_dir: str | None, no_cache: bool) -> Any:
    from beyondpass.models.cache import CACHE_FILENAME, ResponseCache, default_cache_path

    if no_cache:
        return None
    return ResponseCache(Path(cache_dir) / CACHE_FILENAME if cache_dir else default_cache_path())


@project.command("run")
@click.argument("project_file", metavar="PROJECT.toml", type=click.Path(dir_okay=False))
@click.option("--model", "model", help="Model spec, e.g. openai:NAME@http://127.0.0.1:8000/v1.")
@click.option(
    "--reference", is_flag=True, help="Answer with the project's own functions (a check)."
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="Run directory (the run store; the same command resumes it).",
)
@click.option("--obfuscate", is_flag=True, help="Ask the obfuscated prompts only.")
@click.option(
    "--conditions",
    metavar="LIST",
    help="Conditions of the run: original, obfuscated or original,obfuscated "
    "(default: original; obfuscated with --obfuscate).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of choice and names.")
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Model requests in flight at once.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="Response cache directory (default: $BEYONDPASS_CACHE_DIR or ~/.cache/beyondpass).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@executor_options
@json_option("Print the summary as JSON.")
def run(
    project_file: str,
    model: str | None,
    reference: bool,
    out: str,
    obfuscate: bool,
    conditions: str | None,
    seed: int,
    max_concurrency: int,
    cache_dir: str | None,
    no_cache: bool,
    executor: str | None,
    isolation: str | None,
    ray_address: str | None,
    process_budget: str | None,
    as_json: bool,
) -> None:
    """Regenerate each selected function, splice it into a copy, run its tests: CPR, TPR.

    A study run in OUT (beyondpass report / rescore / compare read it); killed, the same
    command resumes it without asking again what is stored. The answers' test suites run
    where --executor places batch work (here, or on Ray: every node needs the project
    source at the same path), each in a sandbox at --isolation (bwrap is required)."""
    from beyondpass.cli.progress import RichProgress
    from beyondpass.methods.obfuseval.project import study
    from beyondpass.methods.obfuseval.project.runner import tool_versions

    if bool(model) == reference:
        raise ConfigError("give exactly one of --model SPEC or --reference")
    variants = _variants(obfuscate, conditions)
    spec = _load(project_file)
    choice = _choice(executor, isolation, ray_address, process_budget)
    sandboxes = choice.sandboxes()  # the level and budget, refused here if they cannot hold
    run_dir = Path(out)
    ident, record = study.prepared_tasks(spec, run_dir, seed, sandboxes, tool_versions())
    label = "reference" if reference else _label(model or "")
    spec_text = study.write_reference(run_dir, record, variants) if reference else str(model)
    raw = study.design(ident, record, spec_text, label, max_concurrency, variants)
    cache = _cache(cache_dir, no_cache)
    try:
        with RichProgress(enabled=not as_json) as progress:
            outcome = study.run(raw, run_dir, record, cache, progress, choice)
    finally:
        if cache is not None:
            cache.close()
    summary = study.export(run_dir, record, model or "reference")
    for failure in outcome.failures:
        click.echo(failure, err=True)
    if as_json:
        emit_json(summary)
    else:
        _echo_summary(summary, run_dir)
    if not outcome.complete:
        raise SystemExit(1)


def _label(model: str) -> str:
    from beyondpass.study.config import default_label

    return default_label(model)


def _echo_summary(summary: dict[str, Any], run_dir: Path) -> None:
    for condition, figures in summary["conditions"].items():
        failures = ", ".join(f"{k} {v}" for k, v in figures["failures"].items() if v) or "none"
        click.echo(
            f"{summary['project']['name']} ({condition}): {figures['n_tasks']} tasks, "
            f"CPR {100 * figures['cpr']:.1f}%, TPR {100 * figures['tpr']:.1f}%; "
            f"failures: {failures}; statements left out by the splice: "
            f"{figures['dropped_statements']}"
        )
    click.echo(f"run: {run_dir} (beyondpass report {run_dir})")
    click.echo(f"results: {run_dir / 'results.jsonl'}")
