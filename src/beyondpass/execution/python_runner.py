"""Child-side runner: executes one candidate program and its tests, streaming verdicts.

Used two ways: as a script (``python -I python_runner.py RESULT_FD``, job as JSON on stdin)
by the process-per-sample executor, and imported by the fork server (``zygote.py``) inside
the sandbox, which calls :func:`run_job` in each forked child.

The harness only trusts a sample that reports ``done`` after every test, so exiting early
(``sys.exit``, ``os._exit``, killing itself) can never look like a pass. Every record
carries the job's nonce, so bytes written blindly to inherited descriptors or printed to
stdout are rejected. Everything the runner needs (``os.write``, ``json.dumps``, the clock,
the exception classes) is bound before the candidate's code runs, so rebinding builtins or
``sys.modules`` from the candidate does not reach it, and the process ends with
``os._exit`` so ``atexit`` hooks of the candidate never run after the verdict.

This file must import nothing from beyondpass: it runs in the child interpreter.
"""

import builtins
import json
import os
import random
import sys
import time


def run_job(job: dict, result_fd: int) -> None:
    """Run the candidate and its tests; one JSON line per event to ``result_fd``."""
    write = os.write
    dumps = json.dumps
    clock = time.perf_counter_ns
    nonce = job["nonce"]
    base_exception = BaseException
    assertion_error = AssertionError
    memory_error = MemoryError
    compile_ = compile
    exec_ = exec

    def emit(event: dict) -> None:
        event["nonce"] = nonce
        data = (dumps(event) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    random.seed(job.get("seed", 0))  # tests that draw random inputs are reproducible
    namespace = {"__name__": "__candidate__", "__builtins__": builtins}
    try:
        source = job["setup"] + "\n" + job["program"] if job["setup"] else job["program"]
        exec_(compile_(source, "<candidate>", "exec"), namespace)
    except base_exception as exc:  # every failure of the candidate is a verdict
        emit({"event": "program_error", "error_type": _name(exc), "message": _msg(exc)})
        emit({"event": "done"})
        return

    repeats = job["repeats"]
    for test in job["tests"]:
        name = test["name"]
        try:
            code = compile_(test["code"], f"<test {name}>", "exec")
        except base_exception as exc:
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": "error",
                    "error_type": "TestSyntaxError",
                    "message": _msg(exc),
                }
            )
            continue
        try:
            exec_(code, namespace)
        except assertion_error as exc:
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": "failed",
                    "error_type": "AssertionError",
                    "message": _msg(exc),
                }
            )
            continue
        except base_exception as exc:
            status = "memory" if isinstance(exc, memory_error) else "error"
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": status,
                    "error_type": _name(exc),
                    "message": _msg(exc),
                }
            )
            continue
        times = []
        try:
            for _ in range(repeats):
                start = clock()
                exec_(code, namespace)
                times.append(clock() - start)
        except base_exception as exc:  # passed once, then broke: not a pass
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": "error",
                    "error_type": _name(exc),
                    "message": "on timing repeat: " + _msg(exc),
                }
            )
            continue
        emit({"event": "test", "name": name, "status": "passed", "times_ns": times})
    emit({"event": "done"})


def _name(exc: BaseException) -> str:
    try:
        return str(type(exc).__name__)[:100]
    except BaseException:  # noqa: BLE001 - a hostile metaclass
        return "<unnamed>"


def _msg(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        text = "<unprintable>"
    return text[:500]


def main() -> None:
    result_fd = int(sys.argv[1])
    job = json.loads(sys.stdin.buffer.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the candidate's empty stdin
    exit_now = os._exit
    streams = (sys.stdout, sys.stderr)  # the real ones, whatever the candidate rebinds
    try:
        run_job(job, result_fd)
    finally:
        flush_and_exit(streams, exit_now)


def flush_and_exit(streams: tuple, exit_now) -> None:
    """Flush what the candidate printed, then leave without running its atexit hooks."""
    for stream in streams:
        try:  # noqa: SIM105 - no contextlib import in the child
            stream.flush()
        except BaseException:  # noqa: BLE001 - output is best effort; the verdict is not
            pass
    exit_now(0)


if __name__ == "__main__":
    main()
