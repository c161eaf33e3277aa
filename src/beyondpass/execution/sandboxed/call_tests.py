"""A sample of call-style tests: the benchmark's test code runs here, in the judge, with
the program's names bound to the candidate's functions (:mod:`remote`).

The set-up code and each test run in this process, in order; calls a test is known to make
are sent ahead (:mod:`prefetch`); timing runs follow once every test has passed once.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import builtins
import contextlib
import functools
import random
import socket
import sys
import time

import fork_client
import prefetch
import wire
from remote import CandidateChannel, RemoteFunction, SampleOver, TestGlobals

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, filename: str):
    return compile(source, filename, "exec")


def sample_budget_s(limits: dict, repeats: int) -> float:
    """Wall time a sample may take in all: its time limit for the first runs, and as much
    again for each timing run, so that a slow program that passes is timed, not cut off
    (the harness's ``ExecutionRequest.budget_s``)."""
    return float(limits["timeout_s"]) * (1 + repeats)


def judge_calls(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of call-style tests: start the candidate, run every test here, calling
    the candidate's functions through the channel, collect what happened."""
    limits = job["limits"]
    start = time.monotonic()
    deadline = start + float(limits["timeout_s"])
    report: dict = {"tests": [], "load_error": None, "over": None, "exit": None}
    sock, over, ctl_ok = fork_client.take_candidate(ctl, limits)
    if not ctl_ok:
        report["over"] = over
        report["wall_s"] = time.monotonic() - start
        return report
    try:
        if sock is None:
            report["over"] = over
        else:
            program = {
                "program": job["program"],
                "setup": job["setup"],
                # the candidate's CPU limit covers its timing runs too (_time_tests); its
                # first runs are held to the sample's own time by the deadline here
                "limits": {**limits, "timeout_s": sample_budget_s(limits, job["repeats"])},
                "seed": job.get("seed", 0),
            }
            with contextlib.suppress(OSError):  # if it died waiting, the channel says so
                wire.send_frame(sock, program)
            _run_tests(job, CandidateChannel(sock, deadline), report)
    finally:
        if sock is not None:
            sock.close()
        over = report.get("over") or {}
        report["exit"] = fork_client.end_candidate(ctl, over.get("kind") == "gone")
    report["wall_s"] = time.monotonic() - start
    return report


def _run_tests(job: dict, channel: CandidateChannel, report: dict) -> None:
    try:
        hello = channel.receive()
    except SampleOver as over:
        report["over"] = {"kind": over.kind, "message": over.message, "test": None}
        return
    if hello[0] == "load_error" and len(hello) == 4:
        report["load_error"] = {"error_type": str(hello[1]), "message": str(hello[3])[:500]}
        return
    if hello[0] != "ready" or len(hello) != 2 or not isinstance(hello[1], dict):
        report["over"] = {"kind": "protocol", "message": "no ready message", "test": None}
        return
    namespace = _namespace(hello[1], channel)
    random.seed(job.get("seed", 0))
    try:
        if job["setup"]:
            exec(_compiled(job["setup"], "<test setup>"), namespace)
        first_runs, timing_runs = _plan(job["tests"], namespace, job["repeats"])
        if first_runs:
            channel.send_ahead(first_runs)
        for index, test in enumerate(job["tests"]):
            channel.current_test = index
            result = _run_test(test, namespace, channel, job["limits"])
            report["tests"].append(result)
            if channel.over is not None:
                break
    except SampleOver:
        pass
    except BaseException as exc:  # noqa: BLE001 - broken setup code is the benchmark's fault
        report["over"] = {"kind": "setup", "message": f"{type(exc).__name__}: {exc}"[:500]}
        return
    if channel.over is not None:
        name = report["tests"][-1]["name"] if report["tests"] else None
        report["over"] = {"kind": channel.over.kind, "message": channel.over.message, "test": name}
    elif job["repeats"] and all(t["status"] == "passed" for t in report["tests"]):
        _time_tests(job, namespace, channel, report, timing_runs)


def _namespace(names: dict, channel: CandidateChannel) -> TestGlobals:
    lazy = []
    namespace = TestGlobals(channel, frozenset())
    for name, kind in names.items():
        if not isinstance(name, str) or not name.isidentifier():
            continue
        if kind == "callable":
            namespace[name] = RemoteFunction(channel, name)
        elif isinstance(kind, list) and len(kind) == 2 and kind[0] == "module":
            module = str(kind[1])
            if module.split(".")[0] in _STDLIB:
                with contextlib.suppress(ImportError):
                    namespace[name] = __import__(module, fromlist=["_"])
                    continue
            lazy.append(name)
        else:
            lazy.append(name)
    namespace._lazy = frozenset(lazy)
    namespace["__builtins__"] = builtins
    namespace["__name__"] = "__test__"
    return namespace


def _plan(tests: list, namespace: TestGlobals, repeats: int) -> tuple[list, list]:
    """The calls to send ahead: those of the longest run of leading tests whose calls the
    source fixes (prefetch.py) -> (every such test's first run in order, and when every
    test was planned, every test's timing runs), each test keyed by its place in the order
    first runs, then timing runs.

    Only where a planned call that the test ends up not making cannot hold up a later test:
    one call per test, or a single test.
    """
    callables = frozenset(n for n, v in namespace.items() if isinstance(v, RemoteFunction))
    program = callables | namespace._lazy
    per_test = []
    for test in tests:
        calls = prefetch.planned_calls(test["code"], callables, program)
        if calls is None:
            break
        per_test.append(calls)
    if len(tests) > 1 and any(len(calls) > 1 for calls in per_test):
        return [], []
    first_runs = [
        (index, name, args, kwargs, False)
        for index, calls in enumerate(per_test)
        for name, args, kwargs in calls
    ]
    if len(per_test) < len(tests):
        return first_runs, []
    return first_runs, [
        (len(tests) + index, name, args, kwargs, True)
        for index, calls in enumerate(per_test)
        for _ in range(repeats)
        for name, args, kwargs in calls
    ]


def _run_test(test: dict, namespace: dict, channel: CandidateChannel, limits: dict) -> dict:
    name = test["name"]
    _start_test_clock(channel, limits)
    try:
        code = _compiled(test["code"], f"<test {name}>")
    except BaseException as exc:  # noqa: BLE001 - a broken test is reported, not fatal
        return _outcome(name, "error", "TestSyntaxError", exc)
    status, error_type, failure = _exec(code, namespace, channel)
    if status != "passed":
        return _outcome(name, status, error_type, failure)
    return {"name": name, "status": "passed"}


def _start_test_clock(channel: CandidateChannel, limits: dict) -> None:
    per_test = limits.get("test_timeout_s")
    if per_test:  # a single test may not use up the whole sample's budget
        channel.deadline = min(channel.sample_deadline, time.monotonic() + float(per_test))


def _time_tests(
    job: dict, namespace: dict, channel: CandidateChannel, report: dict, planned: list
) -> None:
    """Run every test ``repeats`` more times, timed, once all have passed.

    Timing never changes a verdict: the verdict is the first run's. A timing run that
    fails (a program whose state changed, one that runs out of time) leaves every test
    without times and says why in ``report["timing_error"]``; a sample timed only in part
    would report a time for a subset of its tests.
    """
    tests, repeats = job["tests"], job["repeats"]
    timed: list = []
    channel.timing = True
    channel.sample_deadline = time.monotonic() + float(job["limits"]["timeout_s"]) * repeats
    channel.deadline = channel.sample_deadline
    try:
        if planned:
            # nothing else should run while the program is timed: the candidate answers
            # after the last timed call (a per-test time limit needs answers as they come)
            channel.send_ahead(planned, quiet=not job["limits"].get("test_timeout_s"))
        for index, test in enumerate(tests):
            channel.current_test = len(tests) + index  # after every first run (_plan)
            code = _compiled(test["code"], f"<test {test['name']}>")
            times, times_ref = [], []
            for _ in range(repeats):
                _start_test_clock(channel, job["limits"])  # a per-test limit, per timing run
                channel.elapsed_ns, channel.elapsed_ref = 0, 0.0
                status, error_type, failure = _exec(code, namespace, channel)
                if status != "passed":
                    message = _outcome(test["name"], status, error_type, failure)["message"]
                    report["timing_error"] = (
                        f"test {test['name']}: {status} on a timing run: {message}"[:500]
                    )
                    return
                times.append(channel.elapsed_ns)
                times_ref.append(round(channel.elapsed_ref, 6))
            timed.append((times, times_ref))
    except SampleOver as over:  # sending the timing runs found the candidate gone or late
        report["timing_error"] = f"the timing runs could not start: {over.message}"[:500]
        return
    finally:
        channel.timing = False
        channel.over = None  # the end of a timing run is not the end of the sample's verdict
    for result, (times, times_ref) in zip(report["tests"], timed, strict=True):
        result["times_ns"], result["times_ref"] = times, times_ref


def _exec(code, namespace: dict, channel: CandidateChannel) -> tuple:
    try:
        exec(code, namespace)
    except SampleOver as over:
        return ("timeout" if over.kind == "timeout" else "error"), over.kind, over
    except AssertionError as exc:
        status = "failed"
        failure: BaseException = exc
    except MemoryError as exc:
        return "memory", "MemoryError", exc
    except BaseException as exc:  # noqa: BLE001 - every exception of a test is a verdict
        return "error", type(exc).__name__, exc
    else:
        status, failure = "passed", None
    if channel.over is not None:  # the test code swallowed the end of the sample
        over = channel.over
        return ("timeout" if over.kind == "timeout" else "error"), over.kind, over
    return status, "AssertionError" if failure is not None else "", failure


def _outcome(name: str, status: str, error_type: str, exc, prefix: str = "") -> dict:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001
        message = "<unprintable>"
    return {
        "name": name,
        "status": status,
        "error_type": error_type,
        "message": (prefix + message)[:500],
    }


#: job kind -> the handler that runs a sample of that kind
