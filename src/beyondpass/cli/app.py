"""The ``beyondpass`` command line: the one place where all commands are assembled.

Exit codes: 0 success; 1 the work finished incomplete; 2 bad input or configuration; 3 a
model endpoint failed (what was done is stored; the same command resumes); 4 ``compare
--fail-on`` found a regression; 130 interrupted.
Errors are one line on stderr: what, where, what to do.

Core commands are listed in :data:`CORE_COMMANDS`; every method brings its own through the
registry (:func:`beyondpass.registry.commands`), so adding a method never edits this file.
"""

from __future__ import annotations

import importlib
import sys

import click

from beyondpass.cli.base import cli
from beyondpass.errors import BeyondpassError

#: ``module:attribute`` of every core command, in ``--help`` order.
CORE_COMMANDS = (
    "beyondpass.cli.commands:benchmarks",
    "beyondpass.cli.commands:evaluate",
    "beyondpass.cli.commands:run",
    "beyondpass.cli.commands:report",
    "beyondpass.cli.commands:demo",
    "beyondpass.cli.compare:compare",
    "beyondpass.cli.rescore:rescore",
    "beyondpass.cli.studies:studies",
)


def _load(ref: str) -> click.Command:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def build_cli() -> click.Group:
    """The root group with every core command and every registered method's commands."""
    from beyondpass import registry

    for ref in CORE_COMMANDS:
        command = _load(ref)
        cli.add_command(command, command.name)
    for command in registry.commands():
        cli.add_command(command, command.name)
    return cli


def _interrupted() -> None:
    click.echo("interrupted — stored work is kept; run the same command again to resume", err=True)
    sys.exit(130)


def main() -> None:
    """Console entry point: one-line errors and meaningful exit codes."""
    try:
        group = build_cli()
        group.main(standalone_mode=False)
    except BeyondpassError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _interrupted()
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
