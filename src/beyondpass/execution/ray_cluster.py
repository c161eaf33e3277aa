"""Ray as every scale-out component of execution uses it: one connection and one loop.

The executor (:mod:`.ray_executor`, test execution) and the batch pool (:mod:`.ray_pool`,
analysers and other batch work) both start or join Ray through :class:`RayConnection` and
fan their batches out through :func:`run_batches`: one place decides how Ray is started or
joined, what an infeasible task looks like, when a silent cluster counts as stalled, how a
failed task becomes one line, and what is cancelled on an error or Ctrl-C.

``ray`` is imported when a connection is made (so a missing package is reported before any
work starts), but Ray itself is started or joined only on first use, and ``close()`` shuts
down only an instance this connection started. Ray is one per process: a second connection
in the same process reuses the instance the first one started or joined.

Authentication is Ray's (:mod:`.ray_auth`): a private instance runs with Ray's default
(token authentication, Ray keeps the token in ``~/.ray/auth_token``) on 127.0.0.1; joining
a cluster sends this machine's token when it has one, as ``ray start`` on the head uses
the token it finds.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from beyondpass.errors import BeyondpassError, ConfigError
from beyondpass.execution.ray_auth import (
    AUTH_FIX,
    AUTH_MODE,
    LOOPBACK,
    auth_cause,
    loopback_node,
    quiet_auth_notice,
    send_token_if_any,
)

MISSING_RAY = "scale-out on Ray needs the 'ray' package: pip install 'beyondpass[ray]'"

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
POLL_S = 5.0  # longest ray.wait, so Ctrl-C is honoured promptly


class RayClusterError(BeyondpassError):
    """The cluster failed to run a batch (task raised, worker or node died, stalled)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(MISSING_RAY) from exc
    return ray


class RayConnection:
    """Starts or joins Ray on first use; ``who`` names the component in its errors.

    ``address``: ``None`` starts a private local Ray instance on 127.0.0.1; ``"auto"`` joins
    the cluster this machine belongs to (``ray start`` or ``RAY_ADDRESS``); ``"host:port"``
    joins that cluster's head.
    """

    def __init__(self, address: str | None, init_options: dict[str, Any] | None, who: str) -> None:
        import_ray()  # fail now, before a run directory is touched, if ray is missing
        self.address = address
        self.init_options = {**DEFAULT_INIT_OPTIONS, **(init_options or {})}
        self.who = who
        self.started_here = False
        self.ray: Any = None
        self._lock = threading.Lock()

    def connect(self, num_cpus_per_task: float) -> tuple[Any, bool]:
        """``(ray, new)``: Ray, started or joined if need be; ``new`` on the first call."""
        with self._lock:
            if self.ray is not None:
                return self.ray, False
            ray = import_ray()
            if not ray.is_initialized():
                self._init(ray)
            try:
                self._check_feasible(ray, num_cpus_per_task)
            except RayClusterError:
                if self.started_here:
                    ray.shutdown()
                    self.started_here = False
                raise
            self.ray = ray
            return ray, True

    def _init(self, ray: Any) -> None:
        target = "local" if self.address is None else self.address
        options = dict(self.init_options)
        if target.startswith("ray://"):  # Ray Client takes few init options
            options = {k: v for k, v in options.items() if k not in DEFAULT_INIT_OPTIONS}
        auth_error = getattr(ray.exceptions, "AuthenticationError", ConnectionError)
        user_mode = os.environ.get(AUTH_MODE)
        private = self.address is None
        if private:  # nothing outside this machine needs to reach it
            options.setdefault("_node_ip_address", LOOPBACK)
        try:
            with quiet_auth_notice(), loopback_node() if private else contextlib.nullcontext():
                if not private and not target.startswith("ray://"):
                    send_token_if_any()
                ray.init(address=target, **options)
        except (ConnectionError, ValueError, RuntimeError, auth_error) as exc:
            raise RayClusterError(self._failure(exc, user_mode)) from exc
        self.started_here = True

    def _failure(self, exc: BaseException, user_mode: str | None) -> str:
        """One line for a failed start or join; a refused token names its cause and the fix."""
        where = self.address or "a new local instance"
        where = f"{self.who}: could not start or join Ray at {where}"
        if self.address is None:
            return f"{where}: {one_line(exc)} — check the init options"
        cause = auth_cause(exc, user_mode)
        if cause is not None:
            return f"{where}: {cause} — {AUTH_FIX}"
        hint = "start one with `ray start --head`, or omit the address to start a local instance"
        return f"{where}: {one_line(exc)} — {hint}"

    def _check_feasible(self, ray: Any, num_cpus_per_task: float) -> None:
        """A task no node can hold would wait forever; say so instead."""
        largest = max(
            (n.get("Resources", {}).get("CPU", 0.0) for n in ray.nodes() if n.get("Alive")),
            default=0.0,
        )
        if largest < num_cpus_per_task:
            raise RayClusterError(
                f"{self.who}: no node of the cluster has {num_cpus_per_task:g} CPUs for "
                f"one task (largest: {largest:g}); lower num_cpus_per_task or add nodes"
            )

    def check_feasible(self, num_cpus_per_task: float) -> None:
        """Some node can hold a task of ``num_cpus_per_task`` CPUs, or a one-line error
        (for tasks larger than the ones :meth:`connect` was asked about)."""
        self._check_feasible(self.ray, num_cpus_per_task)

    def slots(self, num_cpus_per_task: float) -> int:
        """Tasks of ``num_cpus_per_task`` CPUs the cluster can run at once."""
        cpus = float(self.ray.cluster_resources().get("CPU", 0.0))
        return max(1, int(cpus // num_cpus_per_task))

    def describe(self) -> dict[str, Any]:
        """Where work runs: Ray's version, address and the cluster's size."""
        ray = self.ray
        alive = [n for n in ray.nodes() if n.get("Alive")]
        return {
            "ray_version": ray.__version__,
            "ray_address": ray.get_runtime_context().gcs_address,
            # a private instance this connection started (joining a cluster starts nothing)
            "ray_started_here": self.started_here and self.address is None,
            "cluster_nodes": len(alive),
            "cluster_cpus": float(ray.cluster_resources().get("CPU", 0.0)),
        }

    def close(self) -> None:
        """Shut down the Ray instance this connection started, or disconnect from the
        cluster it joined (which keeps running); a Ray someone else initialised stays."""
        with self._lock:
            if self.ray is not None and self.started_here and self.ray.is_initialized():
                self.ray.shutdown()
            self.ray = None
            self.started_here = False


def run_batches(
    conn: RayConnection,
    batches: list[range],
    submit: Callable[[int], Any],
    on_batch: Callable[[int, Any], None],
    stall_s: float,
    max_in_flight: int | None = None,
) -> None:
    """Submit batch ``b`` as ``submit(b)`` (a Ray object ref), at most ``max_in_flight`` at a
    time; ``on_batch(b, value)`` fires here as each returns. A failed task, or a cluster
    silent for ``stall_s``, is one :class:`RayClusterError` line (a configuration error the
    task raised, such as a missing tool, is raised as itself); what is still queued or
    running is cancelled."""
    ray = conn.ray
    waiting = deque(range(len(batches)))
    in_flight: dict[Any, int] = {}
    limit = max_in_flight or len(batches)
    last_progress = time.monotonic()
    try:
        while waiting or in_flight:
            while waiting and len(in_flight) < limit:
                b = waiting.popleft()
                in_flight[submit(b)] = b
            left = stall_s - (time.monotonic() - last_progress)
            if left <= 0:
                b = min(in_flight.values())
                raise RayClusterError(
                    f"{conn.who}: {batch_name(b, batches)} and {len(in_flight) - 1} "
                    f"other(s) still running, no batch returned in {stall_s:g} s — is the "
                    "cluster alive? (`ray status`)"
                )
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=min(left, POLL_S))
            for ref in ready:
                b = in_flight.pop(ref)
                try:
                    value = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise task_failure(conn, exc, f"{batch_name(b, batches)} failed") from exc
                on_batch(b, value)
                last_progress = time.monotonic()
    finally:
        if in_flight:  # on error or Ctrl-C: stop what is still queued or running
            cancel(ray, list(in_flight))


def get_one(conn: RayConnection, ref: Any, what: str) -> Any:
    """The value of one small task (metadata, a probe), within :data:`STALL_SLACK_S`."""
    ray = conn.ray
    try:
        return ray.get(ref, timeout=STALL_SLACK_S)
    except ray.exceptions.GetTimeoutError as exc:
        ray.cancel(ref)
        raise RayClusterError(
            f"{conn.who}: no worker answered within {STALL_SLACK_S:g} s — is the cluster "
            "alive? (`ray status`)"
        ) from exc
    except ray.exceptions.RayError as exc:
        raise task_failure(conn, exc, f"{what} failed on a worker") from exc


def task_failure(conn: RayConnection, exc: Exception, what: str) -> Exception:
    """The one-line error of a failed task: a configuration error raised on the worker (a
    missing tool) as itself, anything else as a :class:`RayClusterError` naming ``what``."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, ConfigError):
        return type(cause)(one_line(cause))
    return RayClusterError(f"{conn.who}: {what}: {describe_failure(exc)}")


def cancel(ray: Any, refs: list[Any]) -> None:
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


def batch_name(b: int, batches: list[range]) -> str:
    idx = batches[b]
    return f"batch {b + 1} of {len(batches)} (items {idx.start}-{idx.stop - 1})"


def describe_failure(exc: BaseException) -> str:
    """One line for a Ray failure: the worker's own exception when there is one."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        where = f" on {exc.ip}" if getattr(exc, "ip", None) else ""  # type: ignore[attr-defined]
        text = f"{type(cause).__name__}: {one_line(cause)}{where}"
    else:
        text = f"{type(exc).__name__}: {one_line(exc)}"
    if "No module named 'beyondpass" in text:
        text += " — install beyondpass (same version, same Python) on every node"
    return text


def one_line(exc: BaseException, limit: int = 300) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
