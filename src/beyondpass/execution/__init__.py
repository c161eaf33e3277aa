"""Running untrusted generated code behind one seam, :class:`Executor`."""

from beyondpass.execution.base import (
    ExecutionLimits,
    ExecutionRequest,
    ExecutionResult,
    Executor,
    Status,
    TestResult,
)

__all__ = [
    "ExecutionLimits",
    "ExecutionRequest",
    "ExecutionResult",
    "Executor",
    "Status",
    "TestResult",
    "DEFAULT_EXECUTOR",
    "create_executor",
]


#: What ``evaluate`` and ``run`` use unless told otherwise.
DEFAULT_EXECUTOR = "sandbox"


def create_executor(name: str = DEFAULT_EXECUTOR, **options: object) -> Executor:
    """Build an executor by name; heavier executors are imported only when asked for."""
    if name == "sandbox":
        from beyondpass.execution.sandbox_executor import SandboxExecutor

        return SandboxExecutor(**options)  # type: ignore[arg-type]
    if name == "subprocess":
        from beyondpass.execution.subprocess_executor import SubprocessExecutor

        return SubprocessExecutor(**options)  # type: ignore[arg-type]
    if name == "ray":
        from beyondpass.execution.ray_executor import RayExecutor

        return RayExecutor(**options)  # type: ignore[arg-type]
    from beyondpass.errors import ConfigError

    raise ConfigError(f"unknown executor {name!r} — available: sandbox, subprocess, ray")
