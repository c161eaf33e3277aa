"""``beyondpass evaluate``: score a file of answers produced elsewhere, into a run store.

The work is :func:`beyondpass.api.evaluations.evaluate` (``beyondpass.evaluate`` in Python);
this module parses options and prints its summary.
"""

from __future__ import annotations

import click

from beyondpass.analysis.formatting import percent
from beyondpass.cli.base import emit_json
from beyondpass.cli.options import (
    data_dir_option,
    evaluator_flags,
    executor_options,
    flagged_evaluators,
    json_option,
)
from beyondpass.cli.progress import RichProgress


@click.command()
@click.option(
    "--benchmark", "benchmark", required=True, help="Benchmark name (see `benchmarks list`)."
)
@click.option(
    "--samples",
    required=True,
    type=click.Path(dir_okay=False),
    help="Answers JSONL: completion / solution / response per line.",
)
@data_dir_option
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Output directory (default: ./beyondpass-eval/<samples>-<benchmark>).",
)
@click.option(
    "--timeout",
    type=float,
    default=10.0,
    show_default=True,
    help="Wall-clock limit per sample in seconds.",
)
@click.option("--workers", type=int, default=None, help="Parallel samples (default: cores).")
@click.option(
    "--skip-unknown-tasks",
    is_flag=True,
    help="Mark lines whose task is not in the benchmark 'skipped' instead of failing.",
)
@click.option(
    "--answer-format",
    metavar="FORMAT",
    help="How the answers are read (default: the benchmark's), e.g. whole-program for "
    "answers that hold a whole program; an unknown name lists the known ones.",
)
@executor_options
@evaluator_flags
@click.option(
    "--evaluator",
    "evaluators",
    multiple=True,
    metavar="NAME",
    help="Add an evaluator's metrics (repeatable; see docs/study-files.md for the names).",
)
@json_option("Print one JSON summary on stdout.")
def evaluate(
    benchmark: str,
    samples: str,
    data_dir: str | None,
    out: str | None,
    timeout: float,
    workers: int | None,
    skip_unknown_tasks: bool,
    answer_format: str | None,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
    evaluators: tuple[str, ...],
    as_json: bool,
    **flags: bool,
) -> None:
    """Score a JSONL file of model answers against a benchmark's tests."""
    from beyondpass import registry
    from beyondpass.api.evaluations import evaluate as evaluate_answers

    with RichProgress(enabled=True) as progress:
        result = evaluate_answers(
            benchmark,
            samples,
            out=out,
            data_dir=data_dir,
            timeout=timeout,
            workers=workers,
            skip_unknown_tasks=skip_unknown_tasks,
            answer_format=answer_format,
            evaluators=(*flagged_evaluators(flags), *evaluators),
            executor=executor,
            isolation=isolation,
            process_budget=process_budget,
            ray_address=ray_address,
            progress=progress,
        )
    s = result.as_dict()
    if as_json:
        emit_json(s)
        return
    click.echo(
        f"{s['benchmark']}: {s['n_samples']} samples on {s['n_tasks']} of "
        f"{s['n_benchmark_tasks']} tasks"
    )
    if s["n_skipped"]:
        click.echo(f"  skipped {s['n_skipped']} lines whose task is not in {s['benchmark']}")
    for key in [k for k in s if k.startswith("pass@")]:
        click.echo(f"  {key}: " + percent(s[key], missing="-", unit="%"))
    click.echo("  statuses: " + ", ".join(f"{k} {v}" for k, v in s["status_counts"].items()))
    if s.get("truncated"):
        click.echo(f"  truncated: {s['truncated']} not passing, cut off at the token limit")
    for name in registry.names("evaluators", former=True):
        extra = s.get(name)
        if not isinstance(extra, dict) or "means" not in extra:
            continue
        spec, _ = registry.lookup("evaluators", name)
        means, counts = extra["means"], extra["n"]
        click.echo(
            f"  {spec.label or name} means: "
            + ", ".join(
                f"{k} {'-' if v is None else f'{v:.3f}'} (n={counts[k]})" for k, v in means.items()
            )
        )
    if s["known_broken_in_samples"]:
        click.echo(
            f"  known-broken tasks in these samples: {', '.join(s['known_broken_in_samples'])}"
        )
    click.echo(f"results: {s['results_path']}")
