"""Scale-out executor: fan batches of samples out to a Ray cluster.

Ray only distributes work; it isolates nothing. Every Ray task therefore builds the same
local executor the harness would use on one machine (``create_executor(inner, ...)``) and
runs its batch through that executor's ``run_many``, so a sample gets the same isolation and
the same verdict logic wherever it lands. Batches (not single samples) are the unit of
scheduling because a Ray task costs milliseconds to schedule while most samples finish in
tens of milliseconds.

``ray`` is imported when an executor is built (so a missing package is reported before any
work starts) but Ray itself is started or joined only on first use, and ``close()`` shuts
down only an instance this executor started.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from beyondpass.errors import BeyondpassError, ConfigError
from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Executor

MISSING_RAY = "the ray executor needs the 'ray' package: pip install 'beyondpass[ray]'"

#: Kept unless ``init_options`` says otherwise: a harness run is not a Ray application, so
#: no dashboard, no worker logs on our console and no changes to the root logger.
DEFAULT_INIT_OPTIONS: dict[str, Any] = {
    "ignore_reinit_error": True,
    "log_to_driver": False,
    "include_dashboard": False,
    "configure_logging": False,
}

#: Slack on top of the longest batch's worst case before a silent cluster counts as stalled;
#: covers worker start-up, runtime-env setup and Ray's own node-failure detection.
STALL_SLACK_S = 600.0
_PER_SAMPLE_OVERHEAD_S = 5.0
_POLL_S = 5.0  # longest ray.wait, so Ctrl-C is honoured promptly


class RayExecutorError(BeyondpassError):
    """The cluster failed to run a batch (task raised, worker or node died, stalled)."""


def default_inner_executor() -> str:
    """The executor a single machine would use; the workers apply exactly that one."""
    import beyondpass.execution as execution

    return str(getattr(execution, "DEFAULT_EXECUTOR", "subprocess"))


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(MISSING_RAY) from exc
    return ray


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
    return _inner_executor(inner, options).run_many(requests)


def _inner_metadata(inner: str, options: dict[str, Any]) -> dict[str, Any]:
    return _inner_executor(inner, options).metadata()


# -- the driver side -------------------------------------------------------------------------
class RayExecutor(Executor):
    """Runs batches of samples as Ray tasks, each through a local isolating executor.

    ``address``: ``None`` starts a private local Ray instance; ``"auto"`` joins the cluster
    this machine belongs to (``ray start`` or ``RAY_ADDRESS``); ``"host:port"`` joins that
    cluster's head. ``workers`` caps the batches in flight (default: all of them; Ray queues
    what the cluster cannot run yet). ``batch_size`` is an upper bound: small runs are cut
    into smaller batches so that every CPU of the cluster gets work.
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
        _import_ray()  # fail now, before a run directory is touched, if ray is missing
        self.address = address
        self.inner = inner or default_inner_executor()
        if self.inner == self.name:
            raise ConfigError("ray executor: the inner executor cannot be 'ray' itself")
        self.inner_options = dict(inner_options or {})
        # one sample per reserved CPU, so a task never uses more cores than Ray granted it
        self.inner_options.setdefault("workers", max(1, int(num_cpus_per_task)))
        self.batch_size = batch_size
        self.num_cpus_per_task = num_cpus_per_task
        self.init_options = {**DEFAULT_INIT_OPTIONS, **(init_options or {})}
        self.max_in_flight = workers
        self.stall_timeout_s = stall_timeout_s
        self._lock = threading.Lock()
        self._ray: Any = None
        self._started_here = False
        self._remote_batch: Any = None
        self._remote_metadata: Any = None
        self._inner_meta: dict[str, Any] | None = None

    # -- connection ---------------------------------------------------------------------------
    def _connect(self) -> Any:
        """Start or join Ray on first use; reuse a Ray the process already initialised."""
        with self._lock:
            if self._ray is not None:
                return self._ray
            ray = _import_ray()
            if not ray.is_initialized():
                target = "local" if self.address is None else self.address
                options = self.init_options
                if target.startswith("ray://"):  # Ray Client takes few init options
                    options = {k: v for k, v in options.items() if k not in DEFAULT_INIT_OPTIONS}
                try:
                    ray.init(address=target, **options)
                except (ConnectionError, ValueError, RuntimeError) as exc:
                    hint = (
                        "start one with `ray start --head`, or omit the address to start a "
                        "local instance"
                        if self.address is not None
                        else "check the init options"
                    )
                    raise RayExecutorError(
                        f"ray executor: could not start or join Ray at "
                        f"{self.address or 'a new local instance'}: {_one_line(exc)} — {hint}"
                    ) from exc
                self._started_here = True
            try:
                self._check_feasible(ray)
            except RayExecutorError:
                if self._started_here:
                    ray.shutdown()
                    self._started_here = False
                raise
            options = {"num_cpus": self.num_cpus_per_task}
            self._remote_batch = ray.remote(_run_batch).options(**options)
            self._remote_metadata = ray.remote(_inner_metadata).options(**options)
            self._ray = ray
            return ray

    def _check_feasible(self, ray: Any) -> None:
        """A task no node can hold would wait forever; say so instead."""
        largest = max(
            (n.get("Resources", {}).get("CPU", 0.0) for n in ray.nodes() if n.get("Alive")),
            default=0.0,
        )
        if largest < self.num_cpus_per_task:
            raise RayExecutorError(
                f"ray executor: no node of the cluster has {self.num_cpus_per_task:g} CPUs for "
                f"one task (largest: {largest:g}); lower num_cpus_per_task or add nodes"
            )

    def close(self) -> None:
        """Shut Ray down if this executor started it; a joined cluster keeps running."""
        with self._lock:
            if self._ray is not None and self._started_here and self._ray.is_initialized():
                self._ray.shutdown()
            self._ray = None
            self._started_here = False
            self._remote_batch = self._remote_metadata = None

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the Executor API ---------------------------------------------------------------------
    @property
    def workers(self) -> int:
        """Tasks the cluster can run at once (or the cap on batches in flight, if lower)."""
        slots = self._slots() if self._ray is not None else 1
        return min(slots, self.max_in_flight) if self.max_in_flight else slots

    def _slots(self) -> int:
        cpus = float(self._ray.cluster_resources().get("CPU", 0.0))
        return max(1, int(cpus // self.num_cpus_per_task))

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
        ray = self._connect()
        batches = plan_batches(len(requests), self.batch_size, self._slots())
        stall_s = self._stall_timeout(requests, batches)
        results: list[ExecutionResult | None] = [None] * len(requests)
        waiting = deque(range(len(batches)))
        in_flight: dict[Any, int] = {}
        limit = self.max_in_flight or len(batches)
        last_progress = time.monotonic()
        try:
            while waiting or in_flight:
                while waiting and len(in_flight) < limit:
                    b = waiting.popleft()
                    batch = [requests[i] for i in batches[b]]
                    ref = self._remote_batch.remote(self.inner, self.inner_options, batch)
                    in_flight[ref] = b
                left = stall_s - (time.monotonic() - last_progress)
                if left <= 0:
                    b = min(in_flight.values())
                    raise RayExecutorError(
                        f"ray executor: {_batch_name(b, batches)} and {len(in_flight) - 1} "
                        f"other(s) still running, no batch returned in {stall_s:g} s — is the "
                        "cluster alive? (`ray status`)"
                    )
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=min(left, _POLL_S))
                for ref in ready:
                    b = in_flight.pop(ref)
                    try:
                        batch_results = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        raise RayExecutorError(
                            f"ray executor: {_batch_name(b, batches)} failed: {_describe(exc)}"
                        ) from exc
                    if len(batch_results) != len(batches[b]):
                        raise RayExecutorError(
                            f"ray executor: {_batch_name(b, batches)} returned "
                            f"{len(batch_results)} results for {len(batches[b])} requests"
                        )
                    for i, result in zip(batches[b], batch_results, strict=True):
                        results[i] = result
                        if on_result is not None:
                            on_result(i, result)
                    last_progress = time.monotonic()
        finally:
            if in_flight:  # on error or Ctrl-C: stop what is still queued or running
                _cancel(ray, list(in_flight))
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

    def metadata(self) -> dict[str, Any]:
        """Where the work ran and how: the inner metadata comes from a worker, not from here."""
        ray = self._connect()
        if self._inner_meta is None:
            ref = self._remote_metadata.remote(self.inner, self.inner_options)
            try:
                self._inner_meta = dict(ray.get(ref, timeout=STALL_SLACK_S))
            except ray.exceptions.GetTimeoutError as exc:
                ray.cancel(ref)
                raise RayExecutorError(
                    f"ray executor: no worker answered within {STALL_SLACK_S:g} s — is the "
                    "cluster alive? (`ray status`)"
                ) from exc
            except ray.exceptions.RayError as exc:
                raise RayExecutorError(
                    f"ray executor: the inner executor {self.inner!r} failed on a worker: "
                    f"{_describe(exc)}"
                ) from exc
        alive = [n for n in ray.nodes() if n.get("Alive")]
        meta: dict[str, Any] = {
            "executor": self.name,
            "ray_version": ray.__version__,
            "ray_address": ray.get_runtime_context().gcs_address,
            "ray_started_here": self._started_here,
            "cluster_nodes": len(alive),
            "cluster_cpus": float(ray.cluster_resources().get("CPU", 0.0)),
            "batch_size": self.batch_size,
            "num_cpus_per_task": self.num_cpus_per_task,
            "inner": self._inner_meta,
        }
        if "isolation" in self._inner_meta:
            meta["isolation"] = self._inner_meta["isolation"]
        return meta


def _cancel(ray: Any, refs: list[Any]) -> None:
    """Best effort: cancel, then collect what already failed so Ray does not log it again."""
    with contextlib.suppress(Exception):
        for ref in refs:
            ray.cancel(ref)
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=1.0)
        for ref in done:
            with contextlib.suppress(Exception):
                ray.get(ref, timeout=0)


def plan_batches(n: int, batch_size: int, slots: int) -> list[range]:
    """Consecutive index ranges of at most ``batch_size``, at least two per slot if possible.

    Cutting small runs finer keeps every CPU busy; large runs get full batches, which
    amortise Ray's per-task overhead.
    """
    size = max(1, min(batch_size, math.ceil(n / (2 * max(1, slots)))))
    return [range(start, min(start + size, n)) for start in range(0, n, size)]


def _batch_name(b: int, batches: list[range]) -> str:
    idx = batches[b]
    return f"batch {b + 1} of {len(batches)} (requests {idx.start}-{idx.stop - 1})"


def _describe(exc: BaseException) -> str:
    """One line for a Ray failure: the worker's own exception when there is one."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        where = f" on {exc.ip}" if getattr(exc, "ip", None) else ""  # type: ignore[attr-defined]
        text = f"{type(cause).__name__}: {_one_line(cause)}{where}"
    else:
        text = f"{type(exc).__name__}: {_one_line(exc)}"
    if "No module named 'beyondpass" in text:
        text += " — install beyondpass (same version, same Python) on every node"
    return text


def _one_line(exc: BaseException, limit: int = 300) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
