"""Whole-sandbox budgets: a cgroup per candidate sandbox with a process and memory ceiling.

rlimits bound one process; a fork bomb multiplies them. A cgroup bounds the whole candidate
sandbox (the fork server, the sample and anything it spawns): at most ``pids_max``
processes and ``memory_mb`` of memory, whatever the sample does. Creating cgroups needs
write access to the cgroup tree (root, or a delegated subtree); where there is none, the
executor falls back to ``RLIMIT_NPROC`` (which the kernel does not enforce for root) and
says so in the run's metadata.

Both layouts are handled: the unified v2 tree (``/sys/fs/cgroup/cgroup.controllers``) and
the v1 ``pids`` and ``memory`` hierarchies.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "beyondpass-"


def sweep_stale() -> None:
    """Remove empty budgets left by harness processes that were killed before cleaning up."""
    for parent in (ROOT, ROOT / "pids", ROOT / "memory"):
        if not _writable(parent):
            continue
        for path in parent.glob(f"{PREFIX}*"):
            owner = path.name[len(PREFIX) :].split("-", 1)[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    path.rmdir()


class SandboxBudget:
    """One cgroup (v2) or a pair of them (v1 ``pids`` + ``memory``) for one sandbox."""

    def __init__(self, dirs: list[tuple[Path, dict[str, str]]], layout: str) -> None:
        self.dirs = dirs
        self.layout = layout

    def attach(self, pid: int) -> None:
        for path, _ in self.dirs:
            (path / "cgroup.procs").write_text(str(pid))

    def close(self) -> None:
        for path, _ in self.dirs:
            with contextlib.suppress(OSError):
                path.rmdir()


def layout() -> str:
    """``v2``, ``v1`` or ``none``: where a budget can be created by this process."""
    if _v2_parent() is not None:
        return "v2"
    if all(_writable(ROOT / c) for c in ("pids", "memory")):
        return "v1"
    return "none"


def create_budget(pids_max: int, memory_mb: int) -> SandboxBudget | None:
    """A fresh budget, or ``None`` when this machine does not let us create cgroups."""
    sweep_stale()
    name = f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    mem = str(memory_mb << 20)
    try:
        parent = _v2_parent()
        if parent is not None:
            path = parent / name
            settings = {"pids.max": str(pids_max), "memory.max": mem, "memory.swap.max": "0"}
            return _make([(path, settings)], "v2")
        if all(_writable(ROOT / c) for c in ("pids", "memory")):
            return _make(
                [
                    (ROOT / "pids" / name, {"pids.max": str(pids_max)}),
                    (ROOT / "memory" / name, {"memory.limit_in_bytes": mem}),
                ],
                "v1",
            )
    except OSError:
        return None
    return None


def _make(dirs: list[tuple[Path, dict[str, str]]], kind: str) -> SandboxBudget:
    made: list[tuple[Path, dict[str, str]]] = []
    try:
        for path, settings in dirs:
            path.mkdir()
            made.append((path, settings))
            for key, value in settings.items():
                target = path / key
                if target.exists():
                    target.write_text(value)
    except OSError:
        SandboxBudget(made, kind).close()
        raise
    return SandboxBudget(made, kind)


def _v2_parent() -> Path | None:
    """The v2 root when it is ours to write and has the pids and memory controllers."""
    controllers = ROOT / "cgroup.controllers"
    if not controllers.is_file() or not _writable(ROOT):
        return None
    available = set(controllers.read_text().split())
    if not {"pids", "memory"} <= available:
        return None
    enabled = set((ROOT / "cgroup.subtree_control").read_text().split())
    # the machine's cgroup configuration is not ours to change: use it only as it is
    return ROOT if {"pids", "memory"} <= enabled else None


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)
