"""ObfusEval's commands, all of them.

``beyondpass obfuscate``: a benchmark as verified obfuscated variants, written as a task file
(loadable as ``file:PATH``) plus a verification report (``PATH`` + ``.report.json``).
``beyondpass obfuseval``: the analysis (``decrease``: a run on the original tasks beside one
on the obfuscated tasks; ``compare`` is its former name, kept hidden so scripts keep working,
since ``beyondpass compare`` is the regression gate) and project-level mode (``project``,
from ``project/cli.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from beyondpass.analysis.formatting import percent
from beyondpass.cli.base import emit_json
from beyondpass.cli.options import (
    data_dir_option,
    executor_choice,
    executor_options,
    json_option,
)
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.obfuseval.cproject.cli import cproject
from beyondpass.methods.obfuseval.project.cli import project
from beyondpass.methods.obfuseval.published.cli import published


def parse_levels(raw: str) -> list[str]:
    """``symbol`` or ``symbol,structure``: the levels, checked (applied symbol first, then
    structure, then semantic, whatever the order named)."""
    from beyondpass.methods.obfuseval.transform import LEVELS

    levels = [p.strip() for p in raw.split(",") if p.strip()]
    choices = ", ".join(LEVELS)
    if not levels:
        raise ConfigError(f"--level: name at least one level ({choices})")
    for level in levels:
        if level not in LEVELS:
            raise ConfigError(f"--level: unknown level {level!r} — choose from {choices}")
    if len(set(levels)) != len(levels):
        raise ConfigError(f"--level: {raw!r} names a level twice")
    return levels


def task_row(task: Any) -> dict[str, Any]:
    """One line of beyondpass's own task format (benchmarks/native.py)."""
    return {
        "task_id": task.task_id,
        "language": task.language,
        "prompt": task.prompt,
        "entry_point": task.entry_point,
        "reference_solution": task.reference_solution,
        "tests": [{"name": t.name, "code": t.code} for t in task.tests],
        "test_setup": task.test_setup,
        "prompt_style": task.prompt_style,
        "metadata": dict(task.metadata),
    }


@click.command()
@click.option("--benchmark", "benchmark", required=True, help="Benchmark to obfuscate.")
@click.option(
    "--level", "level", default="symbol", show_default=True, help="Levels, e.g. symbol,semantic."
)
@click.option(
    "--variants",
    type=click.IntRange(1, 20),
    default=1,
    show_default=True,
    help="Seeded variants per task (seeds SEED .. SEED+N-1).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first variant.")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Task file to write (JSONL); the report goes to OUT.report.json.",
)
@click.option(
    "--scenario",
    type=click.Choice(["generation", "completion"]),
    help="Shape the prompts as the seed's scenario (completion: with partial code).",
)
@click.option(
    "--context", is_flag=True, help="Add the definitions the target uses, and distractors."
)
@executor_options
@data_dir_option
@json_option("Print the report summary as JSON.")
def obfuscate(
    benchmark: str,
    level: str,
    variants: int,
    seed: int,
    out: str,
    scenario: str | None,
    context: bool,
    executor: str | None,
    isolation: str | None,
    ray_address: str | None,
    process_budget: str | None,
    data_dir: str | None,
    as_json: bool,
) -> None:
    """Obfuscate a benchmark (ObfusEval); every variant is verified by execution (in a
    local sandbox, or where --executor says: ray)."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.methods.obfuseval.transform import ObfuscateOptions, obfuscate_benchmark

    levels = parse_levels(level)
    bench = load_benchmark(benchmark, data_dir)
    if context and scenario is None:
        raise ConfigError("--context needs --scenario generation or completion")
    options = ObfuscateOptions(
        levels=levels,  # type: ignore[arg-type]
        variants=variants,
        scenario=scenario,  # type: ignore[arg-type]
        context=context,
    )
    choice = executor_choice(executor, isolation, ray_address, process_budget=process_budget)
    runner = choice.build() if choice is not None else None
    try:
        result, report = obfuscate_benchmark(bench, options, seed, executor=runner)
    finally:
        if runner is not None:
            runner.close()
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    from beyondpass.study.answer_files import write_json_atomic, write_jsonl_atomic

    write_jsonl_atomic(path, [task_row(t) for t in result.tasks.values()])
    payload = report.as_dict()
    payload["input"] = bench.provenance()
    report_path = path.with_name(path.name + ".report.json")
    write_json_atomic(report_path, payload)
    summary = {
        k: payload[k]
        for k in (
            "benchmark",
            "levels",
            "seed",
            "variants",
            "n_variants",
            "n_verified",
            "verified_rate",
            "excluded",
        )
    }
    summary.update(out=str(path), report=str(report_path))
    if as_json:
        emit_json(summary)
        return
    click.echo(
        f"{bench.name}: {summary['n_verified']} of {summary['n_variants']} variants verified "
        f"({percent(summary['verified_rate'], 1, unit='%')}) -> {path}"
    )
    for item in summary["excluded"]:
        click.echo(f"  excluded {item['task_id']} (variant {item['variant']}): {item['reason']}")
    click.echo(f"report: {report_path}")


@click.group("obfuseval")
def obfuseval() -> None:
    """ObfusEval: how much of a score survives obfuscation; project-level mode."""


obfuseval.add_command(project)
obfuseval.add_command(cproject)
obfuseval.add_command(published)


def _groups(run: Path) -> dict:
    from beyondpass.methods.obfuseval.report import outcome_groups
    from beyondpass.store.run_store import RunStore

    if not (run / "run.sqlite3").exists():
        raise DataError(f"{run} is not a run directory (no run.sqlite3)")
    with RunStore(run, create=False) as store:
        groups = outcome_groups(store.rows())
    if not groups:
        raise DataError(f"{run} has no scored samples")
    return groups


@obfuseval.command("decrease")
@click.argument("original", type=click.Path(file_okay=False, path_type=Path))
@click.argument("obfuscated", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="write the tables here"
)
@click.option("--seed", default=0, show_default=True, help="bootstrap seed (Kendall tau CI)")
def decrease(original: Path, obfuscated: Path, out: Path | None, seed: int) -> None:
    """How much of a score survives obfuscation: a run on the original tasks beside one on
    the obfuscated tasks (same models, conditions and benchmarks): pass@1, decrease ratio,
    robust pass@1, ranking stability."""
    from beyondpass.methods.obfuseval.report import comparison_outputs

    before, after = _groups(original), _groups(obfuscated)
    if not set(before) & set(after):
        raise DataError(
            "the runs share no (benchmark, model, condition) — run the same study with and "
            "without the obfuscate transform"
        )
    files = comparison_outputs(before, after, seed)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (out / name).write_text(text, encoding="utf-8")
    click.echo(files["obfuseval-compare.md"], nl=False)
    if out is not None:
        click.echo(f"wrote {', '.join(sorted(files))} to {out}")


# the former name, hidden from --help (``beyondpass compare`` is the regression gate)
obfuseval.add_command(
    click.Command(
        "compare",
        params=decrease.params,
        callback=decrease.callback,
        help=decrease.help,
        hidden=True,
    )
)
