"""The seam for batch work that is not test execution: analysers, metrics, verification.

An evaluator describes its work as a :class:`BatchJob` — a picklable *top-level* function,
its picklable arguments, what a machine needs to run it, and how many CPUs one batch uses —
and hands it, with its items, to the :class:`BatchPool` of the run. The pool runs it where
the run says: :class:`LocalPool` (the default) calls the function in this process on all
items at once, exactly as the evaluators ran before the seam existed (the function may
still start its own supervised workers, such as :class:`beyondpass.analysers.PylintPool`);
``RayPool`` (:mod:`.ray_pool`, with ``--executor ray``) cuts the items into batches and runs
the same function on Ray workers, each worker first checking it has the tools the job
names (a missing one is one line naming the node and the tool).

The pool comes from the same :class:`beyondpass.execution.ExecutorChoice` the executor comes
from (``ExecutorChoice.pool()``, given to every evaluator by
``evaluators.setup.EvaluationSetup``), so a method never imports Ray.

The function's contract: ``fn(args, items, ctx) -> results``, one result per item in item
order; it may call ``ctx.emit(i, result)`` as each item's result is known (locally the
evaluator then sees results as they come, as before; on Ray ``emit`` is ``None`` and
results arrive per batch). Results must not depend on which items share a batch, unless
the job says ``split=False`` (then all items go to one task).
"""

from __future__ import annotations

import functools
import importlib.util
import socket
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution.sandbox import LEVELS, stronger_or_equal

Emit = Callable[[int, Any], None]


class NodeLacksTool(ConfigError):
    """A machine that was to run a batch lacks a tool (or Python package) the job needs."""


@dataclass(frozen=True)
class BatchContext:
    """What one batch is told about where it runs: ``cpus`` it may keep busy at once (its
    own worker processes or threads), ``emit`` for results as they come (or ``None``) and
    the ``node`` it runs on."""

    cpus: int = 1
    emit: Emit | None = None
    node: str = "local"


@dataclass(frozen=True)
class BatchJob:
    """One kind of batch work.

    ``fn(args, items, ctx)``: a module-level function (shipped by reference: a worker
    imports it from its own beyondpass), one result per item. ``purpose`` names the work in
    errors ("NFR metrics"). ``tools``: analysers a worker must have, by the names
    :func:`beyondpass.analysers.require` knows (``pylint``, ``ruff``, ``cppcheck``, ...);
    ``modules``: Python packages it must be able to import. ``local_cpus``: CPUs the one
    local batch may use (the evaluator's worker count, as before); ``task_cpus``: CPUs one
    remote batch reserves (and may use). ``batch_size``: most items per remote batch;
    ``split=False``: results depend on which items share a batch, so all go to one task.
    ``item_timeout_s``: the worst case of one item, for telling a stalled cluster.
    ``confinement``: what the run records for the job's confined analysers
    (:func:`beyondpass.analysers.process.confinement` on the machine that starts the run);
    a worker that cannot confine at that isolation level refuses the batch rather than run
    them weaker (``"none"``: the run confines nothing).
    """

    fn: Callable[[Any, list[Any], BatchContext], list[Any]]
    args: Any
    purpose: str
    tools: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    local_cpus: int = 1
    task_cpus: float = 1
    batch_size: int = 256
    split: bool = True
    item_timeout_s: float = 60.0
    confinement: str = "none"


class BatchPool(ABC):
    """Runs :class:`BatchJob`\\ s; ``map`` returns one result per item, in item order."""

    name: str = ""

    @abstractmethod
    def map(self, job: BatchJob, items: Sequence[Any], on_result: Emit | None = None) -> list[Any]:
        """Run ``job`` on ``items``; ``on_result(i, result)`` fires here as results come."""

    def metadata(self) -> dict[str, Any]:
        return {"pool": self.name}

    def close(self) -> None:
        """Release what the pool started (a Ray instance it started); nothing here."""
        return None


class LocalPool(BatchPool):
    """In this process, all items as one batch: what every evaluator did before the seam."""

    name = "local"

    def map(self, job: BatchJob, items: Sequence[Any], on_result: Emit | None = None) -> list[Any]:
        if not items:
            return []
        emitted: set[int] = set()

        def emit(i: int, result: Any) -> None:
            emitted.add(i)
            if on_result is not None:
                on_result(i, result)

        results = job.fn(job.args, list(items), BatchContext(max(1, job.local_cpus), emit))
        check_results(job, len(items), results)
        for i, result in enumerate(results):
            if i not in emitted and on_result is not None:
                on_result(i, result)
        return list(results)


def check_results(job: BatchJob, n: int, results: Sequence[Any]) -> None:
    if len(results) != n:
        raise RuntimeError(f"{job.purpose}: {len(results)} results for {n} items")


def node_name() -> str:
    """This machine as an error or a timing record names it: its host name (and Ray's
    address for it). Ray is not imported for this: a process that has not imported it has
    not joined a cluster either."""
    host = socket.gethostname()
    ray = sys.modules.get("ray")
    try:
        if ray is not None and ray.is_initialized():
            return f"{host} ({ray.util.get_node_ip_address()})"
    except Exception:  # noqa: BLE001 - the host name alone still names the node
        pass
    return host


@functools.cache
def cpu_model() -> str:
    """This machine's CPU model (``model name`` of /proc/cpuinfo, else what Python knows),
    recorded with timings: times taken on different CPU models are not comparable."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown"


def check_needs(job: BatchJob, node: str) -> None:
    """On the machine about to run ``job``: every tool and package it needs is there, or a
    one-line :class:`NodeLacksTool` naming the node, the tool and what to install."""
    from beyondpass.analysers import AnalyserMissing, require
    from beyondpass.analysers.process import INSTALL

    for tool in job.tools:
        try:
            require(tool, job.purpose)
        except AnalyserMissing:
            hint = INSTALL.get(tool, f"install {tool}")
            raise NodeLacksTool(
                f"node {node} lacks {tool}, needed for {job.purpose} — {hint} on that node "
                "(every node needs the analysers of the stages it runs)"
            ) from None
    if job.confinement in LEVELS:
        from beyondpass.analysers.process import confinement

        here = confinement()
        if not stronger_or_equal(here, job.confinement):
            raise NodeLacksTool(
                f"node {node} cannot confine the analysers of {job.purpose} at level "
                f"{job.confinement} as the run records (only {here}) — install bubblewrap "
                "there and allow unprivileged user namespaces"
            )
    for module in job.modules:
        if importlib.util.find_spec(module) is None:
            raise NodeLacksTool(
                f"node {node} lacks the Python package {module}, needed for {job.purpose} — "
                "install beyondpass with the same extras on every node"
            )
