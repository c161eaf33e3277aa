"""Child-side runner: executes one candidate program and its tests, streaming verdicts.

Run as ``python -I python_runner.py RESULT_FD``. The job (program, tests, setup, repeats)
arrives as JSON on stdin, which is then replaced by an empty stream so the candidate reads
nothing. One JSON line per event goes to RESULT_FD; the harness only trusts a sample that
reports ``done`` after every test, so exiting early (``sys.exit``, ``os._exit``) can never
look like a pass.

This file must import nothing from beyondpass: it runs in the child interpreter.
"""

import builtins
import json
import os
import sys
import time


def main() -> None:
    result_fd = int(sys.argv[1])
    job = json.loads(sys.stdin.buffer.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the candidate's empty stdin

    write = os.write
    dumps = json.dumps
    clock = time.perf_counter_ns

    def emit(event: dict) -> None:
        data = (dumps(event) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    namespace = {"__name__": "__candidate__", "__builtins__": builtins}
    try:
        source = job["setup"] + "\n" + job["program"] if job["setup"] else job["program"]
        exec(compile(source, "<candidate>", "exec"), namespace)  # noqa: S102
    except BaseException as exc:  # noqa: BLE001 - every failure of the candidate is a verdict
        emit({"event": "program_error", "error_type": type(exc).__name__, "message": _msg(exc)})
        emit({"event": "done"})
        return

    repeats = job["repeats"]
    for test in job["tests"]:
        name = test["name"]
        try:
            code = compile(test["code"], f"<test {name}>", "exec")
        except SyntaxError as exc:
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
            exec(code, namespace)  # noqa: S102
        except AssertionError as exc:
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
        except BaseException as exc:  # noqa: BLE001
            status = "memory" if isinstance(exc, MemoryError) else "error"
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": status,
                    "error_type": type(exc).__name__,
                    "message": _msg(exc),
                }
            )
            continue
        times = []
        try:
            for _ in range(repeats):
                start = clock()
                exec(code, namespace)  # noqa: S102
                times.append(clock() - start)
        except BaseException as exc:  # noqa: BLE001 - passed once, then broke: not a pass
            emit(
                {
                    "event": "test",
                    "name": name,
                    "status": "error",
                    "error_type": type(exc).__name__,
                    "message": "on timing repeat: " + _msg(exc),
                }
            )
            continue
        emit({"event": "test", "name": name, "status": "passed", "times_ns": times})
    emit({"event": "done"})


def _msg(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        text = "<unprintable>"
    return text[:500]


if __name__ == "__main__":
    main()
