"""``beyondpass report``: render a run's Markdown and HTML report."""

from __future__ import annotations

from pathlib import Path

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import json_option


@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), help="Where to write (default: RUN).")
@json_option("Print the report paths as JSON.")
def report(run_dir: str, out: str | None, as_json: bool) -> None:
    """Render a run's Markdown and self-contained HTML report."""
    from beyondpass.errors import DataError
    from beyondpass.report import render_report

    if not Path(run_dir).is_dir():
        raise DataError(f"run directory {run_dir} does not exist")
    paths = render_report(Path(run_dir), Path(out) if out else None)
    # the paper tables as LaTeX and JSON (a section may write only one of them: NoFunEval's
    # tables are LaTeX alone, so no "None" is printed for the JSON)
    written = (("latex", paths.latex), ("tables_json", paths.tables_json))
    extra = {name: str(path) for name, path in written if path is not None}
    if as_json:
        emit_json({"markdown": str(paths.markdown), "html": str(paths.html), **extra})
    else:
        click.echo(f"report: {paths.html}")
        click.echo(f"        {paths.markdown}")
        for path in extra.values():
            click.echo(f"        {path}")
