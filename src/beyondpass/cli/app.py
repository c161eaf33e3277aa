"""The ``beyondpass`` command line.

Exit codes: 0 success; 1 the work finished incomplete; 2 bad input or configuration; 3 a
model endpoint failed (what was done is stored; the same command resumes); 4 ``compare
--fail-on`` found a regression; 130 interrupted.
Errors are one line on stderr: what, where, what to do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from beyondpass import __version__
from beyondpass.errors import BeyondpassError

EXIT_INCOMPLETE = 1
EXIT_MODEL_FAILED = 3


def emit_json(payload: Any) -> None:
    click.echo(json.dumps(payload, indent=2, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="beyondpass")
def cli() -> None:
    """Measure how well LLMs write code beyond passing tests."""


def main() -> None:
    """Console entry point: one-line errors and meaningful exit codes."""
    from beyondpass.cli import (  # noqa: F401 - importing registers the subcommands
        commands,
        compare,
        prompts,
        studies,
    )
    from beyondpass.methods.robustapi import cli as _robustapi_cli  # noqa: F401

    try:
        cli.main(standalone_mode=False)
    except BeyondpassError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo(
            "interrupted — stored work is kept; run the same command again to resume", err=True
        )
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo(
            "interrupted — stored work is kept; run the same command again to resume", err=True
        )
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)


def default_out(*parts: str) -> Path:
    return Path.cwd().joinpath(*parts)
