"""Whole-sandbox budgets: a cgroup per sandbox with a process and memory ceiling.

rlimits bound one process; a fork bomb multiplies them. A cgroup bounds a whole sandbox
(the fork server, the sample and anything it spawns: compilers, JVMs, daemons): at most
``pids_max`` tasks (processes and threads) and ``memory_mb`` of memory, whatever the
sample does. Where the ``cpu`` controller can be used too, each sandbox is its own CPU
group, so a sandbox full of busy processes weighs on the scheduler as one.

A sandbox is inside its budget from its first instruction: the launcher is wrapped in a
tiny shell that writes its own pid into the budget and only then ``exec``s the sandbox
(:meth:`SandboxBudget.wrap`), so nothing it forks can start outside. Creating cgroups
needs write access to the cgroup tree (root, or a delegated subtree); whether one can be
made, and whether it really counts what the sandbox forks, is decided by
:mod:`beyondpass.execution.budget`, never assumed.

Both layouts are handled: the unified v2 tree (``/sys/fs/cgroup/cgroup.controllers``) and
the v1 ``pids``, ``memory`` (and ``cpu``) hierarchies. ``BEYONDPASS_CGROUP_ROOT`` points
at another cgroup mount (an empty directory: no cgroups), to test the fallback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

PREFIX = "beyondpass-"
#: Joins the budget(s) named before ``--``, then becomes the command after it: every
#: process the command starts is born inside. Exit 125: the budget could not be joined.
JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
CLOSE_PATIENCE_S = 5.0


def root() -> Path:
    """The cgroup mount this process manages budgets under."""
    return Path(os.environ.get("BEYONDPASS_CGROUP_ROOT", "/sys/fs/cgroup"))


def sweep_stale() -> None:
    """Remove budgets left by harness processes that were killed before cleaning up."""
    base = root()
    for parent in (base, base / "pids", base / "memory", base / "cpu"):
        if not _writable(parent):
            continue
        for path in parent.glob(f"{PREFIX}*"):
            owner = path.name[len(PREFIX) :].split("-", 1)[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                _kill_members(path)
                with contextlib.suppress(OSError):
                    path.rmdir()


class SandboxBudget:
    """One cgroup (v2) or one per hierarchy (v1 ``pids``, ``memory``, maybe ``cpu``)."""

    def __init__(self, dirs: list[Path], layout: str, pids_max: int, memory_mb: int) -> None:
        self.dirs = dirs
        self.layout = layout
        self.pids_max = pids_max
        self.memory_mb = memory_mb

    @property
    def counter(self) -> Path:
        """The cgroup whose ``pids.current`` counts the sandbox's tasks."""
        return next(d for d in self.dirs if (d / "pids.current").exists())

    @property
    def controllers(self) -> list[str]:
        if self.layout == "v2":
            return ["pids", "memory", *(["cpu"] if (self.dirs[0] / "cpu.weight").exists() else [])]
        return [d.parent.name for d in self.dirs]

    def wrap(self, command: list[str]) -> list[str]:
        """``command``, started inside this budget from its first instruction."""
        procs = [str(d / "cgroup.procs") for d in self.dirs]
        return ["/bin/sh", "-c", JOIN_SCRIPT, "join-budget", *procs, "--", *command]

    def members(self) -> set[int]:
        """The pids (host namespace) of every process in the budget now."""
        try:
            text = (self.counter / "cgroup.procs").read_text()
        except OSError:
            return set()
        return {int(line) for line in text.split()}

    def tasks(self) -> int:
        """Tasks (processes and threads) the budget counts now."""
        return tasks_in(self.counter)

    def kill(self) -> None:
        """Kill every process inside (the sandbox's own and any that left its session)."""
        for path in self.dirs:
            _kill_members(path)

    def close(self) -> None:
        """Kill whatever is still inside, then remove the cgroups."""
        self.kill()
        for path in self.dirs:
            with contextlib.suppress(OSError):
                path.rmdir()


def layout() -> str:
    """``v2``, ``v1`` or ``none``: where a budget can be created by this process."""
    if _v2_parent() is not None:
        return "v2"
    if all(_writable(root() / c) for c in ("pids", "memory")):
        return "v1"
    return "none"


def create_budget(pids_max: int, memory_mb: int) -> SandboxBudget | None:
    """A fresh budget, or ``None`` when this machine does not let us create cgroups."""
    sweep_stale()
    name = f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    mem = str(memory_mb << 20)
    base = root()
    try:
        parent = _v2_parent()
        if parent is not None:
            settings = {"pids.max": str(pids_max), "memory.max": mem, "memory.swap.max": "0"}
            return _make([(parent / name, settings)], "v2", pids_max, memory_mb)
        if all(_writable(base / c) for c in ("pids", "memory")):
            dirs = [
                (base / "pids" / name, {"pids.max": str(pids_max)}),
                # memsw after the plain limit: it may never be below it
                (
                    base / "memory" / name,
                    {"memory.limit_in_bytes": mem, "memory.memsw.limit_in_bytes": mem},
                ),
            ]
            if _writable(base / "cpu"):  # a CPU group of its own: fairness, no quota
                dirs.append((base / "cpu" / name, {}))
            return _make(dirs, "v1", pids_max, memory_mb)
    except OSError:
        return None
    return None


def _make(
    dirs: list[tuple[Path, dict[str, str]]], kind: str, pids_max: int, memory_mb: int
) -> SandboxBudget:
    made: list[Path] = []
    try:
        for path, settings in dirs:
            path.mkdir()
            made.append(path)
            for key, value in settings.items():
                target = path / key
                if target.exists():
                    target.write_text(value)
    except OSError:
        SandboxBudget(made, kind, pids_max, memory_mb).close()
        raise
    return SandboxBudget(made, kind, pids_max, memory_mb)


def _kill_members(path: Path) -> None:
    """SIGKILL every process of a cgroup until it is empty (or patience runs out).

    v2 has ``cgroup.kill``; on v1 a process may fork between the read and the kill, so the
    list is read again until nothing is left.
    """
    kill = path / "cgroup.kill"
    if kill.exists():
        with contextlib.suppress(OSError):
            kill.write_text("1")
    deadline = time.monotonic() + CLOSE_PATIENCE_S
    while time.monotonic() < deadline:
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _v2_parent() -> Path | None:
    """The v2 root when it is ours to write and has the pids and memory controllers."""
    base = root()
    controllers = base / "cgroup.controllers"
    if not controllers.is_file() or not _writable(base):
        return None
    available = set(controllers.read_text().split())
    if not {"pids", "memory"} <= available:
        return None
    enabled = set((base / "cgroup.subtree_control").read_text().split())
    # the machine's cgroup configuration is not ours to change: use it only as it is
    return base if {"pids", "memory"} <= enabled else None


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


# -- the cgroup this process already runs in (a container's, a service's) -------------------

#: v1 ``memory.limit_in_bytes`` reads as a huge number when nothing is set
_V1_UNLIMITED = 1 << 60


@dataclass(frozen=True)
class Enclosing:
    """The cgroup this process runs in, as it bounds tasks and memory: the tightest limits
    on the way up from it to the top of what is mounted here (``None``: unlimited)."""

    layout: str  # "v1" or "v2"
    #: controller -> the cgroup's path as ``/proc/<pid>/cgroup`` names it ("" on v2)
    paths: dict[str, str]
    pids_max: int | None
    memory_max: int | None  # bytes
    counter: Path  # the directory whose ``pids.current`` counts its tasks
    #: the task and the memory cgroup directories from this process's up to the mount's top
    pids_dirs: tuple[Path, ...] = ()
    memory_dirs: tuple[Path, ...] = ()

    def tasks(self) -> int:
        return tasks_in(self.counter)

    def limits_met(self) -> int:
        """How often a limit on the way up has been met so far: forks the task limit refused
        and processes killed at the memory limit. The budget is shared by every sandbox of
        the run, so a change while a sample ran means a neighbour may have starved it."""
        met = sum(_event(d / "pids.events", "max") for d in self.pids_dirs)
        events = "memory.events" if self.layout == "v2" else "memory.oom_control"
        return met + sum(_event(d / events, "oom_kill") for d in self.memory_dirs)


def tasks_in(cgroup: Path) -> int:
    """The tasks (processes and threads) cgroup ``cgroup``'s ``pids.current`` counts now."""
    try:
        return int((cgroup / "pids.current").read_text())
    except (OSError, ValueError):
        return 0


def _event(path: Path, name: str) -> int:
    """The counter ``name`` of a flat-keyed cgroup file (``pids.events``, ...); 0 if absent."""
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    return 0


def enclosing() -> Enclosing | str:
    """The cgroup this process runs in with its limits, or why it cannot be read."""
    mounted = _mounts()
    own = own_paths("self")
    if "" in mounted and {"pids", "memory"} <= _controllers(mounted[""][1]):
        dirs = {"": _resolve(mounted[""], own.get(""))}
        layout = "v2"
    elif "pids" in mounted and "memory" in mounted:
        dirs = {c: _resolve(mounted[c], own.get(c)) for c in ("pids", "memory")}
        layout = "v1"
    else:
        return "no cgroup hierarchy with the pids and memory controllers is mounted"
    missing = [c or "unified" for c, d in dirs.items() if d is None]
    if missing:
        return f"this process's {', '.join(missing)} cgroup is not visible under {root()}"
    found = {c: d for c, d in dirs.items() if d is not None}
    if layout == "v2":
        pids_dirs = memory_dirs = _upward(found[""], mounted[""][1])
        pids = _tightest(pids_dirs, "pids.max")
        memory = _tightest(memory_dirs, "memory.max")
    else:
        pids_dirs = _upward(found["pids"], mounted["pids"][1])
        memory_dirs = _upward(found["memory"], mounted["memory"][1])
        pids = _tightest(pids_dirs, "pids.max")
        memory = _tightest(memory_dirs, "memory.limit_in_bytes")
    paths = {c: own[c] for c in found}
    return Enclosing(layout, paths, pids, memory, pids_dirs[0], pids_dirs, memory_dirs)


def own_paths(pid: int | str) -> dict[str, str]:
    """``/proc/<pid>/cgroup``: controller (``pids``, ``memory``; ``""`` for v2) -> path."""
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return {}
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            paths[controller] = parts[2]
    return paths


def within(pid: int, paths: dict[str, str]) -> bool:
    """Whether process ``pid`` is in the cgroups ``paths`` (controller -> path) or below."""
    now = own_paths(pid)
    for controller, path in paths.items():
        there = now.get(controller)
        if there is None:
            return False
        top = path.rstrip("/")
        if not (there == path or there.startswith(top + "/")):
            return False
    return True


def _mounts() -> dict[str, tuple[str, Path]]:
    """controller (``""``: the unified v2 tree) -> (the mount's root in the hierarchy, where
    it is mounted). ``BEYONDPASS_CGROUP_ROOT`` stands for the whole cgroup mount."""
    base = root()
    if "BEYONDPASS_CGROUP_ROOT" in os.environ or not Path("/proc/self/mountinfo").exists():
        if (base / "cgroup.controllers").is_file():
            return {"": ("/", base)}
        return {c: ("/", base / c) for c in ("pids", "memory") if (base / c).is_dir()}
    found: dict[str, tuple[str, Path]] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mount_root, point = fields[3], Path(fields[4].replace("\\040", " "))
        if tail[0] == "cgroup2":
            found.setdefault("", (mount_root, point))
        elif tail[0] == "cgroup":
            for option in tail[2].split(","):
                if option in ("pids", "memory"):
                    found.setdefault(option, (mount_root, point))
    return found


def _controllers(mount: Path) -> set[str]:
    try:
        return set((mount / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def _resolve(mount: tuple[str, Path], path: str | None) -> Path | None:
    """The directory of cgroup ``path`` under a mount of the hierarchy's ``mount[0]``."""
    if path is None:
        return None
    mount_root, point = mount
    top = mount_root.rstrip("/")
    if not (path == mount_root or path.startswith(top + "/")):
        return None  # the process is outside what this mount shows
    where = point / path[len(top) :].lstrip("/")
    return where if where.is_dir() else None


def _upward(start: Path, top: Path) -> tuple[Path, ...]:
    """``start`` and each cgroup above it, up to ``top`` (the mount's root)."""
    dirs = [start]
    while dirs[-1] != top and dirs[-1].parent != dirs[-1]:
        dirs.append(dirs[-1].parent)
    return tuple(dirs)


def _tightest(dirs: tuple[Path, ...], name: str) -> int | None:
    """The smallest limit ``name`` among the cgroups ``dirs`` (``None``: none set)."""
    limits = []
    for here in dirs:
        with contextlib.suppress(OSError, ValueError):
            text = (here / name).read_text().strip()
            if text != "max" and int(text) < _V1_UNLIMITED:
                limits.append(int(text))
    return min(limits) if limits else None
