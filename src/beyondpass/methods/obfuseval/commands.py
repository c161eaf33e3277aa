"""``beyondpass obfuseval``: ObfusEval's analysis commands (``compare``) and project-level mode
(``project``, from ``project/cli.py``); ``obfuscate`` makes the tasks."""

from __future__ import annotations

from pathlib import Path

import click

from beyondpass.errors import DataError
from beyondpass.methods.obfuseval.project.cli import project


@click.group("obfuseval")
def obfuseval() -> None:
    """ObfusEval: how much of a score survives obfuscation; project-level mode."""


obfuseval.add_command(project)


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


@obfuseval.command("compare")
@click.argument("original", type=click.Path(file_okay=False, path_type=Path))
@click.argument("obfuscated", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="write the tables here"
)
@click.option("--seed", default=0, show_default=True, help="bootstrap seed (Kendall tau CI)")
def compare(original: Path, obfuscated: Path, out: Path | None, seed: int) -> None:
    """Put a run on the original tasks beside one on the obfuscated tasks (same models,
    conditions and benchmarks): pass@1, decrease ratio, robust pass@1, ranking stability."""
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
