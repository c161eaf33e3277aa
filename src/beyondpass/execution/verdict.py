"""From the judge's report of one sample to one verdict.

A pass needs positive evidence from the judge: every requested test ran, in order, and
passed. The candidate's process cannot contribute to that evidence except through the
values it returned; its exit status and output only explain *why* a sample did not pass
(a signal, a resource limit, an exit in the middle of a test).
"""

from __future__ import annotations

import signal
from typing import Any

from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Status, TestResult

_STATUSES = {str(s) for s in Status}


def verdict(report: dict[str, Any], request: ExecutionRequest) -> ExecutionResult:
    """Turn the judge's report into an :class:`ExecutionResult`."""
    tests = [
        TestResult(
            name=str(t.get("name", "")),
            status=Status(t["status"]) if t.get("status") in _STATUSES else Status.ERROR,
            error_type=str(t.get("error_type", "")),
            message=str(t.get("message", "")),
            times_ns=[int(x) for x in t.get("times_ns", [])],
            times_ref=[float(x) for x in t.get("times_ref", [])],
            times_wall_ns=[int(x) for x in t.get("times_wall_ns", [])],
            compare=dict(t["compare"]) if isinstance(t.get("compare"), dict) else {},
            exit_code=t["exit_code"] if type(t.get("exit_code")) is int else None,
        )
        for t in report.get("tests", [])
    ]
    exit_info = report.get("exit") or {}
    result = ExecutionResult(
        status=Status.PASSED,
        tests=tests,
        stdout=str(exit_info.get("stdout", "")),
        stderr=str(exit_info.get("stderr", "")),
        wall_s=float(report.get("wall_s", 0.0)),
        timing_error=str(report.get("timing_error", "")),
    )
    result.status, result.message = _decide(report, tests, exit_info, request)
    output = int(exit_info.get("output_bytes", 0) or 0)
    if output >= request.limits.output_bytes and result.status is not Status.PASSED:
        result.status = Status.OUTPUT_LIMIT
        result.message = f"output exceeded {request.limits.output_bytes} bytes"
    return result


def _decide(
    report: dict[str, Any],
    tests: list[TestResult],
    exit_info: dict[str, Any],
    request: ExecutionRequest,
) -> tuple[Status, str]:
    over = report.get("over")
    load_error = report.get("load_error")
    returncode = exit_info.get("returncode")
    where = f"after {sum(t.status is Status.PASSED for t in tests)} of {len(request.tests)} tests"
    failing = next((t for t in tests if t.status is not Status.PASSED), None)
    if (  # one rule: the first non-passing test decides, even when the sample ended later
        over is not None
        and over.get("kind") in ("timeout", "gone", "protocol")
        and failing is not None
        and failing.name != over.get("test")
    ):
        return (
            failing.status,
            f"test {failing.name}: {failing.error_type} {failing.message}".strip(),
        )
    if over is not None and over.get("kind") == "timeout":
        limits = request.limits
        budget = f"{limits.timeout_s:g} s per sample"
        if limits.test_timeout_s:
            budget += f" or {limits.test_timeout_s:g} s per test"
        return Status.TIMEOUT, f"exceeded {budget} (wall clock) {where}"
    if over is not None and over.get("kind") in ("gone", "protocol", "start", "sandbox"):
        if isinstance(returncode, int) and returncode < 0:
            return _signalled(-returncode, where)
        if over["kind"] == "gone" and returncode is not None:
            return Status.ERROR, f"the program exited (code {returncode}) {where}"
        if over["kind"] == "gone":
            return Status.ERROR, f"the program closed its channel to the tests {where}"
        return Status.ERROR, f"{over.get('message', 'the sample broke')} {where}"
    if over is not None:  # the benchmark's own set-up code failed
        return Status.ERROR, f"test set-up failed: {over.get('message', '')}"
    compile_error = report.get("compile_error")
    if compile_error is not None:
        kind = str(compile_error.get("error_type", ""))
        return (
            Status.COMPILE_ERROR,
            f"the program does not compile: {kind} {compile_error.get('message', '')}",
        )
    if load_error is not None:
        kind = str(load_error.get("error_type", ""))
        status = Status.MEMORY if kind == "MemoryError" else Status.ERROR
        return status, f"{kind} while loading the program: {load_error.get('message', '')}"
    if failing is not None:
        message = f"test {failing.name}: {failing.error_type} {failing.message}".strip()
        return failing.status, message
    if [t.name for t in tests] != [t.name for t in request.tests]:
        return Status.ERROR, "the test report does not match the tests that were run"
    return Status.PASSED, ""


def _signalled(sig: int, where: str) -> tuple[Status, str]:
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
    if sig == signal.SIGXFSZ:
        return Status.OUTPUT_LIMIT, f"file size limit exceeded {where}"
    if sig == signal.SIGXCPU:
        return Status.TIMEOUT, f"CPU time limit ({name}) {where}"
    return Status.KILLED, f"killed by {name} {where}"
