"""Where generated code runs: the executor, isolation, process budget and Ray address a
caller names, over what a study declares.

The command line's ``--executor``, ``--isolation``, ``--process-budget`` and
``--ray-address`` and the Python API's keyword arguments of the same names become one
:class:`~beyondpass.execution.ExecutorChoice` here, so both override a study the same way:
field by field, and only how code runs, never what is measured.
"""

from __future__ import annotations

from beyondpass.execution import ExecutorChoice


def executor_choice(
    executor: str | None,
    isolation: str | None,
    ray_address: str | None,
    default: ExecutorChoice | None = None,
    process_budget: str | None = None,
) -> ExecutorChoice | None:
    """The caller's choice over the study's (``default``); ``default`` when nothing was
    given. Unknown names are refused by :class:`ExecutorChoice` in one line."""
    if executor is None and isolation is None and ray_address is None and process_budget is None:
        return default
    base = default or ExecutorChoice()
    name = executor or ("ray" if ray_address else base.name)
    if ray_address is None and name == "ray":
        ray_address = base.ray_address  # the study's address, unless the caller names one
    return ExecutorChoice(
        name=name,
        isolation=isolation or base.isolation,
        ray_address=ray_address,
        process_budget=process_budget or base.process_budget,
    )


__all__ = ["executor_choice"]
