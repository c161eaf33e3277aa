"""``beyondpass compare RUN_OLD RUN_NEW``: regression testing of a model update, CI-ready.

Prints the Δ table (old vs new on the same tasks and prompts, with paired tests) of every
method's headline metrics, names the trade-offs and the inconsistencies across benchmarks,
and exits with :data:`EXIT_GATE_FAILED` when a ``--fail-on`` rule is breached. The work is
:func:`beyondpass.api.comparisons.compare` (``beyondpass.compare`` in Python), whose result
``--json`` prints as it is (:meth:`~beyondpass.api.comparisons.ComparisonResult.to_json`);
``--out DIR`` also writes it as Markdown, LaTeX, JSON and HTML. No method is named here.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from beyondpass.api.comparisons import EXIT_GATE_FAILED
from beyondpass.cli.options import json_option

__all__ = ["EXIT_GATE_FAILED", "compare", "print_comparison"]


@click.command()
@click.argument("run_old", metavar="RUN_OLD")
@click.argument("run_new", metavar="RUN_NEW")
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    metavar="SPEC",
    help="Exit 4 when a metric regresses beyond a limit, e.g. 'pass@1:-2%', "
    "'misuse_rate:+2pp', 'diffbleu:-5%', 'robust_pass@1[method=obfuseval]:-2pp', "
    "'smell_density[benchmark=mbpp]:+10%' (repeatable; every method's headline metrics "
    "and scopes: docs/profile.md).",
)
@click.option(
    "--pair",
    "pairs",
    multiple=True,
    metavar="OLD=NEW",
    help="Which model of RUN_OLD to compare with which of RUN_NEW (default: the only "
    "model of each, else the same labels).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level (Holm-adjusted within each metric).",
)
@click.option(
    "--require-significance/--no-require-significance",
    default=True,
    show_default=True,
    help="Whether a --fail-on breach must also be significant.",
)
@click.option(
    "--across-readings",
    is_flag=True,
    help="Compare runs a method read differently (e.g. RobustAPI's checker semantics "
    "'original' in one, 'correct' in the other): each is read in its own, and the table "
    "names both. Without it such runs are refused.",
)
@click.option("--seed", type=int, default=None, help="Bootstrap seed (default: RUN_OLD's).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Also write compare.md, compare.tex, compare.json and compare.html here.",
)
@json_option()
def compare(
    run_old: str,
    run_new: str,
    fail_on: tuple[str, ...],
    pairs: tuple[str, ...],
    alpha: float,
    require_significance: bool,
    across_readings: bool,
    seed: int | None,
    out: str | None,
    as_json: bool,
) -> None:
    """Compare two runs of the same design (a model update): Δ per metric, trade-offs,
    inconsistencies across benchmarks, and an exit code for CI."""
    from beyondpass.api.comparisons import compare as compare_runs

    result = compare_runs(
        run_old,
        run_new,
        fail_on=fail_on,
        pairs=pairs,
        alpha=alpha,
        require_significance=require_significance,
        across_readings=across_readings,
        seed=seed,
        out=out,
    )
    if as_json:
        click.echo(result.to_json())
    else:
        print_comparison(result)
    if not result.passed:
        sys.exit(EXIT_GATE_FAILED)


def print_comparison(result: Any) -> None:
    """What ``compare`` prints of a :class:`~beyondpass.api.comparisons.ComparisonResult`:
    the tables, findings, notes and the gate (``beyondpass demo --gate`` prints the same)."""
    assert result.report is not None
    _print(result.report, result.as_dict())


def _print(report: Any, payload: dict[str, Any]) -> None:
    from rich.table import Table

    from beyondpass.analysis.formatting import bench_label
    from beyondpass.analysis.metrics import metric_def
    from beyondpass.cli.base import console as _console

    console = _console()
    for vc in report.comparisons:
        title = f"{vc.method} · {vc.pair.label}" + (f" · {vc.reading}" if vc.reading else "")
        table = Table(title=title, title_justify="left")
        table.add_column("benchmark")
        table.add_column("group")
        for m in vc.metrics:
            table.add_column(f"{metric_def(m).label}\nold → new (Δ%)", justify="right")
        for bench in vc.benchmarks:
            for g in vc.groups:
                found = [vc.comparisons.get((bench, g.key, m)) for m in vc.metrics]
                if all(c is None for c in found):  # a group another benchmark has
                    continue
                pairs = zip(found, vc.metrics, strict=True)
                cells = [_cell_text(c, metric_def(m).decimals) for c, m in pairs]
                table.add_row(bench_label(bench), g.display_label, *cells)
        console.print(table)
    click.echo(
        "* significant (Holm-adjusted paired test, alpha "
        f"{payload['alpha']:g}); old/new are AVG across prompts"
    )
    for title, items in (
        ("Trade-offs", report.trade_offs),
        ("Inconsistent across benchmarks", report.inconsistencies),
    ):
        click.echo(f"{title}: {'none' if not items else ''}")
        for f in items:
            click.echo(f"  - {f.text}")
    click.echo(f"Significant changes: {len(report.changes)}")
    for note in payload["notes"]:
        click.echo(f"note: {note}")
    if report.gates:
        if report.gate_failed:
            for f in report.violations:
                click.echo(f"  {f.text}")
            click.echo(f"gate: FAILED ({len(report.violations)} breach(es))")
        else:
            click.echo(
                "gate: passed ("
                + "; ".join(g.describe() for g in report.gates)
                + ": no significant breach)"
            )
    for name, path in payload.get("files", {}).items():
        click.echo(f"{name}: {path}")


def _cell_text(c: Any, decimals: int) -> str:
    if c is None or c.base.avg is None or c.other.avg is None:
        return "—"
    pct = f"{c.delta_pct:+.2f}" if c.delta_pct is not None and math.isfinite(c.delta_pct) else "—"
    mark = "*" if c.significant else ""
    return f"{c.base.avg:.{decimals}f} → {c.other.avg:.{decimals}f} ({pct}{mark})"
