"""``beyondpass example``: the example method's command."""

from __future__ import annotations

import click


@click.group()
def example() -> None:
    """Example method: lines of code per answer."""


@example.command("count")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
def count(path: str) -> None:
    """Print how many non-blank lines PATH has."""
    with open(path, encoding="utf-8") as fh:
        n = sum(1 for line in fh if line.strip())
    click.echo(f"{path}: {n} non-blank lines")
