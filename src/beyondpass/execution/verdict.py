"""From what a sample's process reported to one verdict — shared by every executor.

A pass needs positive evidence: a ``done`` record after every requested test, each test
reported passed, in order, every record carrying the job's nonce. Anything else (an early
exit, a signal, a forged or garbled record, a timeout) is a non-passing status.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Status, TestResult

TAIL_BYTES = 4000


def read_events(fd: int, events: list[dict[str, Any]]) -> None:
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


def tail(path: Path) -> tuple[str, int]:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size > TAIL_BYTES:
            fh.seek(size - TAIL_BYTES)
        return fh.read().decode("utf-8", "replace"), size


def verdict(
    events: list[dict[str, Any]],
    nonce: str,
    returncode: int,
    timed_out: bool,
    request: ExecutionRequest,
) -> ExecutionResult:
    """Turn the record stream and exit status into one verdict (see the module docstring)."""
    genuine, forged = _authentic(events, nonce)
    tests = [
        TestResult(
            name=str(e.get("name", "")),
            status=Status(e["status"]),
            error_type=str(e.get("error_type", "")),
            message=str(e.get("message", "")),
            times_ns=[int(t) for t in e.get("times_ns", [])],
        )
        for e in genuine
        if e.get("event") == "test"
    ]
    done = bool(genuine) and genuine[-1].get("event") == "done"
    program_error = next((e for e in genuine if e.get("event") == "program_error"), None)
    result = ExecutionResult(status=Status.PASSED, tests=tests)
    if timed_out:
        result.status = Status.TIMEOUT
        result.message = f"exceeded {request.limits.timeout_s:g} s wall-clock"
    elif forged:
        result.status = Status.ERROR
        result.message = f"the sample wrote {forged} record(s) the harness did not issue"
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


_VALID_STATUS = {str(s) for s in Status}


def _authentic(events: list[dict[str, Any]], nonce: str) -> tuple[list[dict[str, Any]], int]:
    """Split records into the runner's own (right nonce, well-formed, nothing after
    ``done``) and a count of everything else."""
    genuine: list[dict[str, Any]] = []
    forged = 0
    finished = False
    for e in events:
        ok = (
            isinstance(e, dict)
            and e.get("nonce") == nonce
            and not finished
            and e.get("event") in ("test", "program_error", "done")
            and (e.get("event") != "test" or e.get("status") in _VALID_STATUS)
        )
        if not ok:
            forged += 1
            continue
        genuine.append(e)
        finished = e["event"] == "done"
    return genuine, forged


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
