"""Which process and memory budget binds a sandbox here, checked rather than assumed.

Every sandbox (a worker's judge and its candidate fork server, with every sample, compiler
and JVM they start) gets a budget. The mechanisms, in order of preference:

``cgroup``
    a cgroup per sandbox (:mod:`beyondpass.execution.cgroups`), joined before the sandbox
    starts: a ceiling on tasks and memory for the whole sandbox. Used only after a probe
    has shown that a process forked inside a sandbox is counted by its budget.
``nproc``
    ``RLIMIT_NPROC`` on the sample's process: the kernel counts every process of the user
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
from dataclasses import dataclass
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution import cgroups

#: What bounds a sandbox's processes and memory (docs/sandbox.md)
PROCESS_BUDGETS = ("auto", "cgroup", "nproc", "none")
#: Tasks (processes and threads) in one candidate sandbox: the fork server, a sample and
#: what it starts; a JVM or javac alone runs about 25 threads on two cores.
CANDIDATE_TASKS = 128
#: Tasks in one judge sandbox: the judge interpreter and its threads.
JUDGE_TASKS = 32
JUDGE_MEMORY_MB = 2048
NPROC_HEADROOM = 256  # RLIMIT_NPROC above the user's current processes
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

    mechanism: str  # "cgroup", "nproc" or "none"
    layout: str = ""  # cgroup "v1"/"v2"
    candidate_tasks: int = CANDIDATE_TASKS
    memory_mb: int = 0
    judge_tasks: int = JUDGE_TASKS
    judge_memory_mb: int = JUDGE_MEMORY_MB
    controllers: tuple[str, ...] = ()
    verified: str = ""  # how the probe showed that it binds
    accepted_by_user: bool = False

    def describe(self) -> dict[str, Any]:
        """The run metadata's ``process_budget``: what really holds, in words and numbers."""
        if self.mechanism == "cgroup":
            text = (
                f"cgroup {self.layout} ({', '.join(self.controllers)}) per sandbox, joined "
                f"before it starts: at most {self.candidate_tasks} tasks and "
                f"{self.memory_mb} MB per candidate sandbox, {self.judge_tasks} tasks and "
                f"{self.judge_memory_mb} MB per judge sandbox"
            )
        elif self.mechanism == "nproc":
            text = (
                "RLIMIT_NPROC on every sample: the user's processes at start plus "
                f"{NPROC_HEADROOM}; memory per process only (RLIMIT_AS)"
            )
        else:
            text = (
                "none: a sample's processes are not bounded (accepted with --process-budget none)"
            )
        return {
            "mechanism": self.mechanism,
            "layout": self.layout,
            "controllers": list(self.controllers),
            "candidate_tasks": self.candidate_tasks if self.mechanism == "cgroup" else None,
            "candidate_memory_mb": self.memory_mb if self.mechanism == "cgroup" else None,
            "judge_tasks": self.judge_tasks if self.mechanism == "cgroup" else None,
            "judge_memory_mb": self.judge_memory_mb if self.mechanism == "cgroup" else None,
            "verified": self.verified,
            "accepted_by_user": self.accepted_by_user,
            "summary": text,
        }


def choose_budget(requested: str, level: str, memory_mb: int) -> ProcessBudget:
    """The budget for sandboxes at isolation ``level``; a ConfigError when what was asked
    for (or, for ``auto``, anything) cannot bind here."""
    if requested not in PROCESS_BUDGETS:
        raise ConfigError(
            f"unknown process budget {requested!r} — choose {', '.join(PROCESS_BUDGETS)}"
        )
    if requested == "none":
        return ProcessBudget("none", accepted_by_user=True)
    why_not_cgroup = ""
    if requested in ("auto", "cgroup"):
        found = cgroup_budget(level, memory_mb, str(cgroups.root()))
        if isinstance(found, ProcessBudget):
            return found
        why_not_cgroup = found
        if requested == "cgroup":
            raise ConfigError(
                f"no cgroup budget here: {why_not_cgroup} — or use --process-budget auto"
            )
    if os.getuid() != 0:
        return ProcessBudget(
            "nproc", verified="the kernel enforces RLIMIT_NPROC for non-root users"
        )
    reason = "RLIMIT_NPROC does not bind for root"
    if why_not_cgroup:
        reason = f"{why_not_cgroup}, and {reason}"
    raise ConfigError(
        f"no process budget binds here ({reason}): a fork bomb could flood the machine — run "
        "as root with a writable cgroup tree, as a non-root user, or accept it with "
        "--process-budget none"
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
        verified = _probe(budget, level)
    finally:
        budget.close()
    if verified.startswith("no:"):
        return f"the cgroup budget does not hold ({verified[3:].strip()})"
    return ProcessBudget(
        "cgroup",
        layout=budget.layout,
        memory_mb=memory_mb,
        controllers=tuple(budget.controllers),
        verified=verified,
    )


def _probe(budget: cgroups.SandboxBudget, level: str) -> str:
    """Start a sandbox at ``level`` inside ``budget``, fork in it, and check from outside
    that every process of it is a member and counted. ``no: ...`` when not."""
    from beyondpass.execution.sandbox import SANDBOX_ENV, worker_command

    command = worker_command(level, "candidate", (), 16)
    command = budget.wrap([*command[:-1], "-c", PROBE_PROGRAM])
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=SANDBOX_ENV,
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
        members = budget.members()
        outside = tree - members
        if outside:
            return f"no: {len(outside)} of the probe's {len(tree)} processes are outside it"
        counted = budget.tasks()
        if counted < len(tree):
            return f"no: it counts {counted} tasks for {len(tree)} processes"
        return (
            f"probe: all {len(tree)} processes of a sandbox that forked twice were members, "
            f"{counted} tasks counted"
        )
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


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (host view), from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry))
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
