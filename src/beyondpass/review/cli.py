"""``beyondpass review``: create a blind review study, serve it, read its results, revoke links."""

from __future__ import annotations

import json
from pathlib import Path

import click

from beyondpass.errors import ConfigError


def _needs_extra() -> None:
    import importlib.util

    for module in (
        "fastapi",
        "uvicorn",
        "krippendorff",
        "choix",
        "statsmodels",
        "scipy",
        "multipart",
    ):
        if importlib.util.find_spec(module) is None:
            raise ConfigError(
                f"review needs its optional dependencies (module {module} is missing) — "
                "pip install 'beyondpass[review]'"
            )


@click.group("review")
def review() -> None:
    """Blind side-by-side human review of two models' solutions (or several pairs)."""


@review.command("create")
@click.argument("run", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--pair",
    "pairs",
    nargs=2,
    multiple=True,
    required=True,
    metavar="MODEL_A MODEL_B",
    help="two models to compare (repeat for several pairs, e.g. every pair of three models)",
)
@click.option("--tasks", multiple=True, help="task ids to review (repeatable; default all)")
@click.option("--reviewers", default=3, show_default=True, help="number of reviewers")
@click.option(
    "--overlap",
    type=int,
    default=None,
    help="reviewers per item  [default: 2, or every reviewer when there are fewer]",
)
@click.option("--repeat", default=0, show_default=True, help="items each reviewer sees twice")
@click.option("--min-pass-rate", default=0.75, show_default=True, help="for the restricted table")
@click.option("--seed", default=0, show_default=True)
@click.option("--redact", is_flag=True, help="redact self-identifying text instead of excluding")
@click.option("--base-url", default="http://127.0.0.1:8765", show_default=True)
def create(
    run: Path,
    pairs: tuple[tuple[str, str], ...],
    tasks: tuple[str, ...],
    reviewers: int,
    overlap: int | None,
    repeat: int,
    min_pass_rate: float,
    seed: int,
    redact: bool,
    base_url: str,
) -> None:
    """Create the study in RUN and print one personal link per reviewer."""
    from .study import create_study

    made = create_study(
        run,
        pairs,
        tasks=tasks,
        reviewers=reviewers,
        overlap=overlap,
        repeat=repeat,
        min_pass_rate=min_pass_rate,
        seed=seed,
        redact=redact,
    )
    for entry in made.flagged:
        sides = "; ".join(f"{f['side']}: {', '.join(f['patterns'])}" for f in entry["flags"])
        action = "redacted" if redact else "excluded (use --redact to keep it)"
        click.echo(f"flagged {entry['item']} — names a model ({sides}); {action}")
    click.echo(f"{made.items} items, {made.assignments} assignments; personal links:")
    for name, path in made.links.items():
        click.echo(f"  {name}: {base_url.rstrip('/')}{path}")


@review.command("serve")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True)
def serve(run: Path, host: str, port: int) -> None:
    """Serve the study in RUN to its reviewers."""
    _needs_extra()
    from .server import serve as run_server

    click.echo(f"serving the review of {run} on http://{host}:{port}/ (Ctrl-C to stop)")
    run_server(run, host, port)


@review.command("results")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown"]), default="markdown")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to a file")
def results_cmd(run: Path, fmt: str, out: Path | None) -> None:
    """Table 4, agreement and tests of the study in RUN (also `export`)."""
    _needs_extra()
    from .results import results, table4_csv
    from .section import markdown

    res = results(run)
    if fmt == "json":
        text = json.dumps(res, indent=2)
    elif fmt == "csv":
        text = table4_csv(res["pairs"])
    else:
        text = markdown(res)
    if out:
        out.write_text(text)
        click.echo(f"wrote {out}")
    else:
        click.echo(text, nl=not text.endswith("\n"))


review.add_command(results_cmd, "export")


@review.command("revoke")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("reviewer")
@click.option("--reissue", is_flag=True, help="give the reviewer a new link (ratings kept)")
@click.option("--base-url", default="http://127.0.0.1:8765", show_default=True)
def revoke_cmd(run: Path, reviewer: str, reissue: bool, base_url: str) -> None:
    """Revoke REVIEWER's link (e.g. reviewer-2)."""
    from .study import revoke

    path = revoke(run, reviewer, reissue=reissue)
    click.echo(f"revoked the link of {reviewer}")
    if path:
        click.echo(f"  new link: {base_url.rstrip('/')}{path}")
