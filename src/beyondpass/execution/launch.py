"""Starting the sandboxes of a run: one isolation level and one process budget, decided
once, and every sandbox started the same way inside its budget.

The executor's workers (a judge and a candidate fork server each) and ObfusEval's project
test runs start their sandboxes here; the static analysers take only the level
(:func:`~beyondpass.execution.sandbox.command` without a budget: they are trusted tools
reading untrusted files, bounded per process). What the run recorded — level, budget,
how the budget was verified — is :meth:`Sandboxes.metadata`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from typing import IO, Any

from beyondpass.execution import cgroups
from beyondpass.execution.budget import ProcessBudget, choose_budget, descendants, nproc_limit
from beyondpass.execution.sandbox import ISOLATION, SandboxSpec, choose_level, command

_Stream = int | IO[Any] | None
#: how long closing a sandbox waits for its killed processes to be gone
GONE_PATIENCE_S = 10.0


@dataclass
class Started:
    """A running sandbox: its outermost process and the budget it joined (if its own)."""

    proc: subprocess.Popen[bytes]
    budget: cgroups.SandboxBudget | None
    enclosing: ProcessBudget | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def outside_budget(self) -> set[int]:
        """Processes of this sandbox (host pids) that are not inside its budget."""
        tree = {self.proc.pid} | descendants(self.proc.pid)
        if self.budget is not None:
            return tree - self.budget.members()
        if self.enclosing is not None:
            return {pid for pid in tree if not cgroups.within(pid, self.enclosing.cgroups)}
        return set()

    def kill(self) -> set[int]:
        """Kill every process of the sandbox: its session, every process below it, and
        whatever its budget holds -> the processes below it that were killed."""
        tree = descendants(self.proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if self.budget is not None:
            self.budget.kill()
        return tree

    def close(self) -> None:
        """Kill what is left, collect the process and remove the sandbox's budget; returns
        once no process of the sandbox is left (a killed PID namespace ends asynchronously,
        and its dying processes still count against a budget shared with others)."""
        tree = self.kill()
        self.proc.wait()
        if self.budget is not None:
            self.budget.close()  # kills until the cgroup is empty
            self.budget = None
        deadline = time.monotonic() + GONE_PATIENCE_S
        while tree and time.monotonic() < deadline:
            tree = {pid for pid in tree if os.path.exists(f"/proc/{pid}")}
            if tree:
                time.sleep(0.01)


class Sandboxes:
    """The sandboxes of one run: the isolation level and the process budget, decided (and
    the budget probed) before any untrusted code runs; a budget that does not bind refuses
    with one line (:func:`~beyondpass.execution.budget.choose_budget`).

    ``memory_mb`` is the memory ceiling of one untrusted sandbox; ``announce`` prints a
    weaker level's warning on stderr once.
    """

    def __init__(
        self,
        isolation: str = "auto",
        process_budget: str = "auto",
        memory_mb: int = 4096,
        announce: bool = True,
    ) -> None:
        self.level, self.note = choose_level(isolation)
        if self.note and announce:
            print(self.note, file=sys.stderr)
        self.memory_mb = memory_mb
        self.budget = choose_budget(process_budget, self.level, memory_mb)

    @property
    def own_pid_namespace(self) -> bool:
        return self.level in ("bwrap", "unshare")

    def metadata(self) -> dict[str, Any]:
        return {
            "isolation": self.level,
            "isolation_details": ISOLATION[self.level],
            "isolation_note": self.note,
            "process_budget": self.budget.describe(),
        }

    def start(
        self,
        spec: SandboxSpec,
        *,
        tasks: int,
        memory_mb: int,
        stdin: _Stream = subprocess.DEVNULL,
        stdout: _Stream = subprocess.DEVNULL,
        stderr: _Stream = subprocess.DEVNULL,
        pass_fds: tuple[int, ...] = (),
    ) -> Started:
        """Start ``spec`` at this run's level, inside a budget of its own of at most
        ``tasks`` tasks and ``memory_mb`` where the budget is a cgroup per sandbox (inside
        the enclosing one, or under ``RLIMIT_NPROC``, otherwise). Its own session: killing
        its process group ends it."""
        own = None
        if self.budget.mechanism == "cgroup":
            own = cgroups.create_budget(tasks, memory_mb)
            if own is None:
                raise OSError("a sandbox's cgroup could not be created")
            spec = replace(spec, budget=own)
        elif self.budget.mechanism == "nproc":
            spec = replace(spec, budget=cgroups.ProcessLimit(nproc_limit() or tasks))
        started = command(self.level, spec)
        try:
            proc = subprocess.Popen(
                started.argv,
                env=started.env,
                cwd=started.cwd,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                pass_fds=pass_fds,
                start_new_session=True,
            )
        except BaseException:
            if own is not None:
                own.close()
            raise
        enclosing = self.budget if self.budget.mechanism == "enclosing" else None
        return Started(proc, own, enclosing)
