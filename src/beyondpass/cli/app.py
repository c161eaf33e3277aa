"""The ``beyondpass`` command line: the one place where all commands are assembled.

Exit codes: 0 success; 1 the work finished incomplete; 2 bad input or configuration; 3 a
model endpoint failed (what was done is stored; the same command resumes); 4 ``compare
--fail-on`` found a regression; 130 interrupted.
Errors are one line on stderr: what, where, what to do.

Every command comes from the registry (``registry.specs("commands")``): the core ones
(:mod:`beyondpass.core`) first, then each method's, so adding a method never edits this file.
"""

from __future__ import annotations

import sys

import click

from beyondpass.cli.base import cli
from beyondpass.errors import BeyondpassError


def build_cli() -> click.Group:
    """The root group with every registered command, the core's and every method's."""
    from beyondpass import registry

    for ref, method in registry.specs("commands"):
        command = registry.resolve(ref, method, needs_extra=False)
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
