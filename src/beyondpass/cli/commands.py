"""Subcommands: benchmarks, evaluate, run, report, demo."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

import click

from beyondpass.analysis.formatting import percent
from beyondpass.cli.base import (
    EXIT_INCOMPLETE,
    EXIT_MODEL_FAILED,
    console,
    default_out,
    emit_json,
)
from beyondpass.cli.progress import RichProgress, stderr

DATA_DIR_HELP = "Benchmark data directory (default: $BEYONDPASS_DATA, then cache, then download)."


def executor_options(fn: Any) -> Any:
    """``--executor``, ``--isolation``, ``--process-budget`` and ``--ray-address``, shared by
    evaluate, run and rescore."""
    fn = click.option(
        "--process-budget",
        type=click.Choice(["auto", "cgroup", "nproc", "none"]),
        default=None,
        help="What bounds each sandbox's processes and memory (default: auto, a verified "
        "cgroup, else RLIMIT_NPROC for a non-root user, else refuse); 'none' accepts "
        "unbounded processes (see docs/sandbox.md).",
    )(fn)
    fn = click.option(
        "--ray-address",
        metavar="ADDR",
        help="With --executor ray: 'auto' joins this machine's cluster, HOST:PORT joins that "
        "head; omitted, a private local Ray instance is started.",
    )(fn)
    fn = click.option(
        "--isolation",
        type=click.Choice(["auto", "bwrap", "unshare", "process"]),
        default=None,
        help="Sandbox level for generated code (default: auto, the strongest that works; "
        "see docs/sandbox.md).",
    )(fn)
    return click.option(
        "--executor",
        metavar="NAME",
        default=None,
        help="Where generated code runs: sandbox (default; warm sandboxed workers), "
        "subprocess (a fresh sandboxed worker per sample), ray (a Ray cluster, each worker "
        "sandboxed). Needs pip install 'beyondpass[ray]' for ray.",
    )(fn)


def _executor_choice(
    executor: str | None,
    isolation: str | None,
    ray_address: str | None,
    default: Any = None,
    process_budget: str | None = None,
) -> Any:
    """The CLI's choice over the study's (``default``); ``None`` when nothing was given."""
    from beyondpass.execution import ExecutorChoice

    if executor is None and isolation is None and ray_address is None and process_budget is None:
        return default
    base = default or ExecutorChoice()
    name = executor or ("ray" if ray_address else base.name)
    if ray_address is None and name == "ray":
        ray_address = base.ray_address  # the study's address, unless the CLI names one
    return ExecutorChoice(
        name=name,
        isolation=isolation or base.isolation,
        ray_address=ray_address,
        process_budget=process_budget or base.process_budget,
    )


_FLAG = "flag_"


def evaluator_flags(fn: Any) -> Any:
    """A ``--FLAG`` for every evaluator that declares one (``--nfr``: RobuNFR's metrics)."""
    from beyondpass import registry

    for spec, _ in reversed(list(registry.iter_specs("evaluators"))):
        if spec.cli_flag:
            fn = click.option(
                f"--{spec.cli_flag}", f"{_FLAG}{spec.name}", is_flag=True, help=spec.cli_help
            )(fn)
    return fn


def flagged_evaluators(flags: dict[str, bool]) -> list[str]:
    return [name[len(_FLAG) :] for name, on in flags.items() if on and name.startswith(_FLAG)]


# -- benchmarks ----------------------------------------------------------------------------
@click.group()
def benchmarks() -> None:
    """List and inspect benchmarks."""


@benchmarks.command("list")
@click.option("--data-dir", type=click.Path(), help=DATA_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def benchmarks_list(data_dir: str | None, as_json: bool) -> None:
    """List the built-in benchmarks and whether their data is available."""
    from beyondpass import registry
    from beyondpass.benchmarks import load_summary
    from beyondpass.errors import BeyondpassError

    rows = []
    for name, (spec, _) in registry.benchmarks().items():
        entry: dict[str, Any] = {"name": name, "description": spec.description}
        try:
            bench = load_summary(name, data_dir)  # no generated tests: nothing here shows them
            entry.update(
                n_tasks=len(bench),
                version=bench.version,
                source=bench.source,
                coverage=bench.coverage,
                known_broken=len(bench.known_broken),
            )
        except BeyondpassError as exc:
            entry["unavailable"] = str(exc)
        rows.append(entry)
    if as_json:
        emit_json(rows)
        return
    from rich.table import Table

    table = Table("name", "tasks", "known broken", "description")
    for r in rows:
        tasks = str(r["n_tasks"]) if "n_tasks" in r else "[red]data not found[/red]"
        table.add_row(r["name"], tasks, str(r.get("known_broken", "")), r["description"])
    _console().print(table)


@benchmarks.command("show")
@click.argument("name")
@click.argument("task_id", required=False)
@click.option("--data-dir", type=click.Path(), help=DATA_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def benchmarks_show(name: str, task_id: str | None, data_dir: str | None, as_json: bool) -> None:
    """Show a benchmark, or one of its tasks."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.errors import DataError

    bench = load_benchmark(name, data_dir)
    if task_id is None:
        info = {
            **bench.provenance(),
            "description": bench.description,
            "known_broken": {k: v.reason for k, v in bench.known_broken.items()},
            "slow_tasks": {
                t.task_id: t.metadata["timeout_s"]
                for t in bench.tasks.values()
                if "timeout_s" in t.metadata
            },
            "task_ids": list(bench.tasks),
        }
        if as_json:
            emit_json(info)
            return
        click.echo(f"{bench.name}: {bench.description}")
        click.echo(f"  tasks: {len(bench)}   version: {bench.version}")
        click.echo(f"  source: {bench.source}")
        if bench.coverage:
            click.echo(f"  coverage: {bench.coverage}")
        for tid, reason in info["known_broken"].items():
            click.echo(f"  known broken {tid}: {reason}")
        for tid, timeout in info["slow_tasks"].items():
            click.echo(f"  slow {tid}: timeout {timeout:g} s")
        ids = list(bench.tasks)
        click.echo(f"  ids: {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''} {ids[-1]}")
        return
    tid = bench.resolve_id(task_id)
    if tid is None:
        raise DataError(
            f"benchmark {name} has no task {task_id!r} (ids look like {next(iter(bench.tasks))!r})"
        )
    task = bench.tasks[tid]
    data = {
        "benchmark": task.benchmark,
        "task_id": task.task_id,
        "language": task.language,
        "entry_point": task.entry_point,
        "prompt_style": task.prompt_style,
        "prompt": task.prompt,
        "reference_solution": task.reference_solution,
        "test_setup": task.test_setup,
        "n_tests": len(task.tests),
        "tests": [t.code for t in task.tests],
        "known_broken": bench.known_broken[tid].reason if tid in bench.known_broken else None,
        "metadata": dict(task.metadata),
    }
    if as_json:
        emit_json(data)
        return
    click.echo(
        f"{task.task_id} ({task.benchmark}, {task.language}, entry point {task.entry_point})"
    )
    if data["known_broken"]:
        click.echo(f"KNOWN BROKEN: {data['known_broken']}")
    click.echo("--- prompt ---")
    click.echo(task.prompt.rstrip())
    click.echo("--- reference solution ---")
    click.echo(task.reference_solution.rstrip())
    click.echo(f"--- tests ({len(task.tests)}) ---")
    for t in task.tests[:5]:
        click.echo(t.code.strip())
    if len(task.tests) > 5:
        click.echo(f"... and {len(task.tests) - 5} more")


# -- evaluate ------------------------------------------------------------------------------
@click.command()
@click.option(
    "--benchmark", "benchmark", required=True, help="Benchmark name (see `benchmarks list`)."
)
@click.option(
    "--samples",
    required=True,
    type=click.Path(dir_okay=False),
    help="Answers JSONL: completion / solution / response per line.",
)
@click.option("--data-dir", type=click.Path(), help=DATA_DIR_HELP)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Output directory (default: ./beyondpass-eval/<samples>-<benchmark>).",
)
@click.option(
    "--timeout",
    type=float,
    default=10.0,
    show_default=True,
    help="Wall-clock limit per sample in seconds.",
)
@click.option("--workers", type=int, default=None, help="Parallel samples (default: cores).")
@click.option(
    "--skip-unknown-tasks",
    is_flag=True,
    help="Mark lines whose task is not in the benchmark 'skipped' instead of failing.",
)
@click.option(
    "--answer-format",
    metavar="FORMAT",
    help="How the answers are read (default: the benchmark's), e.g. whole-program for "
    "answers that hold a whole program; an unknown name lists the known ones.",
)
@executor_options
@evaluator_flags
@click.option(
    "--evaluator",
    "evaluators",
    multiple=True,
    metavar="NAME",
    help="Add an evaluator's metrics (repeatable; see docs/study-files.md for the names).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary on stdout.")
def evaluate(
    benchmark: str,
    samples: str,
    data_dir: str | None,
    out: str | None,
    timeout: float,
    workers: int | None,
    skip_unknown_tasks: bool,
    answer_format: str | None,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
    evaluators: tuple[str, ...],
    as_json: bool,
    **flags: bool,
) -> None:
    """Score a JSONL file of model answers against a benchmark's tests."""
    from beyondpass import registry
    from beyondpass.execution import ExecutionLimits
    from beyondpass.study.answer_files import AnswerFile
    from beyondpass.study.evaluate_samples import evaluate_samples

    out_dir = (
        Path(out) if out else default_out("beyondpass-eval", f"{Path(samples).stem}-{benchmark}")
    )
    with RichProgress(enabled=True) as progress:
        outcome = evaluate_samples(
            benchmark,
            samples,
            out_dir,
            data_dir=data_dir,
            limits=ExecutionLimits(timeout_s=timeout),
            workers=workers,
            executor=_executor_choice(
                executor, isolation, ray_address, process_budget=process_budget
            ),
            skip_unknown_tasks=skip_unknown_tasks,
            evaluators=tuple(dict.fromkeys((*flagged_evaluators(flags), *evaluators))),
            answer_file=AnswerFile({"answer_format": answer_format} if answer_format else None),
            progress=progress,
        )
    s = outcome.summary
    if as_json:
        emit_json(s)
        return
    click.echo(
        f"{s['benchmark']}: {s['n_samples']} samples on {s['n_tasks']} of "
        f"{s['n_benchmark_tasks']} tasks"
    )
    if s["n_skipped"]:
        click.echo(f"  skipped {s['n_skipped']} lines whose task is not in {s['benchmark']}")
    for key in [k for k in s if k.startswith("pass@")]:
        click.echo(f"  {key}: " + percent(s[key], missing="-", unit="%"))
    click.echo("  statuses: " + ", ".join(f"{k} {v}" for k, v in s["status_counts"].items()))
    for name in registry.evaluator_names():
        extra = s.get(name)
        if not isinstance(extra, dict) or "means" not in extra:
            continue
        spec, _ = registry.evaluator(name)
        means, counts = extra["means"], extra["n"]
        click.echo(
            f"  {spec.label or name} means: "
            + ", ".join(
                f"{k} {'-' if v is None else f'{v:.3f}'} (n={counts[k]})" for k, v in means.items()
            )
        )
    if s["known_broken_in_samples"]:
        click.echo(
            f"  known-broken tasks in these samples: {', '.join(s['known_broken_in_samples'])}"
        )
    click.echo(f"results: {s['results_path']}")


# -- run -----------------------------------------------------------------------------------
@click.command()
@click.argument("study", type=click.Path(dir_okay=False))
@click.option(
    "--model",
    "models",
    multiple=True,
    help="Model spec to run instead of the study's models (repeatable).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Run directory (default: ./runs/<study name>). Re-running resumes it.",
)
@click.option("--data-dir", type=click.Path(), help=DATA_DIR_HELP)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="Response cache directory (default: $BEYONDPASS_CACHE_DIR or ~/.cache/beyondpass).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@click.option("--workers", type=int, default=None, help="Parallel samples when executing.")
@click.option(
    "--report/--no-report",
    default=True,
    show_default=True,
    help="Render the Markdown and HTML report when done.",
)
@executor_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary on stdout.")
def run(
    study: str,
    models: tuple[str, ...],
    out: str | None,
    data_dir: str | None,
    cache_dir: str | None,
    no_cache: bool,
    workers: int | None,
    report: bool,
    executor: str | None,
    isolation: str | None,
    process_budget: str | None,
    ray_address: str | None,
    as_json: bool,
) -> None:
    """Run a study (benchmarks x models x prompt conditions) into a run directory."""
    from beyondpass.study.config import load_study, resolve_study_path

    path, builtin = resolve_study_path(study)
    config = load_study(path, list(models) or None)
    if builtin and not as_json:
        stderr.print(f"using the built-in study {path} (no {study} here)")
    run_dir = Path(out) if out else default_out("runs", config.name)
    code = _run_study(
        config,
        run_dir,
        data_dir=data_dir,
        cache_dir=cache_dir,
        no_cache=no_cache,
        workers=workers,
        report=report,
        as_json=as_json,
        executor=_executor_choice(
            executor, isolation, ray_address, config.executor, process_budget
        ),
    )
    sys.exit(code)


def _run_study(
    config: Any,
    run_dir: Path,
    *,
    data_dir: str | None,
    cache_dir: str | None,
    no_cache: bool,
    workers: int | None,
    report: bool,
    as_json: bool,
    executor: Any = None,
) -> int:
    from beyondpass.models.cache import CACHE_FILENAME, ResponseCache, default_cache_path
    from beyondpass.study.runner import StudyRunner

    cache = None
    if not no_cache:
        cache = ResponseCache(
            Path(cache_dir) / CACHE_FILENAME if cache_dir else default_cache_path()
        )
    try:
        with RichProgress() as progress:
            outcome = StudyRunner(
                config,
                run_dir,
                data_dir=data_dir,
                cache=cache,
                progress=progress,
                workers=workers,
                executor=executor,
            ).run()
    finally:
        if cache is not None:
            cache.close()
    paths = None
    if report and outcome.summaries:
        from beyondpass.report import render_report

        paths = render_report(run_dir, seed=config.seed)
    payload = {
        "run_dir": str(run_dir),
        "complete": outcome.complete,
        "samples_expected": outcome.expected,
        "samples_scored": outcome.scored,
        "failures": outcome.failures,
        "groups": [
            {
                "benchmark": g.benchmark,
                "model": g.model,
                "condition": g.condition,
                "n_tasks": g.n_tasks,
                "n_samples": g.n_samples,
                "n_evaluated": g.n_evaluated,
                **{f"pass@{k}": v for k, v in g.pass_at.items()},
                "pass@1_ci95": list(g.pass1_ci),
                "status_counts": g.status_counts,
            }
            for g in outcome.summaries
        ],
        "report_markdown": str(paths.markdown) if paths else None,
        "report_html": str(paths.html) if paths else None,
        "report_latex": str(paths.latex) if paths and paths.latex else None,
    }
    if as_json:
        emit_json(payload)
    else:
        _print_groups(outcome.summaries)
        click.echo(f"run: {run_dir}  ({outcome.scored}/{outcome.expected} samples scored)")
        if paths:
            click.echo(f"report: {paths.html}")
            click.echo(f"        {paths.markdown}")
    for failure in outcome.failures:  # one line each, whatever the output format
        click.echo(
            f"error: {failure} (the run is incomplete; what was done is stored — fix the cause "
            "and run the same command to resume)",
            err=True,
        )
    if outcome.failures:
        return EXIT_MODEL_FAILED
    return 0 if outcome.complete else EXIT_INCOMPLETE


def _print_groups(summaries: list[Any]) -> None:
    from rich.table import Table

    table = Table("benchmark", "model", "condition", "tasks", "pass@1", "95% CI", "statuses")
    for g in summaries:
        lo, hi = g.pass1_ci
        table.add_row(
            g.benchmark,
            g.model,
            g.condition,
            str(g.n_tasks),
            percent(g.pass_at.get(1), missing="-", unit="%"),
            "-".join(percent(v, missing="-", unit="%") for v in (lo, hi)),
            ", ".join(f"{k} {v}" for k, v in g.status_counts.items()),
        )
    _console().print(table)


_console = console  # the name other command modules import


# -- report --------------------------------------------------------------------------------
@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), help="Where to write (default: RUN).")
@click.option("--json", "as_json", is_flag=True, help="Print the report paths as JSON.")
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


# -- demo ----------------------------------------------------------------------------------
@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="beyondpass-demo",
    show_default=True,
    help="Directory for the demo run and its report.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary on stdout.")
@click.option(
    "--process-budget",
    type=click.Choice(["auto", "cgroup", "nproc", "none"]),
    default=None,
    help="What bounds each sandbox's processes (default: auto; see docs/sandbox.md).",
)
def demo(out: str, as_json: bool, process_budget: str | None) -> None:
    """Run the built-in demo study offline (replayed answers; no API key) and report it."""
    from beyondpass.study.config import load_study

    study_file = Path(str(resources.files("beyondpass.demo") / "data" / "study.toml"))
    config = load_study(study_file)
    if not as_json:
        stderr.print(
            "beyondpass demo: replaying answers written for the demo (not real model "
            "output) on 8 built-in tasks"
        )
    code = _run_study(
        config,
        Path(out) / "run",
        data_dir=None,
        cache_dir=None,
        no_cache=True,
        workers=None,
        report=True,
        as_json=as_json,
        executor=_executor_choice(None, None, None, config.executor, process_budget),
    )
    sys.exit(code)
