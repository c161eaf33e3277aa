"""``beyondpass run``: run a study (ask, extract, store, score, report).

The work is :func:`beyondpass.api.studies.run` (and its ``cost`` for ``--dry-run``), the
function the Python API exposes as ``beyondpass.run``; this module parses options and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from beyondpass.analysis.formatting import percent
from beyondpass.cli.base import console, emit_json
from beyondpass.cli.options import data_dir_option, executor_options, json_option
from beyondpass.cli.progress import RichProgress, stderr


@click.command()
@click.argument("study", type=click.Path(dir_okay=False))
@click.option(
    "--model",
    "models",
    multiple=True,
    help="Model spec to run instead of the study's models (repeatable).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Run directory (default: ./runs/<study name>). Re-running resumes it.",
)
@data_dir_option
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="Response cache directory (default: $BEYONDPASS_CACHE_DIR or ~/.cache/beyondpass).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@click.option("--workers", type=int, default=None, help="Parallel samples when executing.")
@click.option(
    "--report/--no-report",
    default=True,
    show_default=True,
    help="Render the Markdown and HTML report when done.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Ask nothing: print, per model, benchmark and condition, the requests the run would "
    "send, an estimate of their prompt tokens, and what is already stored or cached.",
)
@executor_options
@json_option("Print one JSON summary on stdout.")
def run(
    study: str,
    models: tuple[str, ...],
    out: str | None,
    data_dir: str | None,
    cache_dir: str | None,
    no_cache: bool,
    workers: int | None,
    report: bool,
    dry_run: bool,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
    as_json: bool,
) -> None:
    """Run a study (benchmarks x models x prompt conditions) into a run directory."""
    from beyondpass.api import studies

    resolved = studies.resolve(study, models)
    config = resolved.config
    if resolved.builtin and not as_json:
        stderr.print(f"using the built-in study {config.source} (no {study} here)")
    if dry_run:
        _dry_run(config, out, data_dir, cache_dir, no_cache, as_json)
        return
    code = _run_study(
        config,
        out,
        data_dir=data_dir,
        cache_dir=cache_dir,
        no_cache=no_cache,
        workers=workers,
        report=report,
        as_json=as_json,
        executor=executor,
        isolation=isolation,
        process_budget=process_budget,
        ray_address=ray_address,
    )
    sys.exit(code)


def _dry_run(
    config: Any,
    out: str | None,
    data_dir: str | None,
    cache_dir: str | None,
    no_cache: bool,
    as_json: bool,
) -> None:
    """``run --dry-run``: the study's cost, nothing asked or written
    (:func:`beyondpass.api.studies.cost`)."""
    from rich.table import Table

    from beyondpass.api import studies
    from beyondpass.study.cost import TOKEN_RULE

    run_dir = studies.default_run_dir(config, out)
    cost = studies.cost(
        config, out=run_dir, data_dir=data_dir, cache_dir=cache_dir, cache=not no_cache
    )
    if as_json:
        emit_json({"run_dir": str(run_dir), **cost.as_dict()})
        return
    arms = len(config.arms) > 1
    table = Table(*(["arm"] if arms else []), "model", "benchmark", "condition", "samples",
                  "stored", "cached", "requests", "prompt tokens (est.)")  # fmt: skip
    for line in cost.lines:
        model = f"{line.model} (replayed)" if line.offline else line.model
        table.add_row(*([line.arm] if arms else []), model, line.benchmark, line.condition, *(
            f"{v:,}" for v in (line.samples, line.stored, line.cached, line.requests,
                               line.prompt_tokens)))  # fmt: skip
    console().print(table)
    click.echo(
        f"{cost.total('requests'):,} requests, about {cost.total('prompt_tokens'):,} prompt "
        f"tokens ({TOKEN_RULE}); {cost.total('stored'):,} of {cost.total('samples'):,} "
        f"samples stored in {run_dir}, {cost.total('cached'):,} answered by the cache"
    )
    for note in cost.notes:
        click.echo(f"note: {note}")


def _run_study(
    config: Any,
    out: str | Path | None,
    *,
    data_dir: str | None,
    cache_dir: str | None,
    no_cache: bool,
    workers: int | None,
    report: bool,
    as_json: bool,
    executor: str | None = None,
    isolation: str | None = None,
    process_budget: str | None = None,
    ray_address: str | None = None,
) -> int:
    """Run through :func:`beyondpass.api.studies.run` and print what it did; the exit code."""
    from beyondpass.api import studies

    with RichProgress() as progress:
        result = studies.run(
            config,
            out=out,
            data_dir=data_dir,
            cache_dir=cache_dir,
            cache=not no_cache,
            workers=workers,
            report=report,
            executor=executor,
            isolation=isolation,
            process_budget=process_budget,
            ray_address=ray_address,
            progress=progress,
        )
    if as_json:
        emit_json(result.as_dict())
    else:
        _print_groups(result.groups)
        click.echo(
            f"run: {result.run_dir}  ({result.samples_scored}/{result.samples_expected} "
            "samples scored)"
        )
        if result.report:
            click.echo(f"report: {result.report.html}")
            click.echo(f"        {result.report.markdown}")
    for failure in result.failures:  # one line each, whatever the output format
        click.echo(
            f"error: {failure} (the run is incomplete; what was done is stored — fix the cause "
            "and run the same command to resume)",
            err=True,
        )
    return result.exit_code


def _print_groups(summaries: list[Any]) -> None:
    from rich.table import Table

    table = Table("benchmark", "model", "condition", "tasks", "pass@1", "95% CI", "statuses")
    for g in summaries:
        lo, hi = g.pass1_ci
        table.add_row(
            g.benchmark,
            g.model,
            g.condition,
            str(g.n_tasks),
            percent(g.pass_at.get(1), missing="-", unit="%"),
            "-".join(percent(v, missing="-", unit="%") for v in (lo, hi)),
            ", ".join(f"{k} {v}" for k, v in g.status_counts.items())
            + (f" ({g.truncated} cut off at the token limit)" if g.truncated else ""),
        )
    console().print(table)
