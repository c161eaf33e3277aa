"""The root ``beyondpass`` command group and what every command module shares.

Command modules (core and methods') import this module, never :mod:`beyondpass.cli.app`,
so the application that assembles them (``app``) sits on top and nothing imports it back.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from beyondpass import __version__
from beyondpass.errors import EXIT_INCOMPLETE, EXIT_MODEL_FAILED

__all__ = ["EXIT_INCOMPLETE", "EXIT_MODEL_FAILED", "cli", "console", "default_out", "emit_json"]


def emit_json(payload: Any) -> None:
    click.echo(json.dumps(payload, indent=2, ensure_ascii=False, default=str))


def default_out(*parts: str) -> Path:
    return Path.cwd().joinpath(*parts)


def console() -> Any:
    """stdout console; wide when piped so tables are not squeezed into 80 columns."""
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 200)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="beyondpass")
def cli() -> None:
    """Measure how well LLMs write code beyond passing tests."""
