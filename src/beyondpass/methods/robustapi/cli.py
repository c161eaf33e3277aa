"""``beyondpass robustapi``: check Java answers for API misuse, list the rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from beyondpass.analysis.formatting import percent
from beyondpass.cli.base import cli, default_out, emit_json
from beyondpass.cli.options import data_dir_option, json_option
from beyondpass.cli.progress import RichProgress


@cli.group()
def robustapi() -> None:
    """RobustAPI: decide whether Java answers misuse the APIs they use."""


@robustapi.command("check")
@click.option(
    "--answers",
    required=True,
    type=click.Path(dir_okay=False),
    help='JSONL, one answer per line: {"id": <question id>, "response": "<raw answer>"}.',
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Output directory (default: ./beyondpass-robustapi/<answers>-<semantics>).",
)
@click.option(
    "--semantics",
    type=click.Choice(["correct", "original"]),
    default="correct",
    show_default=True,
    help="correct: a usage that satisfies the rules passes; original: the published "
    "checker's behaviour (every call a rule covers is a violation).",
)
@click.option("--rules", type=click.Path(dir_okay=False), help="Rule file (default: pat_list.txt).")
@data_dir_option
@json_option("Print the summary metrics as one JSON object.")
def check(
    answers: str,
    out: str | None,
    semantics: str,
    rules: str | None,
    data_dir: str | None,
    as_json: bool,
) -> None:
    """Write one verdict per answer to OUT/verdicts.jsonl and print the misuse metrics."""
    from beyondpass.methods.robustapi.extraction.java_syntax import require_java_extra

    require_java_extra()
    from beyondpass.methods.robustapi.check import check_answers_file

    out_dir = (
        Path(out)
        if out
        else default_out("beyondpass-robustapi", f"{Path(answers).stem}-{semantics}")
    )
    with RichProgress(enabled=not as_json) as progress:
        summary = check_answers_file(
            answers,
            out_dir,
            semantics=semantics,  # type: ignore[arg-type]
            rules=rules,
            data_dir=data_dir,
            progress=progress,
        )
    if as_json:
        emit_json(summary)
        return
    _print_summary(summary)


def _print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table

    from beyondpass.cli.base import console as _console
    from beyondpass.methods.robustapi.benchmark import DOMAIN_ORDER

    table = Table(
        "group", "answers", "misuse", "pass", "unparsable", "no code", "misuse rate", "executable"
    )
    domains = s["by_domain"]
    order = [d for d in DOMAIN_ORDER if d in domains] + sorted(set(domains) - set(DOMAIN_ORDER))
    for name, row in [*((d, domains[d]) for d in order), ("all", s)]:
        table.add_row(
            name,
            str(row["n"]),
            str(row["n_misuse"]),
            str(row["n_pass"]),
            str(row["n_unparsable"]),
            str(row["n_no_code"]),
            percent(row["misuse_rate"], 1, missing="-", unit="%"),
            percent(row["executable_rate"], 1, missing="-", unit="%"),
        )
    _console().print(table)
    rate = {
        key: percent(s[key], 1, missing="-", unit="%")
        for key in ("misuse_rate", "executable_rate", "overall_misuse_rate")
    }
    click.echo(
        f"semantics {s['semantics']}: misuse rate {rate['misuse_rate']}, executable "
        f"{rate['executable_rate']}, overall misuse {rate['overall_misuse_rate']}"
    )
    click.echo(f"verdicts: {s['verdicts_path']}")


@robustapi.command("rules")
@click.option("--rules", type=click.Path(dir_okay=False), help="Rule file (default: pat_list.txt).")
@data_dir_option
@json_option("Machine-readable output.")
def rules_command(rules: str | None, data_dir: str | None, as_json: bool) -> None:
    """Parse a rule file (errors name the line) and show how each rule is read."""
    from beyondpass.methods.robustapi.extraction.java_syntax import require_java_extra

    require_java_extra()
    from beyondpass.methods.robustapi.checker.checker import load_ruleset

    ruleset = load_ruleset(rules, data_dir=data_dir)
    replaced = {new.id: old for old, new in ruleset.replaced}
    rows = []
    for rule in ruleset.rules:
        entry = {
            "rule": rule.id,
            "api": rule.api,
            "pattern": rule.sequence,
            "applies": rule.focal is not None,
        }
        if rule.id in replaced:
            entry["replaces"] = replaced[rule.id].text
        rows.append(entry)
    if as_json:
        emit_json({"source": ruleset.source, "sha256": ruleset.sha256, "rules": rows})
        return
    for r in rows:
        flag = "" if r["applies"] else "  (never applies: its sequence does not call its method)"
        extra = f"  [erratum; file says: {r['replaces']}]" if "replaces" in r else ""
        click.echo(f"{r['rule']:<24} {r['api']:<28} {r['pattern']}{flag}{extra}")
