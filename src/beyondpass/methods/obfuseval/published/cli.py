"""``beyondpass obfuseval published``: ObfusEval's own benchmark as its authors published it.

``table``: the paper's CPR/TPR tables regenerated from the recorded first-round outcomes,
each cell beside the paper's; ``failures``: the seed's Table VI from the recorded build
logs; ``answers``: every answer file's schema, the column replayed and the census of its
recorded outcomes; ``tasks``: a setting's tasks."""

from __future__ import annotations

import json
from pathlib import Path

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import data_dir_option, json_option

_PUBLISHED_HELP = (
    "checkout of ObfusEval's published repository (default: "
    "$BEYONDPASS_OBFUSEVAL_PUBLISHED, then obfuseval-c/seed under the data directory)"
)


def _checkout(fn):
    """``--published`` and ``--data-dir``: where the published files are."""
    fn = data_dir_option(fn)
    return click.option("--published", "published_dir", type=click.Path(), help=_PUBLISHED_HELP)(fn)


def _sources(fn):
    """``_checkout``'s options and ``--project`` (repeatable): which projects to read."""
    fn = click.option(
        "--project", "projects", multiple=True, help="only these projects (repeatable)"
    )(fn)
    return _checkout(fn)


def _root(published: str | None, data_dir: str | None) -> Path:
    from beyondpass.methods.obfuseval.published.location import checkout

    return checkout(published, data_dir)


def _projects(root: Path, chosen: tuple[str, ...]) -> list:
    from beyondpass.errors import DataError
    from beyondpass.methods.obfuseval.published import settings

    here = settings.available(root)
    if not chosen:
        if not here:
            raise DataError(f"{root}: the checkout holds no project's folder")
        return here
    found = [settings.project(name) for name in chosen]
    for project in found:
        if project not in here:
            raise DataError(f"{root}: the checkout does not hold {project.name} ({project.folder})")
    return found


@click.group("published")
def published() -> None:
    """ObfusEval's own C benchmark, from the authors' published files."""


@published.command("table")
@_sources
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="write files here")
@click.option("--seed", default=0, show_default=True, help="bootstrap seed (Kendall tau CI)")
@json_option()
def table(
    published_dir: str | None, data_dir: str | None, projects: tuple[str, ...],
    out: Path | None, seed: int, as_json: bool,
) -> None:  # fmt: skip
    """The paper's CPR/TPR tables from the recorded first-round outcomes (compat), cell by
    cell beside the paper's, with the TPR decrease ratios and the ranking stability."""
    from beyondpass.methods.obfuseval.published import report
    from beyondpass.methods.obfuseval.published import table as regenerated

    root = _root(published_dir, data_dir)
    chosen = _projects(root, projects)
    cells = regenerated.cells(root, chosen)
    decreases = regenerated.decreases(cells)
    rankings = regenerated.rankings(root, chosen, cells, seed)
    rows = report.table_rows(cells)
    text = report.markdown(cells, decreases, rankings)
    payload = {"cells": rows, "decreases": decreases, "rankings": rankings}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "published-table.md").write_text(text, encoding="utf-8")
        (out / "published-table.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    if as_json:
        emit_json(payload)
    else:
        click.echo(text)


def _answers(root: Path, projects: list) -> list:
    from beyondpass.methods.obfuseval.published import answers as recorded
    from beyondpass.methods.obfuseval.published import settings, tasks

    found = []
    for project in projects:
        for setting in settings.SETTINGS:
            listed = tasks.load(root, project, setting)
            for path, model in recorded.answer_files(root, project, setting):
                found += recorded.read(path, model, project, setting, listed)
    return found


@published.command("failures")
@_sources
@json_option()
def failures(
    published_dir: str | None, data_dir: str | None, projects: tuple[str, ...], as_json: bool
) -> None:
    """Why the recorded answers did not build: the seed's Table VI categories, from gcc's
    and the linker's messages in the recorded logs (first round, every setting)."""
    from beyondpass.methods.obfuseval.published import report

    root = _root(published_dir, data_dir)
    rows = report.failures(_answers(root, _projects(root, projects)))
    if as_json:
        emit_json({"failures": rows})
        return
    for row in rows:
        click.echo(
            f"{row['project']:10} {100 * row['share']:5.1f} % {row['count']:6d}  "
            f"{row['major']} / {row['category']}"
        )


@published.command("answers")
@_sources
@json_option()
def answers(
    published_dir: str | None, data_dir: str | None, projects: tuple[str, ...], as_json: bool
) -> None:
    """Every answer file: its schema, the column replayed, and its recorded outcomes."""
    from beyondpass.methods.obfuseval.published import report

    root = _root(published_dir, data_dir)
    rows = report.census(_answers(root, _projects(root, projects)))
    if as_json:
        emit_json({"files": rows})
        return
    for row in rows:
        click.echo(
            f"{row['project']} {row['setting']} {row['model']}: {row['reading']} — "
            f"{row['schema']}, replays {row['replayed']}; {row['answers']} answers, "
            f"{row['with_code']} with code; build {row['build']}; test {row['test']}"
        )
    click.echo("statuses:\n" + report.LEGEND)


@published.command("tasks")
@_checkout
@click.option("--project", required=True, help="redis, lvgl, fluent-bit, libgit2 or libvips")
@click.option("--setting", "setting_key", default="generation/original", show_default=True)
@json_option()
def tasks_command(
    published_dir: str | None, data_dir: str | None, project: str, setting_key: str,
    as_json: bool,
) -> None:  # fmt: skip
    """A setting's tasks: source file, function, header, and whether the reference and a
    symbol dictionary are there."""
    from beyondpass.methods.obfuseval.published import settings, tasks

    root = _root(published_dir, data_dir)
    (where,) = _projects(root, (project,))
    setting = settings.setting(setting_key)
    listed = tasks.load(root, where, setting)
    mapping = tasks.dictionary(root, where, setting)
    if as_json:
        emit_json(
            {
                "project": where.name,
                "setting": setting.key,
                "dictionary_entries": len(mapping.back),
                "tasks": [t.__dict__ for t in listed],
            }  # fmt: skip
        )
        return
    for task in listed:
        click.echo(
            f"{task.index:4d} {task.source_file}:{task.function} — reference "
            f"{'yes' if task.reference else 'no'}, prompt {len(task.prompt)} chars"
        )
    click.echo(f"{len(listed)} tasks; symbol dictionary: {len(mapping.back)} names")


published.add_command(tasks_command, "tasks")
