"""``beyondpass studies``: the built-in study files (e.g. RobuNFR's whole design)."""

from __future__ import annotations

from pathlib import Path

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import json_option


@click.group()
def studies() -> None:
    """Built-in study files: list them, print one to save and edit."""


def _builtin_files() -> list[Path]:
    from beyondpass.study.builtin import study_files

    return list(study_files().values())


@studies.command("list")
@json_option("Machine-readable output.")
def studies_list(as_json: bool) -> None:
    """List the built-in studies (run one as `beyondpass run studies/NAME.toml --model SPEC`)."""
    from beyondpass.tomlfile import read_toml

    rows = []
    for path in _builtin_files():
        raw = read_toml(path, "study file")
        rows.append(
            {
                "name": path.stem,
                "run_as": f"studies/{path.name}",
                "description": raw.get("description", ""),
                "path": str(path),
            }
        )
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        click.echo(f"{r['run_as']}: {r['description']}")


@studies.command("show")
@click.argument("name")
def studies_show(name: str) -> None:
    """Print a built-in study file (save it to edit the design)."""
    from beyondpass.errors import ConfigError
    from beyondpass.study.config import builtin_study_path

    path = builtin_study_path(name)
    if path is None:
        known = ", ".join(p.stem for p in _builtin_files())
        raise ConfigError(f"no built-in study {name!r} — built-in studies: {known}")
    click.echo(path.read_text(encoding="utf-8"), nl=False)
