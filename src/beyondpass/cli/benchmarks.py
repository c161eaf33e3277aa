"""``beyondpass benchmarks list|show``: which benchmarks there are, and what a task holds."""

from __future__ import annotations

from typing import Any

import click

from beyondpass.cli.base import console, emit_json
from beyondpass.cli.options import data_dir_option, json_option


@click.group()
def benchmarks() -> None:
    """List and inspect benchmarks."""


@benchmarks.command("list")
@data_dir_option
@json_option("Machine-readable output.")
def benchmarks_list(data_dir: str | None, as_json: bool) -> None:
    """List the built-in benchmarks and whether their data is available."""
    from beyondpass import registry
    from beyondpass.benchmarks import load_summary
    from beyondpass.benchmarks.sources import present_only
    from beyondpass.errors import BeyondpassError

    rows = []
    for name, (spec, _) in registry.named("benchmarks").items():
        if spec.takes_argument:  # named by what a run made (NAME:ARGUMENT): nothing to list
            continue
        entry: dict[str, Any] = {"name": name, "description": spec.description}
        try:  # what is here: listing never downloads
            with present_only():
                bench = load_summary(name, data_dir)  # no generated tests: none shown here
            entry.update(
                n_tasks=len(bench),
                version=bench.version,
                source=bench.source,
                coverage=bench.coverage,
                known_broken=len(bench.known_broken),
            )
        except BeyondpassError as exc:
            entry["unavailable"] = str(exc)
        rows.append(entry)
    if as_json:
        emit_json(rows)
        return
    from rich.table import Table

    table = Table("name", "tasks", "known broken", "description")
    for r in rows:
        tasks = str(r["n_tasks"]) if "n_tasks" in r else "[red]data not found[/red]"
        table.add_row(r["name"], tasks, str(r.get("known_broken", "")), r["description"])
    console().print(table)


@benchmarks.command("show")
@click.argument("name")
@click.argument("task_id", required=False)
@data_dir_option
@json_option("Machine-readable output.")
def benchmarks_show(name: str, task_id: str | None, data_dir: str | None, as_json: bool) -> None:
    """Show a benchmark, or one of its tasks."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.errors import DataError

    bench = load_benchmark(name, data_dir)
    if task_id is None:
        info = {
            **bench.provenance(),
            "description": bench.description,
            "known_broken": {k: v.reason for k, v in bench.known_broken.items()},
            "slow_tasks": {
                t.task_id: t.metadata["timeout_s"]
                for t in bench.tasks.values()
                if "timeout_s" in t.metadata
            },
            "task_ids": list(bench.tasks),
        }
        if as_json:
            emit_json(info)
            return
        click.echo(f"{bench.name}: {bench.description}")
        click.echo(f"  tasks: {len(bench)}   version: {bench.version}")
        click.echo(f"  source: {bench.source}")
        if bench.coverage:
            click.echo(f"  coverage: {bench.coverage}")
        for tid, reason in info["known_broken"].items():
            click.echo(f"  known broken {tid}: {reason}")
        for tid, timeout in info["slow_tasks"].items():
            click.echo(f"  slow {tid}: timeout {timeout:g} s")
        ids = list(bench.tasks)
        click.echo(f"  ids: {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''} {ids[-1]}")
        return
    tid = bench.resolve_id(task_id)
    if tid is None:
        raise DataError(
            f"benchmark {name} has no task {task_id!r} (ids look like {next(iter(bench.tasks))!r})"
        )
    task = bench.tasks[tid]
    data = {
        "benchmark": task.benchmark,
        "task_id": task.task_id,
        "language": task.language,
        "entry_point": task.entry_point,
        "prompt_style": task.prompt_style,
        "prompt": task.prompt,
        "reference_solution": task.reference_solution,
        "test_setup": task.test_setup,
        "n_tests": len(task.tests),
        "tests": [t.code for t in task.tests],
        "known_broken": bench.known_broken[tid].reason if tid in bench.known_broken else None,
        "metadata": dict(task.metadata),
    }
    if as_json:
        emit_json(data)
        return
    click.echo(
        f"{task.task_id} ({task.benchmark}, {task.language}, entry point {task.entry_point})"
    )
    if data["known_broken"]:
        click.echo(f"KNOWN BROKEN: {data['known_broken']}")
    click.echo("--- prompt ---")
    click.echo(task.prompt.rstrip())
    click.echo("--- reference solution ---")
    click.echo(task.reference_solution.rstrip())
    click.echo(f"--- tests ({len(task.tests)}) ---")
    for t in task.tests[:5]:
        click.echo(t.code.strip())
    if len(task.tests) > 5:
        click.echo(f"... and {len(task.tests) - 5} more")
