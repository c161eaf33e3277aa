"""Timing runs of I/O tests, in the judge: each test run again, timed by trusted code.

After every test of a Python I/O sample has passed, each test runs ``repeats`` more times,
round-robin (test 1, test 2, ..., test 1, ...), every run a fresh process exactly as for
the verdict (io_judge.py). Each run is checked again (exit status, then output); a run
that does not pass leaves the sample without times and says why (``timing_error``): the
verdict stays the first runs'.

Two times per run, neither of which the program can forge:

- ``times_ns``, CPU time: user + system time of the run's process and of every process it
  started, from the kernel's accounting, collected by the fork server (which never runs a
  program) after it has killed and reaped all of them — orphans included, as it is their
  subreaper — minus the CPU time the process spent setting itself up (reading its job,
  its stdin, its limits), which it reports in its ``ready`` message before any of the
  program's code runs. A forked warm interpreter has no interpreter start-up; compiling
  the program counts. Less noisy than wall-clock time on a shared machine: time the
  process waits for a core is not counted.
- ``times_wall_ns``, wall-clock time in the judge from sending the program until its
  process ended (its channel closed): NoFunEval's way of timing, a clock around the run.

If the fork server cannot account for every process of a run (one survived being killed,
as a ``setsid`` escapee can at the ``process`` level), the sample gets no times.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import time

import fork_client
import io_case


def time_io(job: dict, ctl, report: dict) -> None:
    """Add ``times_ns`` and ``times_wall_ns`` to every test of a passing I/O ``report``
    (or ``report["timing_error"]``)."""
    repeats = int(job.get("repeats") or 0)
    tests = job["tests"]
    results = report.get("tests") or []
    passed = len(results) == len(tests) and all(r.get("status") == "passed" for r in results)
    if repeats <= 0 or not passed or report.get("over") or report.get("exit") is None:
        return
    if job.get("launch"):
        report["timing_error"] = "timing runs of compiled programs are not supported"
        return
    limits = job["limits"]
    timeout_s = float(limits["timeout_s"])
    per_run_s = float(limits.get("test_timeout_s") or timeout_s)
    deadline = time.monotonic() + timeout_s * repeats
    cpu: dict = {t["name"]: [] for t in tests}
    wall: dict = {t["name"]: [] for t in tests}
    for _ in range(repeats):
        for test in tests:
            run_deadline = min(deadline, time.monotonic() + per_run_s)
            error = _timed_run(job, test, ctl, run_deadline, report, cpu, wall)
            if error:
                report["timing_error"] = f"test {test['name']}: {error}"[:500]
                return
    for result in results:
        result["times_ns"], result["times_wall_ns"] = cpu[result["name"]], wall[result["name"]]


def _timed_run(
    job: dict, test: dict, ctl, deadline: float, report: dict, cpu: dict, wall: dict
) -> str:
    """One timed run of one test -> why it gave no time ("" when it did)."""
    limits = job["limits"]
    sock, over, ctl_ok = fork_client.take_candidate(ctl, limits)
    if not ctl_ok or sock is None:
        if ctl_ok:
            report["exit"] = fork_client.end_candidate(ctl, False)
        else:
            report["exit"] = None  # the sandbox is broken: the harness replaces the worker
        return f"a timing run could not start: {(over or {}).get('message', '')}"
    start = time.monotonic_ns()
    outcome, closed = io_case.run_io_case(job, test, sock, deadline, cpu=True)
    elapsed = time.monotonic_ns() - start
    sock.close()
    exit_info = fork_client.end_candidate(ctl, closed, int(limits["output_bytes"]), cpu=True)
    if exit_info is None:
        report["exit"] = None
        return "the sandbox broke during a timing run"
    result = io_case.io_result(test, outcome, exit_info, limits)
    if result["status"] != "passed":
        return f"{result['status']} on a timing run: {result.get('message', '')}"
    used, setup = exit_info.get("cpu_ns"), outcome.get("setup_ns")
    if type(used) is not int or type(setup) is not int:
        return "the CPU time of a timing run could not be accounted (a process outlived it)"
    cpu[test["name"]].append(max(0, used - setup))
    wall[test["name"]].append(elapsed)
    return ""
