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
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Executor, Status
from beyondpass.execution.sandbox import SANDBOX_ENV
from beyondpass.execution.verdict import read_events, tail, verdict

RUNNER = Path(__file__).with_name("python_runner.py")
_TAIL = 4000


class SubprocessExecutor(Executor):
    name = "subprocess"

    def __init__(
        self,
        workers: int | None = None,
        python: str | None = None,
        scratch_root: str | None = None,
        seed: int = 0,
    ) -> None:
        self.seed = seed
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
        nonce = secrets.token_hex(16)
        job = json.dumps(
            {
                "nonce": nonce,
                "seed": self.seed,
                "program": request.program,
                "setup": request.test_setup,
                "tests": [{"name": t.name, "code": t.code} for t in request.tests],
                "repeats": request.timing_repeats,
            }
        ).encode()
        env = {**SANDBOX_ENV, "HOME": str(scratch), "TMPDIR": str(scratch)}
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
                    [self.python, "-s", "-P", str(RUNNER), str(write_fd)],
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
        reader = threading.Thread(target=read_events, args=(read_fd, events), daemon=True)
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
        stdout, out_size = tail(stdout_path)
        stderr, err_size = tail(stderr_path)
        result = verdict(events, nonce, proc.returncode, timed_out, request)
        if out_size + err_size >= out_cap and result.status is not Status.PASSED:
            result.status = Status.OUTPUT_LIMIT
            result.message = f"output exceeded {out_cap} bytes"
        result.stdout, result.stderr, result.wall_s = stdout, stderr, wall
        return result


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
