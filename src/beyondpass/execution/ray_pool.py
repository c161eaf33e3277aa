"""The batch pool on Ray: the same job functions as :class:`.pool.LocalPool`, run on workers.

Each batch is one Ray task reserving ``job.task_cpus`` CPUs. On the worker the task first
checks that the node has every tool and package the job names (:func:`.pool.check_needs`;
a missing one stops the run with one line naming the node and the tool, never a skipped
metric), then calls the job's function exactly as the local pool does, with
``ctx.cpus = task_cpus`` and no ``emit``: results come back per batch. Ray is started or
joined through :mod:`.ray_cluster`, the one mechanism the executor uses too (same address
choice, same stall detection, same one-line failures, same cancel on Ctrl-C).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from beyondpass.execution.pool import (
    BatchContext,
    BatchJob,
    BatchPool,
    Emit,
    check_needs,
    check_results,
    node_name,
)
from beyondpass.execution.ray_cluster import (
    STALL_SLACK_S,
    RayConnection,
    plan_batches,
    run_batches,
)


def _run_job(job: BatchJob, items: list[Any]) -> list[Any]:
    """On a worker: check the node, then run one batch (module-level: shipped by reference)."""
    node = node_name()
    check_needs(job, node)
    cpus = max(1, math.floor(job.task_cpus))
    return job.fn(job.args, items, BatchContext(cpus=cpus, emit=None, node=node))


class RayPool(BatchPool):
    """Batches of a job as Ray tasks.

    ``address`` and ``init_options`` as for the ray executor (:class:`.ray_cluster.
    RayConnection`); ``runtime_env``: Ray's runtime environment for the tasks (environment
    variables, a working directory); ``max_in_flight`` caps the batches submitted at once;
    ``stall_timeout_s`` overrides how long a silent cluster is waited for.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        init_options: dict[str, Any] | None = None,
        runtime_env: dict[str, Any] | None = None,
        max_in_flight: int | None = None,
        stall_timeout_s: float | None = None,
    ) -> None:
        self._conn = RayConnection(address, init_options, "ray pool")
        self.runtime_env = runtime_env
        self.max_in_flight = max_in_flight
        self.stall_timeout_s = stall_timeout_s
        self._remote: Any = None

    def map(self, job: BatchJob, items: Sequence[Any], on_result: Emit | None = None) -> list[Any]:
        if not items:
            return []
        ray, new = self._conn.connect(job.task_cpus)
        if new or self._remote is None:
            self._remote = ray.remote(_run_job)
        options: dict[str, Any] = {"num_cpus": job.task_cpus}
        if self.runtime_env is not None:
            options["runtime_env"] = self.runtime_env
        remote = self._remote.options(**options)
        n = len(items)
        if job.split:
            batches = plan_batches(n, job.batch_size, self._conn.slots(job.task_cpus))
        else:
            batches = [range(n)]
        job_ref = ray.put(job)  # the arguments travel once, not once per batch
        results: list[Any] = [None] * n

        def submit(b: int) -> Any:
            return remote.remote(job_ref, [items[i] for i in batches[b]])

        def returned(b: int, batch_results: list[Any]) -> None:
            check_results(job, len(batches[b]), batch_results)
            for i, result in zip(batches[b], batch_results, strict=True):
                results[i] = result
                if on_result is not None:
                    on_result(i, result)

        stall_s = self.stall_timeout_s
        if stall_s is None:
            longest = max(len(idx) for idx in batches)
            per_cpu = math.ceil(longest / max(1, math.floor(job.task_cpus)))
            stall_s = STALL_SLACK_S + 2 * per_cpu * job.item_timeout_s
        run_batches(self._conn, batches, submit, returned, stall_s, self.max_in_flight)
        return results

    def metadata(self) -> dict[str, Any]:
        self._conn.connect(1)
        return {"pool": self.name, **self._conn.describe()}

    def close(self) -> None:
        self._conn.close()
        self._remote = None
