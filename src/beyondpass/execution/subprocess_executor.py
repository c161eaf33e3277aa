"""Process-per-sample executor: one fresh interpreter per sample, with limits.

Each sample runs in a new session (its own process group, killed as a whole when the sample
ends), in a private temporary working directory, with a scrubbed environment, empty stdin
and rlimits on address space, CPU time, file size and core dumps. Output goes to files in a
harness-owned directory, so a flood of output cannot exhaust the harness's memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from beyondpass.execution.base import (
    ExecutionRequest,
    ExecutionResult,
    Executor,
    Status,
    TestResult,
)

RUNNER = Path(__file__).with_name("python_runner.py")
_TAIL = 4000

#: The only variables a candidate sees. Secrets of the parent (API keys) never reach it.
SAFE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
}


class SubprocessExecutor(Executor):
    name = "subprocess"

    def __init__(
        self, workers: int | None = None, python: str | None = None, scratch_root: str | None = None
    ) -> None:
        self._workers = workers or os.cpu_count() or 1
        self.python = python or sys.executable
        self.scratch_root = scratch_root  # where per-sample directories go (default: TMPDIR)

    @property
    def workers(self) -> int:
        return self._workers

    def metadata(self) -> dict[str, Any]:
        return {
            "executor": self.name,
            "isolation": "process-group+rlimits+scrubbed-env+private-cwd",
            "python": sys.version.split()[0],
            "workers": self._workers,
        }

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        if request.language != "python":
            raise NotImplementedError(
                f"the subprocess executor runs python, not {request.language}"
            )
        with tempfile.TemporaryDirectory(prefix="bp-sample-", dir=self.scratch_root) as tmp:
            return self._run_in(Path(tmp), request)

    def _run_in(self, tmp: Path, request: ExecutionRequest) -> ExecutionResult:
        scratch = tmp / "work"
        scratch.mkdir()
        stdout_path, stderr_path = tmp / "stdout", tmp / "stderr"
        limits = request.limits
        job = json.dumps(
            {
                "program": request.program,
                "setup": request.test_setup,
                "tests": [{"name": t.name, "code": t.code} for t in request.tests],
                "repeats": request.timing_repeats,
            }
        ).encode()
        env = {**SAFE_ENV, "HOME": str(scratch), "TMPDIR": str(scratch)}
        read_fd, write_fd = os.pipe()
        out_cap = limits.output_bytes

        def limit_child() -> None:
            mem = limits.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            cpu = int(limits.timeout_s) + 2
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            fsize = max(limits.file_size_mb * 1024 * 1024, out_cap)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        start = time.monotonic()
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            try:
                proc = subprocess.Popen(
                    [self.python, "-I", str(RUNNER), str(write_fd)],
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    cwd=scratch,
                    env=env,
                    pass_fds=(write_fd,),
                    start_new_session=True,
                    preexec_fn=limit_child,  # noqa: PLW1509 - rlimits must apply in the child
                )
            finally:
                os.close(write_fd)
        events: list[dict[str, Any]] = []
        reader = threading.Thread(target=_read_events, args=(read_fd, events), daemon=True)
        reader.start()
        timed_out = False
        try:
            try:
                proc.stdin.write(job)  # type: ignore[union-attr]
                proc.stdin.close()  # type: ignore[union-attr]
            except BrokenPipeError:
                pass
            try:
                proc.wait(timeout=limits.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
        finally:
            _kill_group(proc.pid)
            proc.wait()
            reader.join(timeout=2.0)
        wall = time.monotonic() - start
        stdout, out_size = _tail(stdout_path)
        stderr, err_size = _tail(stderr_path)
        result = _verdict(events, proc.returncode, timed_out, request)
        if out_size + err_size >= out_cap and result.status is not Status.PASSED:
            result.status = Status.OUTPUT_LIMIT
            result.message = f"output exceeded {out_cap} bytes"
        result.stdout, result.stderr, result.wall_s = stdout, stderr, wall
        return result


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _read_events(fd: int, events: list[dict[str, Any]]) -> None:
    buf = b""
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(1 << 16):
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    events.append({"event": "garbage"})


def _tail(path: Path) -> tuple[str, int]:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size > _TAIL:
            fh.seek(size - _TAIL)
        return fh.read().decode("utf-8", "replace"), size


def _verdict(
    events: list[dict[str, Any]], returncode: int, timed_out: bool, request: ExecutionRequest
) -> ExecutionResult:
    """Turn the event stream and exit status into one verdict.

    A pass needs: a ``done`` event, every requested test reported passed, in order.
    """
    tests = [
        TestResult(
            name=str(e.get("name", "")),
            status=Status(e.get("status", "error")),
            error_type=str(e.get("error_type", "")),
            message=str(e.get("message", "")),
            times_ns=list(e.get("times_ns", [])),
        )
        for e in events
        if e.get("event") == "test"
    ]
    done = any(e.get("event") == "done" for e in events)
    program_error = next((e for e in events if e.get("event") == "program_error"), None)
    result = ExecutionResult(status=Status.PASSED, tests=tests)
    if timed_out:
        result.status = Status.TIMEOUT
        result.message = f"exceeded {request.limits.timeout_s:g} s wall-clock"
    elif program_error is not None:
        kind = program_error.get("error_type", "")
        result.status = Status.MEMORY if kind == "MemoryError" else Status.ERROR
        result.message = f"{kind} while loading the program: {program_error.get('message', '')}"
    elif not done:
        result.status, result.message = _abnormal_exit(returncode, len(tests), request)
    else:
        failing = next((t for t in tests if t.status is not Status.PASSED), None)
        expected = [t.name for t in request.tests]
        if failing is not None:
            result.status = failing.status
            result.message = f"test {failing.name}: {failing.error_type} {failing.message}".strip()
        elif [t.name for t in tests] != expected:
            result.status = Status.ERROR
            result.message = "the test report does not match the tests that were run"
    return result


def _abnormal_exit(
    returncode: int, n_reported: int, request: ExecutionRequest
) -> tuple[Status, str]:
    where = f"after {n_reported} of {len(request.tests)} tests"
    if returncode < 0:
        sig = -returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if sig == signal.SIGXFSZ:
            return Status.OUTPUT_LIMIT, f"file size limit exceeded {where}"
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return Status.TIMEOUT, f"CPU time limit ({name}) {where}"
        return Status.KILLED, f"killed by {name} {where}"
    return Status.ERROR, f"the program exited (code {returncode}) {where}"
