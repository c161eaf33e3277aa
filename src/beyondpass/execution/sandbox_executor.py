"""The default executor: sandboxed fork servers, one per worker.

Each worker is a warm interpreter (``zygote.py``) started once inside the sandbox of
:mod:`beyondpass.execution.sandbox`; it forks a fresh child per sample, so a sample costs a
``fork`` instead of an interpreter start-up, while every sample still gets its own process,
scratch directory, limits and clean-up. A worker that dies or hangs (a sample killed it,
or the sandbox broke) is replaced; the sample in it is reported ``killed`` and no other
sample is affected.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Executor, Status
from beyondpass.execution.sandbox import (
    ISOLATION,
    SANDBOX_ENV,
    SCRATCH,
    choose_level,
    worker_command,
)
from beyondpass.execution.verdict import verdict

_HEADER = struct.Struct(">I")
WATCHDOG_GRACE_S = 10.0  # beyond a sample's own timeout, before the worker is presumed hung
START_TIMEOUT_S = 60.0


class WorkerDied(Exception):
    """The sandboxed worker stopped answering; it is replaced."""


class _Worker:
    """One sandboxed zygote and its control pipes."""

    def __init__(self, cmd: list[str], own_pid_namespace: bool, private_tmp: bool) -> None:
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**SANDBOX_ENV, "HOME": SCRATCH, "TMPDIR": SCRATCH},
            cwd=SCRATCH if os.path.isdir(SCRATCH) else None,
            start_new_session=True,
        )
        self._out = self.proc.stdout.fileno()  # type: ignore[union-attr]
        # inside bwrap /tmp is the sandbox's own tmpfs; elsewhere make a private directory
        self.private_tmp = private_tmp
        scratch = SCRATCH if private_tmp else _private_scratch()
        self.scratch = scratch
        self._send({"scratch": scratch, "own_pid_namespace": own_pid_namespace, "env": SANDBOX_ENV})
        hello = self._receive(START_TIMEOUT_S)
        self.own_pid_namespace = bool(hello.get("own_pid_namespace"))

    def run(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self._send(job)
        return self._receive(timeout_s + WATCHDOG_GRACE_S)

    def _send(self, obj: dict[str, Any]) -> None:
        body = json.dumps(obj).encode()
        try:
            self.proc.stdin.write(_HEADER.pack(len(body)) + body)  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(f"the sandboxed worker is gone ({exc})") from exc

    def _receive(self, timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        header = self._read(_HEADER.size, deadline)
        return json.loads(self._read(_HEADER.unpack(header)[0], deadline))

    def _read(self, n: int, deadline: float) -> bytes:
        chunks, got = [], 0
        while got < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerDied("the sandboxed worker stopped answering")
            ready, _, _ = select.select([self._out], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._out, n - got)
            if not chunk:
                raise WorkerDied(f"the sandboxed worker exited (code {self.proc.poll()})")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self.proc.wait()
        if not self.private_tmp:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _private_scratch() -> str:
    return tempfile.mkdtemp(prefix="bp-worker-")


class SandboxExecutor(Executor):
    """Fast and isolated: see the module docstring and docs/sandbox.md."""

    name = "sandbox"

    def __init__(
        self,
        workers: int | None = None,
        isolation: str = "auto",
        scratch_mb: int = 256,
        seed: int = 0,
    ) -> None:
        self._workers = workers or os.cpu_count() or 1
        self.level, note = choose_level(isolation)
        if note:
            print(note, file=sys.stderr)
        self.level_note = note
        self.seed = seed
        self._cmd = worker_command(self.level, scratch_mb)
        self._own_ns = self.level in ("bwrap", "unshare")
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        for _ in range(self._workers):
            self._idle.put(None)  # started lazily, on first use
        self._lock = threading.Lock()
        self._all: list[_Worker] = []

    @property
    def workers(self) -> int:
        return self._workers

    def metadata(self) -> dict[str, Any]:
        return {
            "executor": self.name,
            "isolation": self.level,
            "isolation_details": ISOLATION[self.level],
            "isolation_note": self.level_note,
            "python": sys.version.split()[0],
            "workers": self._workers,
            "random_seed": self.seed,
        }

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        if request.language != "python":
            raise NotImplementedError(f"the sandbox executor runs python, not {request.language}")
        nonce = secrets.token_hex(16)
        limits = request.limits
        job = {
            "nonce": nonce,
            "program": request.program,
            "setup": request.test_setup,
            "tests": [{"name": t.name, "code": t.code} for t in request.tests],
            "repeats": request.timing_repeats,
            "limits": vars(limits),
            "seed": self.seed,
        }
        worker = self._idle.get()
        try:
            if worker is None:
                worker = self._start()
            raw = worker.run(job, limits.timeout_s)
        except WorkerDied as exc:
            if worker is not None:
                worker.close()
            worker = None
            return ExecutionResult(
                status=Status.KILLED, message=f"{exc}: the sample took its worker down"
            )
        finally:
            self._idle.put(worker)
        events = []
        for line in raw["records"]:
            try:
                events.append(json.loads(line))
            except ValueError:
                events.append({"event": "garbage"})
        result = verdict(events, nonce, raw["returncode"], raw["timed_out"], request)
        if raw["output_bytes"] >= limits.output_bytes and not result.passed:
            result.status = Status.OUTPUT_LIMIT
            result.message = f"output exceeded {limits.output_bytes} bytes"
        result.stdout, result.stderr = raw["stdout"], raw["stderr"]
        result.wall_s = raw["wall_s"]
        return result

    def _start(self) -> _Worker:
        worker = _Worker(self._cmd, self._own_ns, private_tmp=self.level == "bwrap")
        with self._lock:
            self._all.append(worker)
        return worker

    def close(self) -> None:
        with self._lock:
            workers, self._all = self._all, []
        for worker in workers:
            worker.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()
