"""``beyondpass rescore``: add or recompute evaluators on an existing run (no model asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import (
    data_dir_option,
    executor_choice,
    executor_options,
    json_option,
)
from beyondpass.cli.progress import RichProgress


@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(file_okay=False))
@click.option(
    "--evaluator",
    "evaluators",
    multiple=True,
    metavar="NAME",
    help="Evaluator to add or recompute (repeatable; default: every evaluator the run has): "
    "functional, nfr, robustapi or any installed method's.",
)
@click.option(
    "--samples",
    type=click.Path(dir_okay=False),
    help="Runs of `evaluate`: the answers file, if it moved since (results.jsonl is rebuilt).",
)
@data_dir_option
@click.option("--workers", type=int, default=None, help="Parallel samples / pylint processes.")
@executor_options
@click.option(
    "--report/--no-report",
    default=True,
    show_default=True,
    help="Render the report again when the run already has one.",
)
@json_option("Print one JSON summary on stdout.")
def rescore(
    run_dir: str,
    evaluators: tuple[str, ...],
    samples: str | None,
    data_dir: str | None,
    workers: int | None,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
    report: bool,
    as_json: bool,
) -> None:
    """Add or recompute evaluators on a run of `run` or `evaluate`, without asking a model
    and without re-running the other evaluators."""
    from beyondpass.errors import DataError
    from beyondpass.study.rescore import rescore as rescore_run

    if not Path(run_dir).is_dir():
        raise DataError(f"run directory {run_dir} does not exist")
    with RichProgress(enabled=not as_json) as progress:
        outcome = rescore_run(
            run_dir,
            evaluators,
            data_dir=data_dir,
            workers=workers,
            executor=executor_choice(
                executor, isolation, ray_address, process_budget=process_budget
            ),
            samples_path=samples,
            progress=progress,
        )
    paths = None
    if report and (outcome.run_dir / "report.html").is_file():
        from beyondpass.report import render_report

        paths = render_report(outcome.run_dir)
    payload: dict[str, Any] = {
        "run_dir": str(outcome.run_dir),
        "kind": outcome.kind,
        "n_samples": outcome.n_samples,
        "evaluators": outcome.evaluators,
        "summary": outcome.results.summary if outcome.results else None,
        "report_html": str(paths.html) if paths else None,
    }
    if as_json:
        emit_json(payload)
        return
    for record in outcome.evaluators:
        click.echo(
            f"{record['evaluator']} (version {record['version']}): scored "
            f"{record['samples_scored']} of {outcome.n_samples} samples"
        )
    if outcome.results:
        click.echo(f"results: {outcome.results.results_path}")
    if paths:
        click.echo(f"report: {paths.html}")
