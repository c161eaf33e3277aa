"""Running untrusted generated code behind one seam, :class:`Executor`."""

from dataclasses import dataclass

from beyondpass.execution.base import (
    CompileStep,
    ExecutionLimits,
    ExecutionRequest,
    ExecutionResult,
    Executor,
    Launcher,
    Status,
    TestResult,
)
from beyondpass.execution.budget import PROCESS_BUDGETS
from beyondpass.execution.launch import Output, Sandboxes, Started
from beyondpass.execution.pool import (
    BatchContext,
    BatchJob,
    BatchPool,
    LocalPool,
    NodeLacksTool,
    cpu_model,
    node_name,
)
from beyondpass.execution.sandbox import (
    ISOLATION_LEVELS,
    LEVELS,
    SANDBOX_ENV,
    SCRATCH,
    Bind,
    SandboxSpec,
    choose_level,
    stronger_or_equal,
)
from beyondpass.execution.sandboxed import wire  # the one framed-JSON codec
from beyondpass.execution.sandboxed.job import NOT_CALLABLE_EXIT, NOT_CALLABLE_MARK

__all__ = [
    "CompileStep",
    "ExecutionLimits",
    "ExecutionRequest",
    "ExecutionResult",
    "Executor",
    "Launcher",
    "Status",
    "TestResult",
    "BatchContext",
    "BatchJob",
    "BatchPool",
    "LocalPool",
    "NodeLacksTool",
    "cpu_model",
    "node_name",
    "DEFAULT_EXECUTOR",
    "EXECUTORS",
    "ISOLATION_LEVELS",
    "PROCESS_BUDGETS",
    "NOT_CALLABLE_EXIT",
    "NOT_CALLABLE_MARK",
    "wire",
    "ExecutorChoice",
    "create_executor",
    "Bind",
    "LEVELS",
    "SANDBOX_ENV",
    "SCRATCH",
    "SandboxSpec",
    "Output",
    "Sandboxes",
    "Started",
    "choose_level",
    "stronger_or_equal",
]


#: What ``evaluate`` and ``run`` use unless told otherwise.
DEFAULT_EXECUTOR = "sandbox"
#: the core's executors (registry kind ``executors``; a method may add more)
EXECUTORS = ("sandbox", "subprocess", "ray")


@dataclass(frozen=True)
class ExecutorChoice:
    """Which executor a run uses and how: from a study's ``[execution]`` table or the CLI.

    The same choice places batch work (analysers, metrics: :meth:`pool`).
    ``ray_address``: ``None`` starts a private local Ray instance, ``"auto"`` joins the
    cluster this machine belongs to, ``"host:port"`` joins that head. Where the executor is
    ``ray``, every Ray worker runs the local ``sandbox`` executor at ``isolation``.
    ``process_budget``: what bounds each sandbox's processes and memory; ``auto`` refuses
    to run when nothing binds, ``none`` is the user accepting that.
    """

    name: str = DEFAULT_EXECUTOR
    isolation: str = "auto"
    ray_address: str | None = None
    process_budget: str = "auto"

    def __post_init__(self) -> None:
        from beyondpass import registry
        from beyondpass.errors import ConfigError

        known = registry.names("executors")  # the core's and every method's
        if self.name not in known:
            raise ConfigError(f"unknown executor {self.name!r} — available: {', '.join(known)}")
        if self.isolation not in ISOLATION_LEVELS:
            raise ConfigError(
                f"unknown isolation level {self.isolation!r} — choose {', '.join(ISOLATION_LEVELS)}"
            )
        if self.process_budget not in PROCESS_BUDGETS:
            raise ConfigError(
                f"unknown process budget {self.process_budget!r} — choose "
                f"{', '.join(PROCESS_BUDGETS)}"
            )
        if self.ray_address is not None and self.name != "ray":
            raise ConfigError("a Ray address needs the ray executor (--executor ray)")

    def sandboxes(self, memory_mb: int = 4096, announce: bool = True) -> Sandboxes:
        """The sandboxes this choice gives a caller that starts its own (ObfusEval's project
        test runs): the same level and process budget the executor's workers get."""
        return Sandboxes(self.isolation, self.process_budget, memory_mb, announce)

    def pool(self) -> BatchPool:
        """Where batch work other than test execution runs (:mod:`.pool`): on the same Ray
        cluster as the tests when the executor is ``ray``, else in this process."""
        if self.name == "ray":
            from beyondpass.execution.ray_pool import RayPool

            return RayPool(address=self.ray_address)
        return LocalPool()

    def build(self, workers: int | None = None, seed: int = 0) -> Executor:
        if self.name == "ray":
            return create_executor(
                "ray",
                address=self.ray_address,
                workers=workers,
                inner_options={
                    "isolation": self.isolation,
                    "seed": seed,
                    "process_budget": self.process_budget,
                },
            )
        return create_executor(
            self.name,
            workers=workers,
            isolation=self.isolation,
            seed=seed,
            process_budget=self.process_budget,
        )


def create_executor(name: str = DEFAULT_EXECUTOR, **options: object) -> Executor:
    """Build the executor the registry names; heavier ones are imported only when asked for."""
    from beyondpass import registry

    spec, owner = registry.lookup("executors", name)
    executor: Executor = registry.resolve(spec.factory, owner)(**{**spec.defaults, **options})
    return executor
