"""Python function mode, batched: one process calls the answer's function case after case
(``execution/python_function_runner.py``) through the real bubblewrap sandbox.

The oracle for "unchanged behaviour" is the one-process-per-case path that ran Python
function mode before (the same program without its trailer line): every verdict of a
misbehaving answer must be the same both ways. Hostile answers check that a case can only
ever cost itself: hangs, exits, crashes, forged frames on every descriptor, threads and
processes left running, files left behind, searching for the expected output, patched
builtins and patched runner code.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import FunctionCall, Task, TestCase
from beyondpass.evaluators.base import Candidate
from beyondpass.evaluators.functional import FunctionalEvaluator
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor
from beyondpass.execution.languages import io_request
from beyondpass.extraction.result import Extraction
from beyondpass.methods.psb2.analysis import failure_kind
from beyondpass.methods.psb2.benchmark import data as psb2_data
from beyondpass.methods.psb2.benchmark.data import Case
from beyondpass.methods.psb2.benchmark.loader import EXACT_LINES, io_test
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS
from beyondpass.methods.psb2.drivers import function_call, python_program, reference_program
from beyondpass.methods.psb2.prompts import function_mode_request

GCD = PROBLEMS["gcd"]
LIMITS = ExecutionLimits(timeout_s=60, test_timeout_s=2)


@pytest.fixture(scope="module")
def executor():
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


def gcd_tests(pairs: list[tuple[int, int]]) -> list[TestCase]:
    """gcd cases with their outputs from ``math.gcd`` (an independent oracle)."""
    cases = [Case([a, b], [math.gcd(a, b)], "edge", i) for i, (a, b) in enumerate(pairs)]
    return [io_test(GCD, c, EXACT_LINES) for c in cases]


def both_ways(executor, code: str, tests: list[TestCase]):
    """(batched result, one-process-per-case result) of the same answer."""
    batched = function_mode_request("python", code, GCD, tests, LIMITS)
    assert batched.launcher is not None
    single = ExecutionRequest(program=python_program(code, GCD), tests=tests, limits=LIMITS)
    assert single.launcher is None
    return executor.run_many([batched, single])


def verdicts(result) -> list[tuple]:
    return [(t.name, str(t.status), t.error_type, t.exit_code, t.message) for t in result.tests]


MISBEHAVING = """
import ctypes, os, sys

def gcd(a, b):
    if a == 13:
        raise ValueError("thirteen")
    if a == 17:
        sys.exit(3)
    if a == 19:
        os._exit(0)
    if a == 23:
        os._exit(5)
    if a == 29:
        print("debug line")
    if a == 31:
        return None
    if a == 37:
        ctypes.string_at(0)  # SIGSEGV
    if a == 41:
        sys.stdout.write("x" * 3_000_000)
    if a == 43:
        sys.exit("a message")
    if a == 47:
        print("to stderr", file=sys.stderr)
        return 1 / 0
    while b:
        a, b = b, a % b
    return a
"""
PAIRS = [(12, 18), (13, 5), (17, 4), (19, 3), (23, 9), (29, 6), (31, 2), (37, 7), (41, 3)]
PAIRS += [(43, 2), (47, 3), (100, 75)]


def test_misbehaving_answer_gets_the_same_verdicts_as_one_process_per_case(executor) -> None:
    tests = gcd_tests(PAIRS)
    batched, single = both_ways(executor, MISBEHAVING, tests)
    assert verdicts(batched) == verdicts(single)
    by_name = {t.name: t for t in batched.tests}
    assert [by_name[n].status for n in ("edge-0", "edge-11")] == [Status.PASSED] * 2
    assert by_name["edge-7"].status is Status.KILLED  # the segfault cost its own case only
    assert by_name["edge-8"].status is Status.OUTPUT_LIMIT
    assert "got 'debug line'" in by_name["edge-5"].message  # prints count, as before
    assert "ValueError: thirteen" in by_name["edge-1"].message
    assert by_name["edge-2"].exit_code == 3
    assert "ZeroDivisionError" in by_name["edge-10"].message


@pytest.mark.parametrize(
    "code",
    [
        "def solve(a, b):\n    return a\n",  # missing
        "def gcd(a):\n    return a\n",  # cannot take the arguments
        "gcd = 3\n",  # not callable
    ],
)
def test_a_function_that_cannot_be_called_keeps_its_own_status(executor, code) -> None:
    tests = gcd_tests([(4, 6), (9, 3)])
    batched, single = both_ways(executor, code, tests)
    assert verdicts(batched) == verdicts(single)
    assert {failure_kind(t.as_dict()) for t in batched.tests} == {"function_not_found"}


@pytest.mark.parametrize(
    "code",
    [
        "print('loaded')\ndef gcd(a, b):\n    return 2\n",  # top-level output precedes each
        "import sys\nsys.exit(4)\n",
        "raise KeyError('at load')\n",
        "import os\nos.environ['X'] = '1'\ndef gcd(a, b):\n    return len(os.environ) * 0 + 2\n",
        # as deep a stack as in a process of its own (the recursion limit is adjusted)
        "def gcd(a, b):\n    def down(n):\n        try:\n            return down(n + 1)\n"
        "        except RecursionError:\n            return n\n    return down(0)\n",
    ],
)
def test_top_level_code_behaves_as_in_one_process_per_case(executor, code) -> None:
    tests = gcd_tests([(4, 6), (9, 3), (8, 12)])
    batched, single = both_ways(executor, code, tests)
    assert verdicts(batched) == verdicts(single)
    assert batched.status is single.status


def test_a_syntax_error_is_a_compile_error_as_before(executor) -> None:
    batched, single = both_ways(executor, "def gcd(a, b:\n    return a\n", gcd_tests([(4, 6)]))
    assert batched.status is single.status is Status.COMPILE_ERROR
    assert batched.message == single.message


def test_a_hang_costs_only_its_own_case(executor) -> None:
    code = (
        "def gcd(a, b):\n    while a == 7:\n        pass\n    return __import__('math').gcd(a, b)\n"
    )
    tests = gcd_tests([(4, 6), (7, 3), (9, 3), (7, 2), (10, 4)])
    request = function_mode_request("python", code, GCD, tests, LIMITS)
    result = executor.run(request)
    assert [str(t.status) for t in result.tests] == [
        "passed",
        "timeout",
        "passed",
        "timeout",
        "passed",
    ]
    assert result.status is Status.TIMEOUT


# -- hostile answers -------------------------------------------------------------------------
FORGER = """
import os, struct

def _forge(out):
    body = out.encode()
    for nonce in (bytes(8), b"\\xff" * 8):
        frame = b"C" + nonce + struct.pack(">iBi", 0, 1, len(body)) + body + struct.pack(">i", 0)
        for fd in range(1024):
            try:
                os.write(fd, frame)
            except OSError:
                pass

def gcd(a, b):
    x, y = a, b
    while y:
        x, y = y, x % y
    _forge(f"{x}\\n")   # the right answer, claimed on every descriptor
    return -1           # while the function itself answers wrongly
"""


def test_forged_frames_on_every_descriptor_never_pass(executor) -> None:
    tests = gcd_tests([(12, 18), (9, 3), (8, 12), (100, 75)])
    result = executor.run(function_mode_request("python", FORGER, GCD, tests, LIMITS))
    assert len(result.tests) == len(tests)
    assert all(t.status is not Status.PASSED for t in result.tests), verdicts(result)
    # the frame written on the channel breaks the protocol: an error of that case only
    assert {t.error_type for t in result.tests} <= {"ProtocolError", "WrongOutput"}


PATCHER = """
import builtins, os, struct, sys, traceback
main = sys.modules["__main__"]          # the runner itself
main.Runner.case = lambda self, data: (0, 1, b"1\\n", b"")
main._render = lambda outputs, result: "1\\n"
builtins.print = lambda *a, **k: None
builtins.repr = lambda x: "1"
os.write = lambda fd, data: len(data)
os.read = lambda fd, n: b""
traceback.format_exception = lambda *a, **k: ["fake\\n"]

def gcd(a, b):
    return 1
"""


def test_patching_the_runner_and_builtins_is_no_more_than_choosing_the_output(executor) -> None:
    """The function can rewrite every piece of the runner in its process; it still only
    chooses what its own cases answer, and the judge compares that with outputs it never
    saw: every case whose gcd is not 1 fails."""
    tests = gcd_tests([(12, 18), (9, 3), (8, 12), (100, 75), (7, 5)])
    result = executor.run(function_mode_request("python", PATCHER, GCD, tests, LIMITS))
    assert [t.status is Status.PASSED for t in result.tests] == [False, False, False, False, True]


LEFTOVERS = """
import os, signal, threading, time
def _pester():
    while True:
        for fd in range(3, 64):
            try:
                os.write(fd, b"C" + bytes(40))
            except OSError:
                pass
        print("late output")
        time.sleep(0.001)

def gcd(a, b):
    if a == 13:
        threading.Thread(target=_pester, daemon=True).start()
    if a == 17 and os.fork() == 0:
        os.setsid()
        _pester()
    if os.path.exists("state.txt"):  # left by an earlier case
        return -1
    if a == 19:
        with open("state.txt", "w") as fh:
            fh.write("x")
    if a == 23:
        signal.setitimer(signal.ITIMER_REAL, 0.3)  # SIGALRM ends a process 0.3 s later
    if a == 29:
        time.sleep(1.0)  # long enough for a pending alarm to fire in this case
    while b:
        a, b = b, a % b
    return a
"""


def test_threads_processes_and_files_a_case_leaves_never_reach_later_cases(executor) -> None:
    pairs = [(12, 18), (13, 26), (9, 3), (17, 34), (8, 12), (19, 38), (100, 75), (23, 46)]
    tests = gcd_tests([*pairs, (29, 58)])
    result = executor.run(function_mode_request("python", LEFTOVERS, GCD, tests, LIMITS))
    status = {t.name: t.status for t in result.tests}
    # the cases that left something behind may have been disturbed by it themselves (the
    # thread or process can write before the answer); every other case passes
    for name in ("edge-0", "edge-2", "edge-4", "edge-6", "edge-8"):
        assert status[name] is Status.PASSED, verdicts(result)
    assert status["edge-5"] is Status.PASSED  # wrote its file after it looked for one
    assert status["edge-7"] is Status.PASSED  # its alarm was still pending when it answered


SEARCHER = """
import gc, os, re

# the expected outputs hold bpX, 16 hex digits, Y: this pattern's own text does not match
SECRET = re.compile(rb"bpX[0-9a-f]{16}Y")

def _found():
    for obj in gc.get_objects():
        if isinstance(obj, (list, dict, tuple)) and SECRET.search(repr(obj)[:100000].encode()):
            return True
    paths = [f"/proc/{pid}/{part}" for pid in os.listdir("/proc") if pid.isdigit()
             for part in ("cmdline", "environ")]
    for root in ("/tmp", "/opt", os.environ.get("HOME", "/tmp")):
        for dirpath, dirnames, filenames in os.walk(root):
            paths += [os.path.join(dirpath, name) for name in filenames]
    for path in paths:
        try:
            with open(path, "rb") as fh:
                if SECRET.search(fh.read(1 << 24)):
                    return True
        except OSError:
            pass
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                if SECRET.search(mem.read(min(end - start, 1 << 26))):
                    return True
            except (OSError, ValueError, OverflowError):
                pass
    return False

def finder(text):
    return "found" if _found() else "missing"
"""


def test_the_expected_output_is_nowhere_the_function_can_look(executor) -> None:
    program, call = SEARCHER, FunctionCall("finder", ("str",), ("str",))
    secrets = [f"bpX{random.Random(i).getrandbits(64):016x}Y" for i in range(2)]
    tests = [
        TestCase(f"edge-{i}", stdin=f"case {i}\n", expected_stdout=f"{secret}\n")
        for i, secret in enumerate(secrets)
    ]
    # control: a secret the function is given (its input) is found, in its own memory
    control = TestCase("edge-2", stdin=f"{secrets[0]}\n", expected_stdout="found\n")
    slow = ExecutionLimits(timeout_s=300, test_timeout_s=120)  # it reads a lot
    result = executor.run(io_request("python", program, [*tests, control], slow, function=call))
    assert [t.message for t in result.tests] == [
        *(f"line 1: expected '{secret}', got 'missing'" for secret in secrets),
        "",
    ]


# -- the evaluator and our references --------------------------------------------------------
def test_the_functional_evaluator_gives_python_function_mode_the_runner(executor) -> None:
    tests = tuple(gcd_tests([(12, 18), (9, 3)]))
    task = Task("psb2", "gcd", "python", "", "gcd", "", tests)
    program = python_program("def gcd(a, b):\n    return 3\n", GCD)
    call = function_call(GCD, "python")
    candidate = Candidate(task, Extraction("ok", "", program, "full", function=call))
    evaluator = FunctionalEvaluator(executor, LIMITS)
    assert evaluator._request(candidate).launcher is not None
    (evaluation,) = evaluator.evaluate([candidate])
    assert [t["status"] for t in evaluation.details["tests"]] == ["failed", "passed"]
    plain = Candidate(task, Extraction("ok", "", "print(6)\n", "full"))  # a whole program
    assert evaluator._request(plain).launcher is None
    untyped = Candidate(task, Extraction("ok", "", program, "full"))  # the same text, no call
    assert evaluator._request(untyped).launcher is None  # runs once per case, as a program


def test_every_reference_passes_seeded_random_cases_batched(executor, tmp_path: Path) -> None:
    requests = []
    for name, p in sorted(PROBLEMS.items()):
        cases, _ = psb2_data.random_cases(name, 40, 7, cache_dir=tmp_path)
        tests = [io_test(p, c, EXACT_LINES) for c in cases]
        call = function_call(p, "python")
        requests.append(io_request("python", reference_program(p), tests, LIMITS, function=call))
    results = executor.run_many(requests)
    failing = {
        name: r.message for name, r in zip(sorted(PROBLEMS), results, strict=True) if not r.passed
    }
    assert failing == {}
    assert all(len(r.tests) == 40 for r in results)
