"""Benchmarks as data: a registry of loaders, each returning a :class:`Benchmark`.

``load_benchmark("humaneval")`` looks the name up here; ``file:PATH.jsonl`` loads tasks in
beyondpass's own format. Known-broken upstream tasks are attached from
``task_notes.toml`` — they stay in the benchmark (never silently dropped) and are marked;
tasks whose reference is slow get a per-task timeout from the same file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Benchmark, KnownBroken, Task, TestCase
from beyondpass.errors import ConfigError

Loader = Callable[[str | os.PathLike[str] | None], Benchmark]


def _humaneval(d: str | os.PathLike[str] | None) -> Benchmark:
    from beyondpass.benchmarks.humaneval import load_humaneval

    return load_humaneval(d)


def _humaneval_et(d: str | os.PathLike[str] | None) -> Benchmark:
    from beyondpass.benchmarks.humaneval import load_humaneval_et

    return load_humaneval_et(d)


def _mbpp(d: str | os.PathLike[str] | None) -> Benchmark:
    from beyondpass.benchmarks.mbpp import load_mbpp

    return load_mbpp(d)


def _mbpp_et(d: str | os.PathLike[str] | None) -> Benchmark:
    from beyondpass.benchmarks.mbpp import load_mbpp_et

    return load_mbpp_et(d)


def _demo(_: str | os.PathLike[str] | None) -> Benchmark:
    from beyondpass.benchmarks.native import load_tasks_file

    path = Path(str(resources.files("beyondpass.demo") / "data" / "tasks.jsonl"))
    return load_tasks_file(path, "demo", "Built-in demo tasks (written by beyondpass)")


#: name -> (loader, one-line description): the benchmarks several methods share
CORE: dict[str, tuple[Loader, str]] = {
    "humaneval": (_humaneval, "HumanEval, 164 Python function-completion tasks"),
    "humaneval-et": (_humaneval_et, "HumanEval with ~100 extended tests per task"),
    "mbpp": (_mbpp, "MBPP sanitized, 427 Python tasks from prose"),
    "mbpp-et": (_mbpp_et, "MBPP-ET: 397 sanitized MBPP tasks with ~100 extended tests"),
}
_DEMO = (_demo, "8 small tasks shipped with beyondpass for the demo (no data needed)")


def _method_loader(spec: Any, owner: Any) -> Loader:
    def load(d: str | os.PathLike[str] | None) -> Benchmark:
        from beyondpass import registry

        return registry.resolve(spec.loader, owner, needs_extra=False)(d)

    return load


def benchmark_registry() -> dict[str, tuple[Loader, str]]:
    """Every benchmark by name: the shared ones, those the methods bring, then the demo."""
    from beyondpass import registry

    out = dict(CORE)
    for name, (spec, owner) in registry.benchmarks().items():
        out.setdefault(name, (_method_loader(spec, owner), spec.description))
    out["demo"] = _DEMO
    return out


class _Registry(Mapping[str, tuple[Loader, str]]):
    """``REGISTRY``: a live view of :func:`benchmark_registry` (methods register late)."""

    def __getitem__(self, name: str) -> tuple[Loader, str]:
        return benchmark_registry()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(benchmark_registry())

    def __len__(self) -> int:
        return len(benchmark_registry())


REGISTRY: Mapping[str, tuple[Loader, str]] = _Registry()


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
    try:
        loader, _ = REGISTRY[name]
    except KeyError:
        raise ConfigError(
            f"unknown benchmark {name!r} — choose one of {', '.join(REGISTRY)} "
            "(or file:PATH.jsonl for your own tasks)"
        ) from None
    bench = loader(data_dir)
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
    "REGISTRY",
    "Benchmark",
    "KnownBroken",
    "Task",
    "TestCase",
    "load_benchmark",
    "load_summary",
    "summary_only",
]
