"""I/O tests in the judge: a fresh process per test runs the whole program on its input.

The program's process gets the program and the test's input, nothing else; the expected
output stays in the judge. The fork server hands back the process's exit status (from
``waitpid``) and its stdout, read back after the process and everything it started are
dead, and the test is decided here: exit status first, then the output (:mod:`io_compare`).

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import socket
import time

import fork_client
import io_case


def judge_python_io(job: dict, ctl: socket.socket) -> dict:
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
        sock, over, ctl_ok = fork_client.take_candidate(ctl, limits)
        if not ctl_ok or sock is None:
            report["over"] = over
            if ctl_ok:
                report["exit"] = fork_client.end_candidate(ctl, False)
            break
        outcome, closed = io_case.run_io_case(job, test, sock, case_deadline)
        sock.close()
        exit_info = fork_client.end_candidate(ctl, closed, int(limits["output_bytes"]))
        report["exit"] = exit_info
        if exit_info is None:
            break
        report["tests"].append(io_case.io_result(test, outcome, exit_info, limits))
        exit_info.pop("stdout_b64", None)  # compared: the harness keeps tails only
        if outcome["kind"] == "compile_error":
            report["compile_error"] = {"error_type": outcome["type"], "message": outcome["message"]}
            break
        if outcome["kind"] == "timeout":
            report["over"] = {"kind": "timeout", "message": "out of time", "test": test["name"]}
            break
    report["wall_s"] = time.monotonic() - start
    return report
