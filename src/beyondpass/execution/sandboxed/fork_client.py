"""The judge's side of the candidate fork server's protocol: take a process, end it.

Per sample (per test, for I/O tests) the judge takes the channel to the process the fork
server has ready, and when done asks the fork server to end it: the fork server, which
never runs a program's code, answers with the process's exit status and output.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import json
import socket
import time

import wire

END_GRACE_S = 10.0  # for the fork server to clean up after a sample


def take_candidate(ctl: socket.socket, limits: dict) -> tuple:
    """The channel to the process the fork server has ready -> (socket or None, why not,
    whether the control socket still works)."""
    try:  # the fork server has a process ready (or is forking it): take its channel
        ctl.settimeout(END_GRACE_S + float(limits["timeout_s"]))
        data, fds, _, _ = socket.recv_fds(ctl, 1, 1)
    except OSError as exc:
        return None, {"kind": "sandbox", "message": f"the candidate sandbox failed: {exc}"}, False
    if fds and data == b"F":
        return socket.socket(fileno=fds[0]), None, True
    kind = "start" if data == b"E" else "sandbox"
    return None, {"kind": kind, "message": "the candidate process could not start"}, True


def end_candidate(
    ctl: socket.socket,
    closed: bool,
    stdout_bytes: int = 0,
    keep_build: bool = False,
    cpu: bool = False,
) -> "dict | None":
    """Have the fork server end the process -> its exit status and output (None: the
    sandbox is broken and the harness replaces this worker). ``keep_build``: a compiled
    program's build stays for its next test's process. ``cpu``: also the CPU time of the
    process and everything it started (``cpu_ns``, from the kernel's accounting)."""
    end = {"op": "end", "closed": closed, "stdout_bytes": stdout_bytes}
    if keep_build:
        end["keep_build"] = True
    if cpu:
        end["cpu"] = True
    try:
        wire.send_frame(ctl, end)
        return json.loads(wire.recv_frame(ctl, time.monotonic() + END_GRACE_S))
    except (OSError, wire.PeerGone, wire.DeadlineExceeded, wire.ProtocolError, ValueError):
        return None
