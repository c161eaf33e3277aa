"""I/O tests in the judge: a fresh process per test runs the whole program on its input.

The program's process gets the program and the test's input, nothing else; the expected
output stays in the judge. The fork server hands back the process's exit status (from
``waitpid``) and its stdout, read back after the process and everything it started are
dead, and the test is decided here: exit status first, then the output (:mod:`io_compare`).

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import base64
import signal
import socket
import time

import compiled_judge
import fork_server
import io_compare
import wire


def judge_io(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of I/O tests (a compiled language's: :mod:`compiled_judge`)."""
    if job.get("launch"):
        return compiled_judge.judge_compiled(job, ctl)
    return _judge_python(job, ctl)


def _judge_python(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of I/O tests: a fresh process per test runs the whole program on the
    test's input; the fork server hands back its exit status and output, compared here.

    The program's process gets its input and nothing else: the expected output stays in
    this process. It sends one message, before any of its code runs (compiled, or not);
    after that nothing it sends is read, only whether its channel closed.
    """
    limits = job["limits"]
    start = time.monotonic()
    deadline = start + float(limits["timeout_s"])
    report: dict = {"tests": [], "load_error": None, "over": None, "exit": None}
    for test in job["tests"]:
        case_deadline = deadline
        if limits.get("test_timeout_s"):
            case_deadline = min(deadline, time.monotonic() + float(limits["test_timeout_s"]))
        sock, over, ctl_ok = fork_server.take_candidate(ctl, limits)
        if not ctl_ok or sock is None:
            report["over"] = over
            if ctl_ok:
                report["exit"] = fork_server.end_candidate(ctl, False)
            break
        outcome, closed = _run_io_case(job, test, sock, case_deadline)
        sock.close()
        exit_info = fork_server.end_candidate(ctl, closed, int(limits["output_bytes"]))
        report["exit"] = exit_info
        if exit_info is None:
            break
        report["tests"].append(_io_result(test, outcome, exit_info, limits))
        exit_info.pop("stdout_b64", None)  # compared: the harness keeps tails only
        if outcome["kind"] == "compile_error":
            report["compile_error"] = {"error_type": outcome["type"], "message": outcome["message"]}
            break
        if outcome["kind"] == "timeout":
            report["over"] = {"kind": "timeout", "message": "out of time", "test": test["name"]}
            break
    report["wall_s"] = time.monotonic() - start
    return report


def _run_io_case(
    job: dict,
    test: dict,
    sock: socket.socket,
    deadline: float,
    launch: "dict | None" = None,
    cpu: bool = False,
) -> tuple:
    """Send the program (or, compiled, how to launch it) and the test's input; wait for
    the process to end -> (outcome, whether its channel closed). ``cpu`` (a timing run,
    io_timing.py): the process says in its ``ready`` how much CPU time its set-up took,
    before any of the program runs (outcome ``setup_ns``)."""
    limits = job["limits"]
    message = {
        "program": job["program"],
        "limits": limits,
        "seed": job.get("seed", 0),
        "stdin": test["stdin"],
    }
    if cpu:
        message["cpu"] = True
    if launch is not None:
        message["program"], message["launch"] = "", launch
    try:
        wire.send_frame(sock, message)
        hello = wire.decode(wire.FrameReader(sock).read(deadline))
    except wire.DeadlineExceeded:
        return {"kind": "timeout"}, False
    except (OSError, wire.PeerGone, wire.ProtocolError):
        return {"kind": "died"}, True  # before it compiled: the exit status may say how
    if isinstance(hello, list) and hello[:1] == ["compile_error"] and len(hello) == 4:
        return {"kind": "compile_error", "type": str(hello[1]), "message": str(hello[3])}, False
    ended: dict = {"kind": "ended"}
    if cpu and isinstance(hello, list) and len(hello) == 2 and type(hello[1]) is int:
        hello, ended["setup_ns"] = hello[:1], hello[1]
    if hello != ["ready"]:
        return {"kind": "protocol"}, False
    while True:  # whatever the program sends is discarded: only the end of the channel counts
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return {"kind": "timeout"}, False
        sock.settimeout(remaining)
        try:
            if not sock.recv(1 << 16):
                return ended, True
        except TimeoutError:
            return {"kind": "timeout"}, False
        except OSError:
            return ended, True


def _io_result(
    test: dict, outcome: dict, exit_info: dict, limits: dict, compiled: bool = False
) -> dict:
    """One I/O test's outcome: the exit status decides first, then the output."""
    name = test["name"]
    returncode = exit_info.get("returncode")
    result = {"name": name, "compare": test["compare"], "exit_code": returncode}
    stderr = str(exit_info.get("stderr", ""))
    compiled_memory = compiled and any(mark in stderr for mark in MEMORY_MARKS)

    def verdict(status: str, error_type: str = "", message: str = "") -> dict:
        return {**result, "status": status, "error_type": error_type, "message": message[:500]}

    kind = outcome["kind"]
    if kind == "compile_error":
        return verdict("compile_error", outcome["type"], outcome["message"])
    if kind == "timeout":
        return verdict("timeout", "Timeout", "the program did not end in time")
    if kind == "protocol":
        return verdict("error", "ProtocolError", "the program's process broke the protocol")
    if isinstance(returncode, int) and returncode < 0:
        sig = -returncode
        if sig == signal.SIGXFSZ:
            return verdict("output_limit", "SIGXFSZ", "file size limit exceeded")
        if sig == signal.SIGXCPU:
            return verdict("timeout", "SIGXCPU", "CPU time limit")
        name_of = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        if compiled_memory:
            return verdict("memory", str(name_of), f"out of memory: {_cause(stderr)}")
        return verdict("killed", str(name_of), f"killed by {name_of}")
    if int(exit_info.get("output_bytes", 0) or 0) >= int(limits["output_bytes"]):
        return verdict(
            "output_limit", "OutputLimit", f"output exceeded {limits['output_bytes']} bytes"
        )
    if returncode is None:
        return verdict("error", "NoExit", "the program closed its channel but did not exit")
    if kind == "died" and returncode == 0:
        return verdict("error", "NoStart", "the program's process ended before it started")
    if returncode != 0:
        last = _cause(stderr) if compiled else _last_line(stderr)
        status = "memory" if last.startswith("MemoryError") or compiled_memory else "error"
        return verdict(status, "NonZeroExit", f"exit status {returncode}: {last}".rstrip(": "))
    stdout = base64.b64decode(exit_info.get("stdout_b64", ""))
    difference = io_compare.compare(stdout, test["expected_stdout"], test["compare"])
    if difference:
        return verdict("failed", "WrongOutput", difference)
    return verdict("passed")


#: what a C++ or Java program's stderr says when it ran out of memory
MEMORY_MARKS = ("std::bad_alloc", "java.lang.OutOfMemoryError")


def _cause(text: str) -> str:
    """Why a compiled program failed: the line naming the exception (Java's "Exception
    in thread", C++'s "terminate called"), else the last line."""
    for line in text.splitlines():
        if line.startswith(("Exception in thread", "terminate called")):
            return line.strip()[:300]
    return _last_line(text)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""
