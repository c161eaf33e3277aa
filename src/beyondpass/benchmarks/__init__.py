"""Benchmarks as data: loaders, each returning a :class:`Benchmark`, found in the registry.

``load_benchmark("humaneval")`` looks the name up in the registry
(``registry.find("benchmarks", name)``: core and methods' ``BenchmarkSpec``s alike);
``file:PATH.jsonl`` loads tasks in beyondpass's own format; a benchmark whose spec
``takes_argument`` is named ``NAME:ARGUMENT``. Known-broken upstream tasks are attached from
``task_notes.toml`` — they stay in the benchmark (never silently dropped) and are marked;
tasks whose reference is slow get a per-task timeout from the same file.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from dataclasses import replace
from importlib import resources
from pathlib import Path

from beyondpass import registry
from beyondpass.benchmarks.task import Benchmark, KnownBroken, Task, TestCase
from beyondpass.errors import ConfigError


def task_notes() -> dict[str, list[dict[str, object]]]:
    """The documented notes on upstream tasks: ``broken`` and ``slow`` entries."""
    text = (resources.files("beyondpass.benchmarks") / "task_notes.toml").read_text()
    return tomllib.loads(text)


def _apply_notes(bench: Benchmark, name: str) -> None:
    notes = task_notes()
    for entry in notes.get("broken", []):
        if entry["benchmark"] == name:
            tid = str(entry["task_id"])
            bench.known_broken[tid] = KnownBroken(tid, str(entry["reason"]))
    for entry in notes.get("slow", []):
        if entry["benchmark"] == name and entry["task_id"] in bench.tasks:
            task = bench.tasks[str(entry["task_id"])]
            meta = {**task.metadata, "timeout_s": float(entry["timeout_s"])}  # type: ignore[arg-type]
            bench.tasks[task.task_id] = replace(task, metadata=meta)


def load_benchmark(name: str, data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    if name.startswith("file:"):
        from beyondpass.benchmarks.native import load_tasks_file

        path = Path(name[5:]).expanduser()
        return load_tasks_file(path, path.stem)
    known = registry.named("benchmarks")
    base, colon, argument = name.partition(":")
    if colon and base in known and known[base][0].takes_argument:
        spec, owner = known[base]
        return registry.resolve(spec.loader, owner, needs_extra=False)(data_dir, argument)
    if name in known and known[name][0].takes_argument:
        raise ConfigError(f"benchmark {name!r} is named with its argument: {name}:ARGUMENT")
    if name not in known:
        raise ConfigError(
            f"unknown benchmark {name!r} — choose one of {', '.join(known)} "
            "(or file:PATH.jsonl for your own tasks)"
        )
    spec, owner = known[name]
    bench = registry.resolve(spec.loader, owner, needs_extra=False)(data_dir)
    _apply_notes(bench, name)
    return bench


#: set while only a benchmark's summary is wanted (``benchmarks list``): a loader may then
#: leave out tests it would have to generate (PSB2's random cases), keeping its name,
#: version, number of tasks, source, coverage and known-broken tasks exactly as they are
_SUMMARY_ONLY: ContextVar[bool] = ContextVar("beyondpass_summary_only", default=False)


def summary_only() -> bool:
    """Whether the benchmark being loaded is for its summary only (see ``load_summary``)."""
    return _SUMMARY_ONLY.get()


def load_summary(name: str, data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``load_benchmark`` for a listing: the same version, size, source, coverage and
    known-broken tasks, but possibly without generated tests; never run its tasks."""
    token = _SUMMARY_ONLY.set(True)
    try:
        return load_benchmark(name, data_dir)
    finally:
        _SUMMARY_ONLY.reset(token)


__all__ = [
    "Benchmark",
    "KnownBroken",
    "Task",
    "TestCase",
    "load_benchmark",
    "load_summary",
    "summary_only",
]
