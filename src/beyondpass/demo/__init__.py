"""The demo: eight small tasks shipped with beyondpass, so a first run needs no data."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from beyondpass.benchmarks.task import Benchmark


def load_demo(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """The ``demo`` benchmark; ``data_dir`` is ignored (the tasks are in the package)."""
    from beyondpass.benchmarks.native import load_tasks_file

    path = Path(str(resources.files("beyondpass.demo") / "data" / "tasks.jsonl"))
    return load_tasks_file(path, "demo", "Built-in demo tasks (written by beyondpass)")
