"""I/O tests of a compiled language in the judge: compile once, then run every test.

The compile step runs in a process of its own from the candidate fork server
(:mod:`compiled_runner`); its build stays in the candidate sandbox for the sample's
tests. Then either one process per test (C++: exactly the Python scheme of
:mod:`io_judge`, the launcher ``exec``'d on the test's input) or a batch of tests per
process (Java: the trusted ``BatchRunner`` takes one test's input at a time over the
channel and sends back that test's exit status and output; the C++ function-mode driver
and the Python function runner speak the same protocol). Either way every test has
its own deadline here, the comparison is done here, and a test that hangs, exits the JVM
or crashes it is charged to that test alone: the next test starts in a fresh process.
Unlike Python's scheme, a test that runs out of its own time does not end the sample
(the remaining tests still run, each with its own deadline); only the sample's budget
does.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import base64
import os
import socket
import struct
import time

import fork_client
import io_case
import wire
from job import PYTHON_FUNCTION

START_S = 30.0  # for a fresh JVM to say hello (bounded by the sample's own deadline)
COMPILE_GRACE_S = 5.0
STDERR_TAIL = 4000


def judge_compiled(job: dict, ctl: socket.socket) -> dict:
    """Compile (once), then run the tests -> the judge's report, as for Python."""
    report: dict = {"tests": [], "load_error": None, "over": None, "exit": None}
    begun = time.monotonic()
    if job.get("compile") and not _compile(job, ctl, report):
        report["wall_s"] = time.monotonic() - begun
        return report
    tests, launch = job["tests"], job["launch"]
    limits = dict(job["limits"])  # the runtime's own reservations on top of the program's
    limits["memory_mb"] = int(limits["memory_mb"]) + int(launch.get("memory_headroom_mb", 0))
    job = {**job, "limits": limits}
    deadline = time.monotonic() + float(limits["timeout_s"])  # the tests' time, not the build's
    batch = int(launch.get("cases_per_process", 1)) > 1
    index = 0
    while index < len(tests):
        if time.monotonic() >= deadline:
            report["over"] = {"kind": "timeout", "message": "out of time", "test": None}
            break
        step = _batch if batch else _single
        advanced = step(job, ctl, index, deadline, report)
        if advanced is None:
            break
        index = advanced
    report["wall_s"] = time.monotonic() - begun
    return report


def _case_deadline(limits: dict, deadline: float) -> float:
    per_test = limits.get("test_timeout_s")
    if per_test:
        return min(deadline, time.monotonic() + float(per_test))
    return deadline


def _take(ctl: socket.socket, limits: dict, report: dict):
    """A fresh process from the fork server, or None (the report then says why)."""
    sock, over, ctl_ok = fork_client.take_candidate(ctl, limits)
    if not ctl_ok or sock is None:
        report["over"] = over
        if ctl_ok:
            report["exit"] = fork_client.end_candidate(ctl, False)
        return None
    return sock


def _compile(job: dict, ctl: socket.socket, report: dict) -> bool:
    """Build the program in the candidate sandbox -> whether the tests can run."""
    step = job["compile"]
    # the compiler's own limits, set by the fork server's child like a test's
    limits = {
        **job["limits"],
        "timeout_s": float(step["timeout_s"]) + COMPILE_GRACE_S,
        "memory_mb": int(step["memory_mb"]),
    }
    sock = _take(ctl, limits, report)
    if sock is None:
        return False
    reply = None
    try:
        message = {"program": job["program"], "limits": limits, "compile": step}
        wire.send_frame(sock, message)
        reply = wire.decode(wire.FrameReader(sock).read(time.monotonic() + limits["timeout_s"]))
    except (OSError, wire.PeerGone, wire.ProtocolError, wire.DeadlineExceeded):
        reply = None
    finally:
        sock.close()
    report["exit"] = exit_info = fork_client.end_candidate(ctl, reply is not None, 0, True)
    if exit_info is None:
        return False
    if reply == ["compiled"]:
        return True
    if isinstance(reply, list) and len(reply) == 2 and reply[0] == "compiled":
        pairs = reply[1] if isinstance(reply[1], list) else []
        # for the harness to keep (execution/builds.py checks every name)
        report["build"] = {
            str(p[0]): str(p[1]) for p in pairs if isinstance(p, list) and len(p) == 2
        }
        return True
    if isinstance(reply, list) and reply[:1] == ["compile_error"] and len(reply) == 4:
        report["compile_error"] = {"error_type": str(reply[1]), "message": str(reply[3])}
    else:
        report["compile_error"] = {
            "error_type": "CompileFailed",
            "message": "the compile step ended without a result "
            f"(exit status {exit_info.get('returncode')})",
        }
    return False


def _single(job: dict, ctl: socket.socket, index: int, deadline: float, report: dict):
    """One test in a process of its own (the launcher exec'd on the test's input)."""
    limits, test = job["limits"], job["tests"][index]
    sock = _take(ctl, limits, report)
    if sock is None:
        return None
    case_deadline = _case_deadline(limits, deadline)
    launch = {"command": job["launch"]["command"]}
    outcome, closed = io_case.run_io_case(job, test, sock, case_deadline, launch)
    sock.close()
    last = index + 1 == len(job["tests"])
    exit_info = fork_client.end_candidate(ctl, closed, int(limits["output_bytes"]), not last)
    report["exit"] = exit_info
    if exit_info is None:
        return None
    report["tests"].append(io_case.io_result(test, outcome, exit_info, limits, True))
    exit_info.pop("stdout_b64", None)
    return index + 1


class _Stream:
    """Exact reads from the runner's channel, each bounded by a deadline."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()

    def read(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(max(1 << 16, size - len(self.buffer)))
            if not chunk:
                raise wire.PeerGone("the runner's channel closed")
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def number(self, deadline: float) -> int:
        return struct.unpack(">i", self.read(4, deadline))[0]


def _batch(job: dict, ctl: socket.socket, index: int, deadline: float, report: dict):
    """Tests from ``index`` on in one runner process, until the batch is full, a test
    ends the process or runs out of time -> the index of the next test to run."""
    limits, tests = job["limits"], job["tests"]
    cap = int(limits["output_bytes"])
    sock = _take(ctl, limits, report)
    if sock is None:
        return None
    stream = _Stream(sock)
    start_deadline = min(deadline, time.monotonic() + START_S)
    launch = {"command": job["launch"]["command"], "batch": True}
    python = is_python_runner(job["launch"])
    compile_error = None
    failure = "no ready"  # why the runner is taken not to have started: in the message
    try:
        wire.send_frame(sock, {"program": "", "limits": limits, "stdin": "", "launch": launch})
        reader = wire.FrameReader(sock)
        ready = wire.decode(reader.read(start_deadline))
        # a runner that starts fast (a C++ driver) says hello in the same read as "ready":
        # what the frame reader took beyond its frame is the stream's
        stream.buffer += reader.buf
        hello = stream.read(1, start_deadline) if ready == ["ready"] else b""
        started = hello == b"H"
        if hello and not started:  # e.g. a runtime's warning on the channel
            failure = f"it wrote {_first_line(hello, stream)!r} instead of its hello"
        if started:
            sock.sendall(struct.pack(">i", cap))
        if started and python:
            compile_error = _send_program(stream, job, start_deadline)
            started = compile_error is None
    except (TimeoutError, wire.DeadlineExceeded):  # TimeoutError is an OSError: first
        started, failure = False, "no hello in time"
    except (OSError, wire.PeerGone, wire.ProtocolError) as exc:
        started, failure = False, f"{type(exc).__name__}: {exc}"[:200]
    if not started:  # the runner never came up: no test of this program can run
        sock.close()
        exit_info = fork_client.end_candidate(ctl, True, 0, True)
        report["exit"] = exit_info
        if compile_error:
            report["compile_error"] = compile_error
            return None
        why = io_case.cause(str((exit_info or {}).get("stderr", "")))
        message = f"the runner did not start ({failure})" + (f": {why}" if why else "")
        report["over"] = {"kind": "start", "message": message}
        return None
    per_process = int(job["launch"].get("cases_per_process", 1))
    ran, kind = 0, "done"  # done: the batch is full, or the runner stopped after a test
    ahead = _Ahead(_send_ahead(job["launch"]))
    while index < len(tests) and ran < per_process:
        test = tests[index]
        case_deadline = _case_deadline(limits, deadline)
        sent = ahead.send(stream.sock, tests, index, index + per_process - ran, case_deadline)
        kind, result, go_on = _batch_case(
            stream, test, case_deadline, limits, not sent, os.urandom(8) if python else b""
        )
        if kind != "answered":
            break
        report["tests"].append(result)
        index, ran = index + 1, ran + 1
        if not go_on:
            kind = "done"
            break
    sock.close()
    finished = kind in ("done", "answered")
    # a test that broke the runner is decided by how the process ended (from the fork
    # server): when its channel closed, the process is given time to end on its own
    more = (index if finished else index + 1) < len(tests)
    # the Python runner's case output is in the fork server's file: a case that ended the
    # process is then judged like a program that ended (its output compared)
    stdout_bytes = cap if python and not finished else 0
    exit_info = fork_client.end_candidate(ctl, kind == "gone", stdout_bytes, more)
    report["exit"] = exit_info
    if exit_info is None:
        return None
    if finished:
        return index
    report["tests"].append(_broken_case(tests[index], kind, exit_info, limits, python))
    exit_info.pop("stdout_b64", None)
    return index + 1


def _first_line(start: bytes, stream: _Stream) -> str:
    """What a process wrote instead of its hello: up to a line, read for at most a second."""
    text = bytearray(start)
    deadline = time.monotonic() + 1.0
    try:
        while not text.endswith(b"\n") and len(text) < 200:
            text += stream.read(1, deadline)
    except (OSError, wire.PeerGone, TimeoutError):
        pass
    return text.decode("utf-8", "replace").strip()


def _broken_case(
    test: dict, kind: str, exit_info: dict, limits: dict, python: bool = False
) -> dict:
    """The verdict of a test during which the runner's process ended, hung or broke the
    protocol: from the fork server's exit status, never from the runner's word. A Python
    function-mode case that ended the process is judged as the same program ending in a
    process of its own would be: its exit status, then the output it wrote."""
    if python:
        outcome = {"kind": {"timeout": "timeout", "protocol": "protocol"}.get(kind, "ended")}
        return io_case.io_result(test, outcome, exit_info, limits)
    if kind == "gone" and exit_info.get("returncode") == 0:
        return {
            "name": test["name"],
            "compare": test["compare"],
            "exit_code": 0,
            "status": "error",
            "error_type": "NoReport",
            "message": "the process ended during the test without the runner's report",
        }
    outcome = {"kind": {"timeout": "timeout", "protocol": "protocol"}.get(kind, "ended")}
    return io_case.io_result(test, outcome, exit_info, limits, True)


def _batch_case(
    stream: _Stream,
    test: dict,
    deadline: float,
    limits: dict,
    send: bool = True,
    nonce: bytes = b"",
) -> tuple:
    """Send one test's input (unless it went ahead), read the runner's answer -> (kind,
    result, go on). With a ``nonce`` (the Python runner) the input is followed by it and
    an answer counts only if it repeats it: the nonce did not exist before this test's
    turn, so nothing written earlier can be read as this test's answer."""
    data = str(test["stdin"]).encode("utf-8")
    cap = int(limits["output_bytes"])
    try:
        stream.sock.settimeout(max(0.001, deadline - time.monotonic()))
        if send:
            stream.sock.sendall(struct.pack(">i", len(data)) + data + nonce)
        if stream.read(1, deadline) != b"C":
            return "protocol", None, False
        if nonce and stream.read(len(nonce), deadline) != nonce:
            return "protocol", None, False
        status = stream.number(deadline)
        flags = stream.read(1, deadline)[0]
        out_size = stream.number(deadline)
        if not 0 <= out_size <= cap + 1:
            return "protocol", None, False
        stdout = stream.read(out_size, deadline)
        err_size = stream.number(deadline)
        if not 0 <= err_size <= STDERR_TAIL:
            return "protocol", None, False
        stderr = stream.read(err_size, deadline).decode("utf-8", "replace")
    except TimeoutError:
        return "timeout", None, False
    except (OSError, wire.PeerGone):
        return "gone", None, False
    if not 0 <= status <= 255:
        return "protocol", None, False
    exit_info = {
        "returncode": status,
        "stdout_b64": base64.b64encode(stdout).decode("ascii"),
        "stderr": stderr,
        "output_bytes": cap if flags & 2 else len(stdout),
    }
    # a Python case is judged exactly as Python's one process per test (compiled=False)
    result = io_case.io_result(test, {"kind": "ended"}, exit_info, limits, not nonce)
    return "answered", result, bool(flags & 1)


# ---- sending inputs ahead (the Java function runner) -----------------------------------

#: the trusted runner that holds its channel out of the program's reach (FunctionRunner.java:
#: a security manager refuses the program's code file descriptors, /proc/self/fd and
#: reflection into the runner), so the judge may send inputs before earlier answers
FUNCTION_RUNNER = "FunctionRunner"
#: inputs sent ahead of the answer being read, and at most this many bytes of them: well
#: under a socket's buffer, so a send never waits for the runner
AHEAD_CASES = 64
AHEAD_BYTES = 1 << 16


def _send_ahead(launch: dict) -> int:
    """How many inputs may be in flight: 1 (the batch runner: one test's input only after
    the previous answer, so a forged answer cannot be read as a later test's) or
    ``AHEAD_CASES`` for the function runner. A test's own deadline still starts when its
    turn comes (the runner runs the cases one after another)."""
    command = [str(part) for part in launch.get("command", ())]
    return AHEAD_CASES if FUNCTION_RUNNER in command else 1


class _Ahead:
    """Inputs sent before their turn: which tests, and how many bytes are unanswered."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.next = -1  # the first test whose input has not been sent
        self.sizes: dict = {}

    def send(self, sock: socket.socket, tests: list, index: int, stop: int, deadline: float):
        """Send inputs from ``index`` on (up to the window, ``stop`` and the byte budget)
        -> whether test ``index``'s input has gone (False: the caller sends it)."""
        if self.window <= 1:
            return False
        if self.next < index:  # a fresh runner: nothing of these tests was sent to it
            self.next, self.sizes = index, {}
        self.sizes.pop(index - 1, None)
        end = min(len(tests), stop, index + self.window)
        frames = []
        while self.next < end:
            data = str(tests[self.next]["stdin"]).encode("utf-8")
            if self.next > index and sum(self.sizes.values()) + len(data) > AHEAD_BYTES:
                break
            frames.append(struct.pack(">i", len(data)) + data)
            self.sizes[self.next] = len(data) + 4
            self.next += 1
        if frames:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                sock.sendall(b"".join(frames))
            except OSError:
                return True  # the runner is gone: the answer's read says so
        return True


# ---- Python function mode (python_function_runner.py) ----------------------------------

COMPILE_ERROR_BYTES = 8000


def is_python_runner(launch: dict) -> bool:
    """Whether the launcher starts the Python function runner, whose answers carry each
    test's nonce (job.py; languages.py names it)."""
    return launch.get("runner") == PYTHON_FUNCTION


def _send_program(stream: _Stream, job: dict, deadline: float) -> "dict | None":
    """Give the Python runner its seed and program; it compiles it -> None, or the
    compile error (``compile()`` refused the source)."""
    source = str(job["program"]).encode("utf-8", "surrogatepass")
    seed = int(job.get("seed", 0)) % (1 << 63)
    stream.sock.settimeout(max(0.001, deadline - time.monotonic()))
    stream.sock.sendall(struct.pack(">qi", seed, len(source)) + source)
    answer = stream.read(1, deadline)
    if answer == b"P":
        return None
    if answer != b"E":
        raise wire.ProtocolError("the Python runner did not compile the program")
    size = stream.number(deadline)
    if not 0 <= size <= COMPILE_ERROR_BYTES:
        raise wire.ProtocolError("an oversized compile error")
    kind, _, message = stream.read(size, deadline).decode("utf-8", "replace").partition("\n")
    return {"error_type": kind[:100], "message": message[:4000]}
