"""The demo: small tasks and answers shipped with beyondpass, so a first run needs no data.

``data/`` is laid out like a data directory: ``tasks.jsonl`` (the ``demo`` benchmark, eight
well-known Python tasks), ``nfr-tasks.jsonl`` (``demo-nfr``) and one folder per method in
that method's own data format (``robustapi/``, ``psb2/``, ``nofuneval/``), which the method
loads with its own loader as its ``*-demo`` benchmark. ``study.toml`` is the demo study (one
arm per method) and ``answers-*.jsonl`` the answers of its two pretend models. Every task,
rule and answer there was written for the demo; none is real model output.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from beyondpass.benchmarks.task import Benchmark


def data_dir() -> Path:
    """The demo's data folder (where the methods' demo benchmarks read their files)."""
    return Path(str(resources.files("beyondpass.demo") / "data"))


def study_file() -> Path:
    """The demo study: every method on two pretend models whose answers are replayed."""
    return data_dir() / "study.toml"


def load_demo(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """The ``demo`` benchmark; ``data_dir`` is ignored (the tasks are in the package)."""
    return _load("tasks.jsonl", "demo", "Built-in demo tasks (written by beyondpass)")


def load_demo_nfr(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``demo-nfr``: four Python tasks where readability and error handling show (the demo's
    RobuNFR arm); ``data_dir`` is ignored."""
    return _load("nfr-tasks.jsonl", "demo-nfr", "Demo tasks for NFR prompts (written for the demo)")


def _load(file: str, name: str, description: str) -> Benchmark:
    from beyondpass.benchmarks.native import load_tasks_file

    return load_tasks_file(data_dir() / file, name, description)
