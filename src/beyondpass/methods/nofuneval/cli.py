"""``beyondpass nofuneval score``: score a file of generations for one NoFunEval subset."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from beyondpass.cli.base import cli, default_out, emit_json
from beyondpass.cli.commands import _executor_choice, executor_options

#: subsets scored with the static oracle (docs/nofuneval-oracles.md)
ORACLE_SUBSETS = ("security", "maintainability")
SUBSET_NAMES = (
    "latency",
    "resource_util",
    "runtime_efficiency",
    "security",
    "maintainability",
    "humanevalclassify",
)


@cli.group()
def nofuneval() -> None:
    """NoFunEval: score non-functional edits (DiffBLEU) and classification answers."""


@nofuneval.command("score")
@click.option("--subset", required=True, help=f"One of: {', '.join(SUBSET_NAMES)}.")
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
@click.option("--data-dir", type=click.Path(), help="Data directory (default: $BEYONDPASS_DATA).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
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
    """Write per-row scores to OUT/scores.jsonl and print the summary."""
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval import score as scoring
    from beyondpass.methods.nofuneval.benchmark import load_subset

    if subset not in SUBSET_NAMES:
        raise ConfigError(f"unknown subset {subset!r} — choose {', '.join(SUBSET_NAMES)}")
    path = Path(generations)
    if not path.is_file():
        raise ConfigError(f"--generations {generations}: no such file")
    bench = load_subset(subset, data_dir or os.environ.get("BEYONDPASS_DATA"))
    classify = subset == "humanevalclassify"
    gens = scoring.read_generations(path, bench, classify)
    if classify:
        from beyondpass.methods.nofuneval.classify import score_generations

        rows, summary = score_generations(gens, bench, compat == "nofuneval")
    else:
        kind = scoring.resolve_prompt_kind(prompt_kind, path, gens, bench, compat is not None)
        edits = scoring.read_edits(gens, bench, compat == "nofuneval", kind)
        rows = scoring.score_edits(gens, edits, bench)
        summary = scoring.summarise_edits(rows, bench)
        summary.update(reading="compat" if compat else "robust", prompt=kind)
        if subset in ORACLE_SUBSETS:
            summary.update(scoring.add_oracle(rows, gens, edits, bench, compat is not None))
        if subset == "runtime_efficiency" and run_programs:
            from beyondpass.execution import ExecutorChoice

            choice = (
                _executor_choice(executor, isolation, ray_address, process_budget=process_budget)
                or ExecutorChoice()
            )
            runner = choice.build(workers=workers)
            try:
                summary.update(
                    scoring.add_correctness(
                        rows, gens, edits, bench, compat is not None, runner, runs
                    )
                )
            finally:
                runner.close()
    out_dir = Path(out) if out else default_out("beyondpass-nofuneval", subset)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "scores.jsonl"
    tmp = target.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    tmp.replace(target)
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    if as_json:
        emit_json(summary)
    else:
        _print(summary, target)


def _print(summary: dict[str, Any], target: Path) -> None:
    for key, value in summary.items():
        if isinstance(value, float):
            value = f"{value:.4f}"
        click.echo(f"{key}: {value}")
    click.echo(f"scores: {target}")
