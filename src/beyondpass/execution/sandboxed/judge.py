"""The judge: runs a task's tests against a candidate that lives in another process.

Runs inside its own sandbox as ``python -s -P judge.py CONTROL_FD HARNESS_FD``, serving
jobs from the harness over length-prefixed JSON frames (:mod:`wire`) on the harness socket.
Per job it takes the channel to a fresh process that the candidate fork server has ready
(over the control socket), sends it the program, and executes the benchmark's test code
*here*, with the
program's names bound to proxies: calling ``candidate(x)`` sends ``x`` over the channel and
gets back plain data (:mod:`wire`). Assertions, comparisons and exception matching all
happen in this process, on values the candidate cannot make lie. The candidate has no way
to reach the harness: the judge's report is the only verdict channel.

Why not run the tests inside the candidate's process, as most harnesses do? There the
code can return an object whose ``__eq__`` is always true, skip assertions with a trace
function, or find the result channel in memory. Here, the candidate process never holds a
test, an expected value or the verdict channel.

One job per sample (:mod:`job`), dispatched on its kind: call-style tests
(:mod:`call_tests`, the candidate behind :mod:`remote`), I/O tests of a Python program
(:mod:`io_judge`), programs started by a launcher (:mod:`compiled_judge`).

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import call_tests  # noqa: E402 - after the path set-up, by design
import compiled_judge  # noqa: E402
import io_judge  # noqa: E402
import io_timing  # noqa: E402
import job as job_schema  # noqa: E402
import wire  # noqa: E402


def judge(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of any kind (sandboxed/job.py): the dispatch table picks the handler;
    timing runs of I/O tests follow once the verdict is settled."""
    problem = job_schema.check(job)
    if problem:
        over = {"kind": "sandbox", "message": f"the judge cannot run this job: {problem}"}
        return {"tests": [], "load_error": None, "over": over, "exit": None, "wall_s": 0.0}
    report = HANDLERS[job["kind"]](job, ctl)
    if job["io"] and job.get("io_timing"):  # compiled programs: an error, said once
        io_timing.time_io(job, ctl, report)
    return report


HANDLERS = {
    job_schema.CALL: call_tests.judge_calls,
    job_schema.IO: io_judge.judge_python_io,
    job_schema.LAUNCHED: compiled_judge.judge_compiled,
}


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))  # to the candidate fork server
    harness = socket.socket(fileno=int(sys.argv[2]))  # jobs in, reports out
    wire.send_frame(ctl, json.loads(wire.recv_frame(harness))["candidate"])
    hello = json.loads(wire.recv_frame(ctl, time.monotonic() + 60))
    wire.send_frame(harness, {"ready": True, "candidate": hello})
    while True:
        try:
            job = json.loads(wire.recv_frame(harness))
        except wire.PeerGone:
            return
        wire.send_frame(harness, judge(job, ctl))


if __name__ == "__main__":
    main()
