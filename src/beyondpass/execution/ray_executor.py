"""Scale-out executor: fan batches of samples out to a Ray cluster.

Ray only distributes work; it isolates nothing. Every Ray task therefore builds the same
local executor the harness would use on one machine (``create_executor(inner, ...)``) and
runs its batch through that executor's ``run_many``, so a sample gets the same isolation and
the same verdict logic wherever it lands. Batches (not single samples) are the unit of
scheduling because a Ray task costs milliseconds to schedule while most samples finish in
tens of milliseconds.

Ray is started or joined, and batches are waited for, through :mod:`.ray_cluster` (the one
mechanism the batch pool uses too): ``ray`` is imported when an executor is built (so a
missing package is reported before any work starts) but Ray itself is started or joined
only on first use, and ``close()`` shuts down only an instance this executor started.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Executor
from beyondpass.execution.pool import cpu_model, node_name
from beyondpass.execution.ray_cluster import (
    STALL_SLACK_S,
    RayClusterError,
    RayConnection,
    get_one,
    plan_batches,
    run_batches,
)

__all__ = ["STALL_SLACK_S", "RayExecutor", "RayExecutorError", "plan_batches"]

_PER_SAMPLE_OVERHEAD_S = 5.0

#: the executor's failures are the cluster's (one class, :mod:`.ray_cluster`)
RayExecutorError = RayClusterError


def default_inner_executor() -> str:
    """The executor a single machine would use; the workers apply exactly that one."""
    import beyondpass.execution as execution

    return str(getattr(execution, "DEFAULT_EXECUTOR", "subprocess"))


# -- what runs on the workers ----------------------------------------------------------------
# Module-level functions, so Ray ships them by reference: a worker imports this module from
# its own beyondpass installation instead of unpickling code from the driver.

_INNER: dict[tuple[str, str], Executor] = {}
_INNER_LOCK = threading.Lock()


def _inner_executor(inner: str, options: dict[str, Any]) -> Executor:
    """One inner executor per worker process and configuration, reused across batches."""
    from beyondpass.execution import create_executor

    key = (inner, repr(sorted(options.items())))
    with _INNER_LOCK:
        if key not in _INNER:
            _INNER[key] = create_executor(inner, **options)
        return _INNER[key]


def _run_batch(
    inner: str, options: dict[str, Any], requests: list[ExecutionRequest]
) -> list[ExecutionResult]:
    """Run one batch here and say where: the node, its CPU model and the CPUs Ray granted
    this task (timings are comparable only between runs of one node)."""
    executor = _inner_executor(inner, options)
    results = executor.run_many(requests)
    where = {"node": node_name(), "cpu_model": cpu_model(), "cpus": _granted_cpus()}
    if getattr(executor, "level", None):  # the isolation this node gave (``auto`` resolves here)
        where["isolation"] = executor.level
    for result in results:
        result.ran_on = dict(where)
    return results


def _granted_cpus() -> float | None:
    try:
        import ray

        return float(ray.get_runtime_context().get_assigned_resources().get("CPU", 0.0))
    except Exception:  # noqa: BLE001 - outside a task (a direct call): nothing granted
        return None


def _inner_metadata(inner: str, options: dict[str, Any]) -> dict[str, Any]:
    return _inner_executor(inner, options).metadata()


def _timed(request: ExecutionRequest) -> bool:
    return request.timing_repeats > 0


# -- the driver side -------------------------------------------------------------------------
class RayExecutor(Executor):
    """Runs batches of samples as Ray tasks, each through a local isolating executor.

    ``address``: ``None`` starts a private local Ray instance; ``"auto"`` joins the cluster
    this machine belongs to (``ray start`` or ``RAY_ADDRESS``); ``"host:port"`` joins that
    cluster's head (:class:`.ray_cluster.RayConnection`). ``workers`` caps the batches in
    flight (default: all of them; Ray queues what the cluster cannot run yet).
    ``batch_size`` is an upper bound: small runs are cut into smaller batches so that every
    CPU of the cluster gets work. A batch of timed requests reserves whole CPUs, one per
    sample it runs at once (:attr:`timed_cpus`), and every result records the node, CPU
    model and CPUs of the task that ran it (``ExecutionResult.ran_on``).
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        inner: str | None = None,
        inner_options: dict[str, Any] | None = None,
        batch_size: int = 64,
        num_cpus_per_task: float = 1,
        init_options: dict[str, Any] | None = None,
        workers: int | None = None,
        stall_timeout_s: float | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"ray executor: batch_size must be at least 1, not {batch_size}")
        if num_cpus_per_task <= 0:
            raise ConfigError(
                f"ray executor: num_cpus_per_task must be positive, not {num_cpus_per_task}"
            )
        if workers is not None and workers < 1:
            raise ConfigError(f"ray executor: workers must be at least 1, not {workers}")
        self._conn = RayConnection(address, init_options, "ray executor")
        self.address = address
        self.inner = inner or default_inner_executor()
        if self.inner == self.name:
            raise ConfigError("ray executor: the inner executor cannot be 'ray' itself")
        self.inner_options = dict(inner_options or {})
        # one sample per reserved CPU, so a task never uses more cores than Ray granted it
        self.inner_options.setdefault("workers", max(1, int(num_cpus_per_task)))
        self.batch_size = batch_size
        self.num_cpus_per_task = num_cpus_per_task
        self.init_options = self._conn.init_options
        self.max_in_flight = workers
        self.stall_timeout_s = stall_timeout_s
        self._remote_batch: Any = None
        self._remote_metadata: Any = None
        self._inner_meta: dict[str, Any] | None = None
        self._isolation: str | None = None  # the level the first batch reported

    @property
    def _started_here(self) -> bool:
        return self._conn.started_here

    # -- connection ---------------------------------------------------------------------------
    def _connect(self) -> Any:
        """Start or join Ray on first use; reuse a Ray the process already initialised."""
        ray, new = self._conn.connect(self.num_cpus_per_task)
        if new:
            self._remote_batch = ray.remote(_run_batch)
            options = {"num_cpus": self.num_cpus_per_task}
            self._remote_metadata = ray.remote(_inner_metadata).options(**options)
        return ray

    @property
    def timed_cpus(self) -> int:
        """Whole CPUs a batch of timed requests reserves: at least one per sample its inner
        executor runs at once, so two timing runs never share a core. (Ray counts CPUs, it
        does not pin them: with each timed task holding as many whole CPUs as it runs timed
        programs, a node never runs more of them than it has CPUs.)"""
        parallel = int(self.inner_options.get("workers") or 1)
        return max(parallel, math.ceil(self.num_cpus_per_task))

    def task_options(self, timed: bool) -> dict[str, Any]:
        """The Ray options of one batch task: ``num_cpus_per_task`` CPUs, or, when its
        requests are timed (``timing_repeats`` > 0), :attr:`timed_cpus` whole CPUs."""
        return {"num_cpus": self.timed_cpus if timed else self.num_cpus_per_task}

    def plan(self, requests: Sequence[ExecutionRequest]) -> list[range]:
        """Consecutive batches that never mix timed and untimed requests (a timed batch
        reserves whole CPUs), each run of one kind cut as :func:`plan_batches` cuts it."""
        self._connect()  # the cluster's size decides how fine small runs are cut
        batches: list[range] = []
        start = 0
        for end in range(1, len(requests) + 1):
            if end < len(requests) and _timed(requests[end]) == _timed(requests[start]):
                continue
            cpus = self.task_options(_timed(requests[start]))["num_cpus"]
            for b in plan_batches(end - start, self.batch_size, self._conn.slots(cpus)):
                batches.append(range(start + b.start, start + b.stop))
            start = end
        return batches

    def close(self) -> None:
        """Shut Ray down if this executor started it; a joined cluster keeps running."""
        self._conn.close()
        self._remote_batch = self._remote_metadata = None

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the Executor API ---------------------------------------------------------------------
    @property
    def workers(self) -> int:
        """Tasks the cluster can run at once (or the cap on batches in flight, if lower)."""
        slots = self._conn.slots(self.num_cpus_per_task) if self._conn.ray is not None else 1
        return min(slots, self.max_in_flight) if self.max_in_flight else slots

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        return self.run_many([request])[0]

    def run_many(
        self,
        requests: Sequence[ExecutionRequest],
        on_result: Callable[[int, ExecutionResult], None] | None = None,
    ) -> list[ExecutionResult]:
        """Run every request on the cluster; ``on_result`` fires here, as batches return."""
        if not requests:
            return []
        self._connect()
        if any(_timed(r) for r in requests):
            self._conn.check_feasible(self.timed_cpus)
        batches = self.plan(requests)
        results: list[ExecutionResult | None] = [None] * len(requests)

        def submit(b: int) -> Any:
            batch = [requests[i] for i in batches[b]]
            remote = self._remote_batch.options(**self.task_options(_timed(batch[0])))
            return remote.remote(self.inner, self.inner_options, batch)

        def returned(b: int, batch_results: list[ExecutionResult]) -> None:
            if len(batch_results) != len(batches[b]):
                raise RayExecutorError(
                    f"ray executor: batch {b + 1} of {len(batches)} returned "
                    f"{len(batch_results)} results for {len(batches[b])} requests"
                )
            self._check_isolation(batch_results)
            for i, result in zip(batches[b], batch_results, strict=True):
                results[i] = result
                if on_result is not None:
                    on_result(i, result)

        stall_s = self._stall_timeout(requests, batches)
        run_batches(self._conn, batches, submit, returned, stall_s, self.max_in_flight)
        return results  # type: ignore[return-value]

    def _stall_timeout(self, requests: Sequence[ExecutionRequest], batches: list[range]) -> float:
        """How long the cluster may stay silent: the slowest batch's worst case, doubled."""
        if self.stall_timeout_s is not None:
            return self.stall_timeout_s
        parallel = int(self.inner_options.get("workers") or 1)
        worst = max(
            math.ceil(len(idx) / parallel)
            * (max(requests[i].budget_s for i in idx) + _PER_SAMPLE_OVERHEAD_S)
            for idx in batches
        )
        return STALL_SLACK_S + 2 * worst

    def _check_isolation(self, results: Sequence[ExecutionResult]) -> None:
        """Every node isolates as the run records (the level its first worker reported):
        an ``auto`` that resolves to a weaker level on one node stops the run, naming the
        node, instead of judging some samples with less isolation than the rest."""
        for result in results:
            level = result.ran_on.get("isolation")
            if level is None:
                continue
            expected = self._isolation or (self._inner_meta or {}).get("isolation")
            if expected is None:
                self._isolation = level
            elif level != expected:
                raise RayExecutorError(
                    f"ray executor: node {result.ran_on.get('node')} isolates samples at the "
                    f"{level!r} level, not {expected!r} as the run records — give that node "
                    f"what {expected!r} needs (bubblewrap, user namespaces), or choose "
                    f"--isolation {level} for the whole run"
                )

    def metadata(self) -> dict[str, Any]:
        """Where the work ran and how: the inner metadata comes from a worker, not from here."""
        self._connect()
        if self._inner_meta is None:
            ref = self._remote_metadata.remote(self.inner, self.inner_options)
            what = f"the inner executor {self.inner!r}"
            self._inner_meta = dict(get_one(self._conn, ref, what))
        meta: dict[str, Any] = {
            "executor": self.name,
            **self._conn.describe(),
            "batch_size": self.batch_size,
            "num_cpus_per_task": self.num_cpus_per_task,
            "timed_cpus_per_task": self.timed_cpus,
            "inner": self._inner_meta,
        }
        if "isolation" in self._inner_meta:
            meta["isolation"] = self._inner_meta["isolation"]
        return meta
