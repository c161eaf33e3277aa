"""``beyondpass nofuneval score``: score a file of generations for one NoFunEval subset."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import cli, default_out, emit_json
from beyondpass.cli.options import (
    data_dir_option,
    executor_choice,
    executor_options,
    json_option,
)
from beyondpass.methods.nofuneval.benchmark import SUBSETS


@cli.group()
def nofuneval() -> None:
    """NoFunEval: score non-functional edits (DiffBLEU) and classification answers."""


@nofuneval.command("score")
@click.option("--subset", required=True, help=f"One of: {', '.join(SUBSETS)}.")
@click.option(
    "--generations",
    required=True,
    type=click.Path(dir_okay=False),
    help="JSONL: NoFunEval's generated_outputs.jsonl, or "
    '{"row": i, "generation": "..."} lines (classification: also "ordering").',
)
@click.option(
    "--compat",
    type=click.Choice(["nofuneval"]),
    default=None,
    help="Read answers (edits and classification choices) as NoFunEval's harness does "
    "(docs/nofuneval.md).",
)
@click.option(
    "--prompt",
    "prompt_kind",
    default=None,
    metavar="PROMPT",
    help="Prompt the answers replied to: base_prompt, one_shot, chain_of_thought or "
    "coding_concepts (default: the folder name in the path, else the prompt the answers "
    "echo; the compat reading stops when neither says).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Output directory (default: ./beyondpass-nofuneval/<subset>).",
)
@data_dir_option
@json_option("Print the summary as one JSON object.")
@click.option(
    "--run/--no-run",
    "run_programs",
    default=True,
    help="runtime_efficiency: run each edit on its CodeNet cases in the sandbox (default).",
)
@click.option(
    "--runs",
    type=click.IntRange(0, 1000),
    default=25,
    show_default=True,
    help="runtime_efficiency: timed runs per CodeNet case for the speed-up (0: correctness only).",
)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
@executor_options
def score(
    subset: str,
    generations: str,
    compat: str | None,
    prompt_kind: str | None,
    out: str | None,
    data_dir: str | None,
    as_json: bool,
    run_programs: bool,
    runs: int,
    workers: int,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
) -> None:
    """Evaluate the generations into a run in OUT: OUT/scores.jsonl and OUT/summary.json
    are exported from it (resumable; `beyondpass report OUT`, `beyondpass rescore OUT`)."""
    from beyondpass.errors import ConfigError
    from beyondpass.execution import ExecutionLimits
    from beyondpass.methods.nofuneval.benchmark import benchmark_name
    from beyondpass.methods.nofuneval.files.answer_file import GenerationsFile
    from beyondpass.study.evaluate_samples import evaluate_samples

    kind = GenerationsFile.told(subset, compat, prompt_kind, run_programs, runs)
    if not Path(generations).is_file():
        raise ConfigError(f"--generations {generations}: no such file")
    out_dir = Path(out) if out else default_out("beyondpass-nofuneval", subset)
    outcome = evaluate_samples(
        benchmark_name(subset),
        generations,
        out_dir,
        data_dir=data_dir or os.environ.get("BEYONDPASS_DATA"),
        limits=ExecutionLimits(),
        workers=workers,
        executor=executor_choice(executor, isolation, ray_address, process_budget=process_budget),
        evaluators=kind.add_ons,
        answer_file=kind,
    )
    summary = outcome.summary["nofuneval"]
    if as_json:
        emit_json(summary)
    else:
        _print(summary, Path(outcome.summary["scores_path"]))


def _print(summary: dict[str, Any], target: Path) -> None:
    for key, value in summary.items():
        if isinstance(value, float):
            value = f"{value:.4f}"
        click.echo(f"{key}: {value}")
    click.echo(f"scores: {target}")


@nofuneval.command("table1")
@click.option(
    "--published",
    type=click.Path(file_okay=False),
    help="A checkout of microsoft/NoFunEval (default: $BEYONDPASS_NOFUNEVAL_REPO).",
)
@click.option(
    "--reference",
    type=click.Path(file_okay=False),
    help="Values the authors' code gave per file (<dir>/<subset>/<model>/<prompt>.jsonl): "
    "compare each row's compat DiffBLEU with theirs.",
)
@click.option("--subset", "subsets", multiple=True, help="Only these subsets (repeatable).")
@click.option("--model", "models", multiple=True, help="Only these model folders (repeatable).")
@click.option(
    "--run/--no-run",
    "run_programs",
    default=False,
    help="runtime_efficiency: run the edits on their CodeNet cases (Correct@1).",
)
@click.option(
    "--runs",
    type=click.IntRange(0, 1000),
    default=0,
    show_default=True,
    help="With --run: timed runs per case for Speedup@1/Improved@1 (0: correctness only).",
)
@click.option(
    "--reading",
    type=click.Choice(["both", "compat", "default"]),
    default="both",
    show_default=True,
    help="With --run: which reading's edits are run and timed (compat: NoFunEval's).",
)
@click.option(
    "--oracle/--no-oracle", default=False, help="Security/maintainability: DiffBLEU x oracle."
)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), help="Output directory.")
@data_dir_option
@executor_options
def table1(
    published: str | None,
    reference: str | None,
    subsets: tuple[str, ...],
    models: tuple[str, ...],
    run_programs: bool,
    runs: int,
    reading: str,
    oracle: bool,
    workers: int,
    out: str | None,
    data_dir: str | None,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
) -> None:
    """Evaluate every published 1-sample file in both readings, each into a run of its
    own under OUT/runs; write OUT/table1.md and OUT/summary.json from the runs (resumable:
    the same command again reads complete runs and finishes the others). With --run,
    runtime edits run where --executor places them, at --isolation."""
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval.table1.render import render
    from beyondpass.methods.nofuneval.table1.score import READINGS, TableSettings, run_table
    from beyondpass.study.answer_files import write_json_atomic

    files, unreadable = _published_files(published, subsets, models)
    ref = Path(reference) if reference else None
    if ref is not None and not ref.is_dir():
        raise ConfigError(f"--reference {reference}: no such folder")
    out_dir = Path(out) if out else default_out("beyondpass-nofuneval", "table1")
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = TableSettings(
        out_dir,
        data_dir=data_dir or os.environ.get("BEYONDPASS_DATA"),
        executor=executor_choice(executor, isolation, ray_address, process_budget=process_budget),
        workers=workers,
        run_readings=(READINGS if reading == "both" else (reading,)) if run_programs else (),
        runs=runs,
        oracle=oracle,
    )

    def progress(found: Any) -> None:
        agree = found.agreement
        note = f", {agree['equal']}/{agree['rows']} equal to the authors'" if agree else ""
        rows = len(found.lines["compat"])
        click.echo(f"{found.file.key}: {rows} rows{note}", err=True)

    results = run_table(files, settings, reference=ref, progress=progress)
    text = render(results)
    if unreadable:
        text += "\nNot readable here (Git LFS pointers or missing): " + ", ".join(unreadable) + "\n"
    (out_dir / "table1.md").write_text(text, "utf-8")
    summary = {
        r.file.key: {
            "rows": len(r.lines["compat"]),
            "runs": {reading: str(folder) for reading, folder in r.runs.items()},
            "diffbleu_compat": r.value("compat"),
            "diffbleu_default": r.value("default"),
            "agreement": r.agreement,
        }
        for r in results
    }
    write_json_atomic(out_dir / "summary.json", summary)
    if ref is not None:
        agreement = {r.file.key: r.agreement for r in results if r.agreement is not None}
        write_json_atomic(out_dir / "agreement.json", agreement)
    click.echo(f"table: {out_dir / 'table1.md'}")


def _published_files(
    published: str | None, subsets: tuple[str, ...], models: tuple[str, ...]
) -> tuple[list[Any], list[str]]:
    """The published 1-sample files ``table1`` scores (those asked for), and the keys of
    those that cannot be read here (Git LFS pointers or missing)."""
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval.table1 import published as pub

    root = pub.repo_root(published)
    files = [
        f
        for f in pub.published_files(root, samples=1)
        if (not subsets or f.subset in subsets) and (not models or f.model in models)
    ]
    if not files:
        raise ConfigError(f"{root}: no 1-sample generations files match")
    return [f for f in files if f.readable()], [f.key for f in files if not f.readable()]
