"""Options several commands share, defined once: the data directory, JSON output, the
executor choice (``--executor``, ``--isolation``, ``--process-budget``, ``--ray-address``)
and the flags evaluators declare (``--nfr``). What the executor options become is
:func:`beyondpass.api.executors.executor_choice`, the same for the Python API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from beyondpass.api.executors import executor_choice
from beyondpass.execution.budget import PROCESS_BUDGETS
from beyondpass.execution.sandbox import ISOLATION_LEVELS

__all__ = [
    "data_dir_option",
    "evaluator_flags",
    "executor_choice",
    "executor_options",
    "flagged_evaluators",
    "json_option",
    "process_budget_option",
    "ray_address_option",
]

DATA_DIR_HELP = "Benchmark data directory (default: $BEYONDPASS_DATA, then cache, then download)."


#: ``--ray-address``: which Ray cluster a command with ``--executor ray`` starts or joins
ray_address_option = click.option(
    "--ray-address",
    metavar="ADDR",
    help="With --executor ray: 'auto' joins this machine's cluster, HOST:PORT joins that "
    "head; omitted, a private local Ray instance is started.",
)


#: ``--process-budget``: what bounds each sandbox's processes and memory
process_budget_option = click.option(
    "--process-budget",
    type=click.Choice(PROCESS_BUDGETS),
    default=None,
    help="What bounds each sandbox's processes and memory (default: auto, a verified "
    "cgroup per sandbox, else RLIMIT_NPROC for a non-root user, else the verified limits of "
    "the container this runs in, else refuse); 'none' accepts unbounded processes (see "
    "docs/sandbox.md).",
)


#: ``--isolation``: the sandbox level generated code runs at
isolation_option = click.option(
    "--isolation",
    type=click.Choice(ISOLATION_LEVELS),
    default=None,
    help="Sandbox level for generated code (default: auto, the strongest that works; "
    "see docs/sandbox.md).",
)


def executor_options(fn: Any) -> Any:
    """``--executor``, ``--isolation``, ``--process-budget`` and ``--ray-address``, shared by
    evaluate, run and rescore."""
    fn = process_budget_option(fn)
    fn = ray_address_option(fn)
    fn = isolation_option(fn)
    return click.option(
        "--executor",
        metavar="NAME",
        default=None,
        help="Where generated code runs: sandbox (default; warm sandboxed workers), "
        "subprocess (a fresh sandboxed worker per sample), ray (a Ray cluster, each worker "
        "sandboxed). Needs pip install 'beyondpass[ray]' for ray.",
    )(fn)


_FLAG = "flag_"


def evaluator_flags(fn: Any) -> Any:
    """A ``--FLAG`` for every evaluator that declares one (``--nfr``: RobuNFR's metrics)."""
    from beyondpass import registry

    for spec, _ in reversed(list(registry.specs("evaluators"))):
        if spec.cli_flag:
            fn = click.option(
                f"--{spec.cli_flag}", f"{_FLAG}{spec.name}", is_flag=True, help=spec.cli_help
            )(fn)
    return fn


def flagged_evaluators(flags: dict[str, bool]) -> list[str]:
    return [name[len(_FLAG) :] for name, on in flags.items() if on and name.startswith(_FLAG)]


def data_dir_option(fn: Any) -> Any:
    """``--data-dir``: where benchmark data is (every command that loads a benchmark)."""
    return click.option("--data-dir", type=click.Path(), help=DATA_DIR_HELP)(fn)


def json_option(help: str = "Print one JSON object on stdout.") -> Callable[[Any], Any]:
    """``--json`` (``as_json``): machine-readable output instead of tables and prose."""
    return click.option("--json", "as_json", is_flag=True, help=help)
