"""Starting the sandboxes of a run: one isolation level and one process budget, decided
once, and every sandbox started the same way inside its budget.

The executor's workers (a judge and a candidate fork server each), the confined static
analysers and ObfusEval's project test runs start their sandboxes here. What a run records
— level, budget, how the budget was verified — is :meth:`Sandboxes.metadata`.
"""

from __future__ import annotations

import collections
import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from typing import IO, Any

from beyondpass.execution import cgroups
from beyondpass.execution.budget import (
    ProcessBudget,
    ProcessLimit,
    choose_budget,
    descendants,
    nproc_limit,
    state_and_parent,
)
from beyondpass.execution.sandbox import (
    GUARANTEES,
    ISOLATION,
    SandboxSpec,
    choose_level,
    command,
)

_Stream = int | IO[Any] | None
#: how long closing a sandbox waits for its killed processes to be gone
GONE_PATIENCE_S = 10.0
#: after a sandbox's process ended: how long what is still in its pipes is read
END_GRACE_S = 2.0


@dataclass(frozen=True)
class Output:
    """How a sandboxed process ended (``returncode`` None: stopped at its time limit) and
    the last bytes of its output; ``*_bytes``: how much it wrote in all."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    stdout_bytes: int
    stderr_bytes: int


class _Tail:
    """The last ``keep`` bytes added, and how many were added in all."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.total = 0
        self._chunks: collections.deque[bytes] = collections.deque()
        self._held = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._chunks.append(chunk)
        self._held += len(chunk)
        while len(self._chunks) > 1 and self._held - len(self._chunks[0]) >= self.keep:
            self._held -= len(self._chunks.popleft())

    def data(self) -> bytes:
        return b"".join(self._chunks)[-self.keep :] if self.keep else b""


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
            paths = self.enclosing.cgroups or {}
            return {pid for pid in tree if not cgroups.within(pid, paths)}
        return set()

    def kill(self) -> set[int]:
        """Kill every process of the sandbox: its session, and whatever its own budget
        holds or, without one, every process below it -> the processes below it that were
        killed that way (found in ``/proc``; none to look for with a budget of its own)."""
        tree = self._kill_session()
        if self.budget is not None:
            self.budget.kill()
        return tree

    def _kill_session(self) -> set[int]:
        """SIGKILL the sandbox's session and, without a budget of its own, every process
        below it (a cgroup's members are killed through the cgroup) -> those."""
        tree = descendants(self.proc.pid) if self.budget is None else set()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return tree

    def communicate(self, timeout_s: float, keep_bytes: int) -> Output:
        """Wait for the sandbox's process (started with ``stdout``/``stderr`` pipes), at
        most ``timeout_s``, reading both streams as they come and keeping the last
        ``keep_bytes`` of each: a flood of output costs the harness no more memory than
        that. At the time limit the sandbox is killed (``returncode`` None). Once its
        process has ended, whatever it left is killed too, so a leftover holding a pipe
        open cannot keep the harness waiting. The sandbox is closed afterwards."""
        tails: dict[int, _Tail] = {}
        ended = os.pidfd_open(self.proc.pid)  # readable once the process has ended
        returncode: int | None = None
        try:
            with selectors.DefaultSelector() as chosen:
                for stream in (self.proc.stdout, self.proc.stderr):
                    if stream is not None:
                        tails[stream.fileno()] = _Tail(keep_bytes)
                        chosen.register(stream.fileno(), selectors.EVENT_READ)
                chosen.register(ended, selectors.EVENT_READ)
                deadline = time.monotonic() + timeout_s
                running = True
                while True:
                    now = time.monotonic()
                    if running:
                        returncode = self.proc.poll()
                        if returncode is not None or now >= deadline:
                            running = False  # ended or out of time: nothing of it runs on
                            self.kill()
                            chosen.unregister(ended)
                            deadline = now + END_GRACE_S  # for what is still in the pipes
                    if not running and (len(chosen.get_map()) == 0 or now >= deadline):
                        break
                    for key, _ in chosen.select(max(0.0, deadline - now)):
                        if key.fd == ended:
                            continue  # the next round sees it
                        chunk = os.read(key.fd, 1 << 16)
                        if chunk:
                            tails[key.fd].add(chunk)
                        else:
                            chosen.unregister(key.fd)
        finally:
            os.close(ended)
        self.close()
        none = _Tail(0)
        out = tails.get(self.proc.stdout.fileno() if self.proc.stdout else -1, none)
        err = tails.get(self.proc.stderr.fileno() if self.proc.stderr else -1, none)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return Output(returncode, out.data(), err.data(), out.total, err.total)

    def close(self) -> None:
        """Kill what is left, collect the process and remove the sandbox's budget; returns
        once no process of the sandbox is left (a killed PID namespace ends asynchronously,
        and its dying processes still count against a budget shared with others)."""
        tree = self._kill_session()
        self.proc.wait()
        if self.budget is not None:
            self.budget.close()  # kills until the cgroup is empty, then removes it
            self.budget = None
        deadline = time.monotonic() + GONE_PATIENCE_S
        while tree and time.monotonic() < deadline:
            tree = {pid for pid in tree if _running(pid)}
            if tree:
                time.sleep(0.01)


def _running(pid: int) -> bool:
    """Whether process ``pid`` still exists and has not exited: a zombie (exited, waiting
    for its new parent to collect it) runs nothing and holds no memory."""
    found = state_and_parent(pid)
    return found is not None and found[0] != "Z"


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
        return "processes" in GUARANTEES[self.level]

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
            spec = replace(spec, budget=ProcessLimit(nproc_limit() or tasks))
        try:
            proc = command(self.level, spec).popen(
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
