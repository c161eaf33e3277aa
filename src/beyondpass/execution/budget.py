"""Which process and memory budget binds a sandbox here, checked rather than assumed.

Every sandbox (a worker's judge and its candidate fork server, with every sample, compiler
and JVM they start) gets a budget. The mechanisms, in order of preference:

``cgroup``
    a cgroup per sandbox (:mod:`beyondpass.execution.cgroups`), joined before the sandbox
    starts: a ceiling on tasks and memory for the whole sandbox. Used only after a probe
    has shown that a process forked inside a sandbox is counted by its budget.
``enclosing``
    the cgroup this process already runs in — a container's or a service's — when it sets
    a task and a memory limit no larger than :data:`ENCLOSING_MAX_TASKS` and the machine's
    memory: the whole run, harness included, stays within them. For root where the cgroup
    tree cannot be written (a default container): nothing can be created, but the runtime's
    limits hold. Used only after a probe has shown that a sandbox's processes are in it.
``nproc``
    ``RLIMIT_NPROC`` on every sandbox: the kernel counts every process of the user
    against it, and does not enforce it for root, so it binds only for a non-root user.
``none``
    nothing bounds the processes a sample forks. Only when the user says so
    (``--process-budget none``); recorded in the run.

``auto`` takes the first that binds and refuses to run untrusted code when none does.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution import cgroups
from beyondpass.execution.sandbox import Joinable, SandboxSpec, command

#: What bounds a sandbox's processes and memory (docs/sandbox.md)
PROCESS_BUDGETS = ("auto", "cgroup", "enclosing", "nproc", "none")
#: Tasks (processes and threads) in one candidate sandbox: the fork server, a sample and
#: what it starts; a JVM or javac alone runs about 25 threads on two cores.
CANDIDATE_TASKS = 128
#: Tasks in one judge sandbox: the judge interpreter and its threads.
JUDGE_TASKS = 32
JUDGE_MEMORY_MB = 2048
NPROC_HEADROOM = 256  # RLIMIT_NPROC above the user's current processes
#: The most tasks an enclosing cgroup may allow and still count as a budget: beyond it, a
#: fork bomb could still exhaust the machine's process table for its neighbours.
ENCLOSING_MAX_TASKS = 4096
PROBE_TIMEOUT_S = 30.0
#: Forks two children that stay alive until told; prints the sandbox's view of its pids.
PROBE_PROGRAM = (
    "import os, sys\n"
    "kids = [os.fork() for _ in range(2)]\n"
    "if 0 in kids:\n"
    "    sys.stdin.read(); os._exit(0)\n"
    "print('forked', flush=True)\n"
    "sys.stdin.read()\n"
    "for k in kids: os.waitpid(k, 0)\n"
)


@dataclass(frozen=True)
class ProcessBudget:
    """What bounds a sandbox's processes and memory in this run (recorded with it)."""

    mechanism: str  # "cgroup", "enclosing", "nproc" or "none"
    layout: str = ""  # cgroup "v1"/"v2"
    candidate_tasks: int = CANDIDATE_TASKS
    memory_mb: int = 0
    judge_tasks: int = JUDGE_TASKS
    judge_memory_mb: int = JUDGE_MEMORY_MB
    controllers: tuple[str, ...] = ()
    verified: str = ""  # how the probe showed that it binds
    accepted_by_user: bool = False
    #: ``enclosing``: the cgroup(s) of the run, controller -> path ("" on v2)
    cgroups: dict[str, str] | None = None
    #: ``enclosing``: the cgroup itself, read to see when the shared budget ran out
    enclosure: cgroups.Enclosing | None = field(default=None, compare=False, repr=False)

    def describe(self) -> dict[str, Any]:
        """The run metadata's ``process_budget``: what really holds, in words and numbers."""
        if self.mechanism == "cgroup":
            text = (
                f"cgroup {self.layout} ({', '.join(self.controllers)}) per sandbox, joined "
                f"before it starts: at most {self.candidate_tasks} tasks and "
                f"{self.memory_mb} MB per candidate sandbox, {self.judge_tasks} tasks and "
                f"{self.judge_memory_mb} MB per judge sandbox"
            )
        elif self.mechanism == "enclosing":
            where = ", ".join(f"{c or 'unified'} {p}" for c, p in (self.cgroups or {}).items())
            text = (
                f"the enclosing cgroup {self.layout} ({where}), set by the container or "
                f"service this runs in: at most {self.candidate_tasks} tasks and "
                f"{self.memory_mb} MB for the whole run, the harness included"
            )
        elif self.mechanism == "nproc":
            text = (
                "RLIMIT_NPROC on every sandbox: the user's processes at start plus "
                f"{NPROC_HEADROOM}; memory per process only (RLIMIT_AS)"
            )
        else:
            text = (
                "none: a sample's processes are not bounded (accepted with --process-budget none)"
            )
        own = self.mechanism == "cgroup"
        record = {
            "mechanism": self.mechanism,
            "layout": self.layout,
            "controllers": list(self.controllers),
            "candidate_tasks": self.candidate_tasks if own else None,
            "candidate_memory_mb": self.memory_mb if own else None,
            "judge_tasks": self.judge_tasks if own else None,
            "judge_memory_mb": self.judge_memory_mb if own else None,
            "verified": self.verified,
            "accepted_by_user": self.accepted_by_user,
            "summary": text,
        }
        if self.mechanism == "enclosing":
            record.update(
                cgroups=dict(self.cgroups or {}),
                run_tasks=self.candidate_tasks,
                run_memory_mb=self.memory_mb,
            )
        return record


def choose_budget(requested: str, level: str, memory_mb: int) -> ProcessBudget:
    """The budget for sandboxes at isolation ``level``; a ConfigError when what was asked
    for (or, for ``auto``, anything) cannot bind here."""
    if requested not in PROCESS_BUDGETS:
        raise ConfigError(
            f"unknown process budget {requested!r} — choose {', '.join(PROCESS_BUDGETS)}"
        )
    if requested == "none":
        return ProcessBudget("none", accepted_by_user=True)
    why_not: list[str] = []
    if requested in ("auto", "cgroup"):
        found = cgroup_budget(level, memory_mb, str(cgroups.root()))
        if isinstance(found, ProcessBudget):
            return found
        if requested == "cgroup":
            raise ConfigError(f"no cgroup budget here: {found} — or use --process-budget auto")
        why_not.append(found)
    root = os.getuid() == 0
    if requested == "nproc" or (requested == "auto" and not root):
        if root:
            raise ConfigError(
                "RLIMIT_NPROC does not bind for root — use --process-budget auto, or run as "
                "a non-root user"
            )
        return ProcessBudget(
            "nproc", verified="the kernel enforces RLIMIT_NPROC for non-root users"
        )
    found = enclosing_budget(level, str(cgroups.root()))
    if isinstance(found, ProcessBudget):
        return found
    if requested == "enclosing":
        raise ConfigError(f"no enclosing budget here: {found} — or use --process-budget auto")
    why_not += [found, "RLIMIT_NPROC does not bind for root"]
    raise ConfigError(
        f"no process budget binds here ({'; '.join(why_not)}): a fork bomb could flood the "
        f"machine — in a container, start it with a limit (docker run --pids-limit "
        f"{ENCLOSING_MAX_TASKS} --memory 8g), run as a non-root user or as root with a "
        "writable cgroup tree, or accept it with --process-budget none"
    )


@functools.cache
def cgroup_budget(level: str, memory_mb: int, mount: str) -> ProcessBudget | str:
    """A verified cgroup budget for ``level`` under the cgroup ``mount``, or why there is
    none (probed once per process and configuration)."""
    found = cgroups.layout()
    if found == "none":
        return "this process cannot create cgroups (needs root or a delegated cgroup subtree)"
    budget = cgroups.create_budget(CANDIDATE_TASKS, memory_mb)
    if budget is None:
        return f"creating a cgroup under {cgroups.root()} failed"
    try:
        verified = _probe(level, budget, lambda tree: tree - budget.members(), budget.tasks)
    finally:
        budget.close()
    if verified.startswith("no:"):
        return f"the cgroup budget does not hold ({verified[3:].strip()})"
    return ProcessBudget(
        "cgroup",
        layout=budget.layout,
        memory_mb=memory_mb,
        controllers=tuple(budget.controllers),
        verified=f"probe: all {verified} were members",
    )


@functools.cache
def enclosing_budget(level: str, mount: str) -> ProcessBudget | str:
    """The cgroup this process runs in as the run's budget, verified, or why it is none:
    both a task and a memory limit, neither beyond its ceiling (probed once per process and
    cgroup ``mount``)."""
    found = cgroups.enclosing()
    if isinstance(found, str):
        return found
    where = ", ".join(f"{c or 'unified'} {p}" for c, p in found.paths.items())
    machine = _machine_memory()
    if found.pids_max is None:
        return f"its own cgroup ({where}) sets no task limit (pids.max)"
    if found.pids_max > ENCLOSING_MAX_TASKS:
        return (
            f"its own cgroup ({where}) allows {found.pids_max} tasks, more than "
            f"{ENCLOSING_MAX_TASKS}"
        )
    if found.memory_max is None or (machine and found.memory_max > machine):
        return f"its own cgroup ({where}) sets no memory limit below the machine's memory"
    paths = found.paths

    def outside(tree: set[int]) -> set[int]:
        return {pid for pid in tree if not cgroups.within(pid, paths)}

    verified = _probe(level, None, outside, found.tasks)
    if verified.startswith("no:"):
        return f"its own cgroup ({where}) does not hold ({verified[3:].strip()})"
    return ProcessBudget(
        "enclosing",
        layout=found.layout,
        candidate_tasks=found.pids_max,
        memory_mb=found.memory_max >> 20,
        controllers=tuple(c or "unified" for c in paths),
        verified=f"probe: all {verified} were inside it",
        cgroups=dict(paths),
        enclosure=found,
    )


def _machine_memory() -> int:
    """The machine's memory in bytes (0: unknown)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0


def _probe(
    level: str,
    budget: Joinable | None,
    outside: Callable[[set[int]], set[int]],
    tasks: Callable[[], int],
) -> str:
    """Start a sandbox at ``level`` (joining ``budget``), fork in it, and check from outside
    that no process of it is ``outside`` the budget and ``tasks`` counts them all: what
    was seen, or ``no: ...``."""
    with tempfile.TemporaryDirectory(prefix="beyondpass-probe-") as scratch:
        spec = SandboxSpec(
            (sys.executable, "-s", "-P", "-c", PROBE_PROGRAM),
            scratch=scratch,
            scratch_mb=16,
            budget=budget,
        )
        try:
            proc = command(level, spec).popen(
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            return f"no: the probe did not start ({exc})"
        try:
            assert proc.stdout is not None and proc.stdin is not None
            line = _read_line(proc, PROBE_TIMEOUT_S)
            if line != "forked":
                return f"no: the probe sandbox did not run (exit {proc.poll()})"
            tree = descendants(proc.pid) | {proc.pid}
            left_out = outside(tree)
            if left_out:
                return f"no: {len(left_out)} of the probe's {len(tree)} processes are outside it"
            counted = tasks()
            if counted < len(tree):
                return f"no: it counts {counted} tasks for {len(tree)} processes"
            return f"{len(tree)} processes of a sandbox that forked twice ({counted} tasks counted)"
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, 9)
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def _read_line(proc: subprocess.Popen[bytes], timeout_s: float) -> str:
    import selectors

    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout_s):
            return ""
    return proc.stdout.readline().decode(errors="replace").strip()


def state_and_parent(pid: int | str) -> tuple[str, int] | None:
    """Process ``pid``'s state letter (``Z``: exited, not yet collected) and parent, from
    ``/proc/<pid>/stat``; ``None`` once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rindex(b")") + 2 :].split()  # the name may hold spaces and ")"
        return fields[0].decode(), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (host view), from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        found_here = state_and_parent(entry)
        if found_here is not None:
            children.setdefault(found_here[1], []).append(int(entry))
    found: set[int] = set()
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def nproc_limit() -> int | None:
    """RLIMIT_NPROC for a sample: the user's current process count plus headroom.

    The limit counts every process of the user, so it is set relative to what runs now.
    """
    if os.getuid() == 0:
        return None
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
    return count + NPROC_HEADROOM


class ProcessLimit:
    """``RLIMIT_NPROC`` for a whole sandbox, set by a small launcher before it ``exec``s the
    sandbox (inherited by all it starts): the kernel counts every process of the user
    against it (not for root)."""

    def __init__(self, processes: int) -> None:
        self.processes = processes

    def wrap(self, command: list[str]) -> list[str]:
        # not ``ulimit``: its flag for processes differs between shells (dash -p, bash -u)
        return [sys.executable, "-I", "-S", "-c", _NPROC_SCRIPT, str(self.processes), *command]


#: sets the limit (never above a hard limit already lower: that one binds first), then
#: becomes the sandbox
_NPROC_SCRIPT = (
    "import os, resource, sys\n"
    "n = int(sys.argv[1])\n"
    "hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]\n"
    "if hard != resource.RLIM_INFINITY:\n"
    "    n = min(n, hard)\n"
    "resource.setrlimit(resource.RLIMIT_NPROC, (n, n))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)
