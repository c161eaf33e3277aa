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
    "create_executor",
]


def create_executor(name: str = "subprocess", **options: object) -> Executor:
    """Build an executor by name; heavier executors are imported only when asked for."""
    if name == "subprocess":
        from beyondpass.execution.subprocess_executor import SubprocessExecutor

        return SubprocessExecutor(**options)  # type: ignore[arg-type]
    from beyondpass.errors import ConfigError

    raise ConfigError(f"unknown executor {name!r} — available: subprocess")
