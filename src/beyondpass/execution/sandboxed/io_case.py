"""One I/O test case in the judge: send the program (or how to launch it) and the test's
input, wait for the program's own process to end, and decide the test from its exit status
and output.

Shared by every kind of I/O sample: Python programs (:mod:`io_judge`), compiled programs
(:mod:`compiled_judge`) and timing runs (:mod:`io_timing`).

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import base64
import signal
import socket
import time

import io_compare
import wire


def run_io_case(
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


def io_result(
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
            return verdict("memory", str(name_of), f"out of memory: {cause(stderr)}")
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
        last = cause(stderr) if compiled else last_line(stderr)
        status = "memory" if last.startswith("MemoryError") or compiled_memory else "error"
        return verdict(status, "NonZeroExit", f"exit status {returncode}: {last}".rstrip(": "))
    stdout = base64.b64decode(exit_info.get("stdout_b64", ""))
    difference = io_compare.compare(stdout, test["expected_stdout"], test["compare"])
    if difference:
        return verdict("failed", "WrongOutput", difference)
    return verdict("passed")


#: what a C++ or Java program's stderr says when it ran out of memory
MEMORY_MARKS = ("std::bad_alloc", "java.lang.OutOfMemoryError")


def cause(text: str) -> str:
    """Why a compiled program failed: the line naming the exception (Java's "Exception
    in thread", C++'s "terminate called"), else the last line."""
    for line in text.splitlines():
        if line.startswith(("Exception in thread", "terminate called")):
            return line.strip()[:300]
    return last_line(text)


def last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""
