"""``beyondpass demo``: a model's whole profile, offline, in seconds.

The demo study (``beyondpass/demo/data/study.toml``) has the profile study's shape, one arm
per method, on small benchmarks written for the demo; its two pretend models replay answers
written by hand. It runs as ``beyondpass run`` runs any study (:func:`beyondpass.api.studies.run`:
the same evaluators, store and report); this module only leaves out the parts this machine
cannot run (:mod:`beyondpass.demo.parts`), prints the profile and the commands to run next,
and with ``--gate`` compares the careful model (old) with the sloppy one (new) through
:func:`beyondpass.compare`, as a CI job compares two versions of a model.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import console, emit_json
from beyondpass.cli.options import json_option, process_budget_option
from beyondpass.cli.progress import RichProgress, stderr

OLD, NEW = "demo-careful", "demo-sloppy"
#: the gate ``--gate`` applies: one rule per method's headline metric (and core pass@1)
GATE_RULES = (
    "pass@1:-5pp",
    "unreadability_density:+10%",
    "misuse_rate:+10pp",
    "executable_rate:-30pp",
    "edge_pass_ratio:-10pp",
    "robust_pass@1[method=obfuseval]:-10pp",
    "diffbleu:-10%",
)
#: what to run next with a real model: its profile's cost, then the gate between versions
NEXT = (
    "beyondpass run studies/profile.toml --model openai:gpt-4o-mini --dry-run",
    "beyondpass compare runs/old runs/new --fail-on 'misuse_rate:+2pp' --fail-on 'diffbleu:-5%'",
)


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="beyondpass-demo",
    show_default=True,
    help="Directory for the demo run (OUT/run) and its report.",
)
@click.option(
    "--gate",
    is_flag=True,
    help="Then gate the sloppy model against the careful one with `compare --fail-on` rules "
    "(exit 4 when a rule fails, as in CI).",
)
@json_option("Print one JSON summary on stdout.")
@process_budget_option
def demo(out: str, gate: bool, as_json: bool, process_budget: str | None) -> None:
    """Profile two pretend models on every method, offline (answers written for the demo,
    replayed; no API key), and report it."""
    from beyondpass.api import studies

    config, left_out = _demo_study()
    run_dir = Path(out) / "run"
    done = _stored(run_dir, config)
    if not as_json:
        stderr.print(
            "beyondpass demo: two pretend models answer a small slice of every method; their "
            "answers were written by hand for the demo (not model output) and are replayed"
        )
    for part in left_out:
        click.echo(part.line(), err=True)
    with RichProgress(enabled=not as_json) as progress:
        result = studies.run(
            config,
            out=run_dir,
            cache=False,
            report=not done,  # a finished demo keeps its report
            process_budget=process_budget,
            progress=progress,
        )
    for failure in result.failures:
        click.echo(f"error: {failure}", err=True)
    comparison = _gate(run_dir) if gate and result.exit_code == 0 else None
    if as_json:
        payload: dict[str, Any] = {
            **result.as_dict(),
            "left_out": [p.as_dict() for p in left_out],
            "next": list(NEXT),
        }
        if done:  # the report of the finished run, kept
            payload.update(report_markdown=str(run_dir / "report.md"),
                           report_html=str(run_dir / "report.html"))  # fmt: skip
        if comparison is not None:
            payload["gate"] = comparison.as_dict()["gate"]
        emit_json(payload)
    else:
        _print_profile(run_dir)
        scored = f"{result.samples_scored}/{result.samples_expected} samples scored"
        click.echo(f"run: {result.run_dir}  ({scored})")
        click.echo(f"report: {run_dir / 'report.html'}")
        if comparison is not None:
            _print_gate(comparison, run_dir)
        click.echo("next, with a real model (docs/profile.md):")
        for command in NEXT:
            click.echo(f"  {command}")
    if result.exit_code:
        sys.exit(result.exit_code)
    if comparison is not None:
        sys.exit(comparison.exit_code)


def _demo_study() -> tuple[Any, list[Any]]:
    """The demo study without the parts this machine cannot run, and those parts."""
    from beyondpass.demo import study_file
    from beyondpass.demo.parts import runnable_study
    from beyondpass.study.config import study_from_dict

    path = study_file()
    raw, left_out = runnable_study(path)
    return study_from_dict(raw, path), left_out


def _stored(run_dir: Path, config: Any) -> bool:
    """Whether ``run_dir`` holds this demo finished and reported (a second ``demo`` or
    ``demo --gate`` then scores and renders nothing again). A demo run made with other
    parts (an extra installed since) is made again; anything else there is left alone (the
    run then refuses, naming it)."""
    from beyondpass.store.run_store import DB_NAME, RunStore

    if not (run_dir / DB_NAME).is_file():
        return False
    with RunStore(run_dir, create=False) as store:
        stored = store.get_meta("study") or {}
        status = store.get_meta("status")
    if stored.get("name") != config.name:
        return False
    if stored.get("config_hash") != config.config_hash():
        stderr.print(f"demo: the parts that can run here changed; {run_dir} is made again")
        shutil.rmtree(run_dir)
        return False
    return status == "complete" and (run_dir / "report.html").is_file()


def _gate(run_dir: Path) -> Any:
    """``compare RUN RUN --pair demo-careful=demo-sloppy`` with :data:`GATE_RULES` (the rules
    whose metric the run holds), on the size of each change alone: a slice of 2 to 4 tasks
    cannot make a paired test significant."""
    from beyondpass.analysis.regression import parse_gate
    from beyondpass.api.comparisons import compare
    from beyondpass.api.runs import open_run

    present = {h.metric for h in open_run(run_dir).headlines()}
    rules = [r for r in GATE_RULES if parse_gate(r).metric in present]
    return compare(
        run_dir, run_dir, fail_on=rules, pairs=[f"{OLD}={NEW}"], require_significance=False
    )


def _print_gate(comparison: Any, run_dir: Path) -> None:
    from beyondpass.cli.compare import print_comparison

    print_comparison(comparison)
    rules = " ".join(f"--fail-on '{r}'" for r in comparison.gate["rules"])
    click.echo(
        f"the gate above is: beyondpass compare {run_dir} {run_dir} --pair {OLD}={NEW} "
        f"--no-require-significance {rules}"
    )
    breached = {v["spec"] for v in comparison.violations}
    failed = [r for r in comparison.gate["rules"] if r in breached]
    held = [r for r in comparison.gate["rules"] if r not in breached]
    if held:
        click.echo(f"rules that held: {', '.join(held)}")
    if failed:
        click.echo(f"gate failed ({NEW} against {OLD}; exit 4): {', '.join(failed)}")


def _print_profile(run_dir: Path) -> None:
    """The report's profile table, in the terminal: every method's headline metrics."""
    from rich.table import Table

    from beyondpass.analysis.formatting import bench_label
    from beyondpass.api.runs import open_run

    heads = open_run(run_dir).headlines()
    models = [m for m in (OLD, NEW) if any(h.model == m for h in heads)]
    by_key = {(h.method, h.metric, h.benchmark, h.group, h.model): h for h in heads}
    table = Table("method", "metric", "benchmark · condition", *models, title="Profile")
    seen = []
    for h in heads:
        key = (h.method, h.metric, h.benchmark, h.group)
        if key in seen:
            continue
        seen.append(key)
        cells = [_value(by_key.get((*key, m))) for m in models]
        unit = f" ({h.unit})" if h.unit else ""
        table.add_row(h.method, h.label + unit, f"{bench_label(h.benchmark)} · {h.group}", *cells)
    console().print(table)


def _value(head: Any) -> str:
    from beyondpass.analysis.metrics import metric_def

    if head is None or head.value is None:
        return "—"
    d = metric_def(head.metric).decimals
    ci = f" [{head.ci95[0]:.{d}f}, {head.ci95[1]:.{d}f}]" if head.ci95 else ""
    return f"{head.value:.{d}f}{ci}"
