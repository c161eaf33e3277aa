"""Verdicts and limits of both local executors (pooled sandbox workers, fresh per sample).

Attacks on the sandbox live in test_sandbox_hostile.py.
"""

from __future__ import annotations

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor

TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))
GOOD = "def inc(x):\n    return x + 1\n"


@pytest.fixture(scope="module", params=["sandbox", "subprocess"])
def executor(request):
    ex = create_executor(request.param, workers=2)
    yield ex
    ex.close()


def run(executor, program: str, tests=TESTS, **limits) -> object:
    return executor.run(
        ExecutionRequest(program=program, tests=tests, limits=ExecutionLimits(**limits))
    )


def test_correct_program_passes_every_test(executor):
    result = run(executor, GOOD)
    assert result.status is Status.PASSED
    assert [(t.name, t.status) for t in result.tests] == [("a", "passed"), ("b", "passed")]


def test_wrong_result_is_failed_and_names_the_test(executor):
    result = run(executor, "def inc(x):\n    return x\n")
    assert result.status is Status.FAILED
    assert result.message.startswith("test a: AssertionError")


def test_exception_is_error_with_its_type(executor):
    result = run(executor, "def inc(x):\n    raise ValueError('nope')\n")
    assert result.status is Status.ERROR
    assert "ValueError" in result.message and "nope" in result.message


def test_error_at_load_time(executor):
    result = run(executor, "import does_not_exist_anywhere\n" + GOOD)
    assert result.status is Status.ERROR
    assert "ModuleNotFoundError" in result.message


def test_infinite_loop_times_out(executor):
    result = run(executor, "def inc(x):\n    while True:\n        pass\n", timeout_s=1)
    assert result.status is Status.TIMEOUT


def test_runs_in_a_private_scratch_directory(executor, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = (
        "import os\n"
        "open('scratch.txt', 'w').write('x')\n"
        f"assert os.getcwd() != {str(tmp_path)!r}\n" + GOOD
    )
    assert run(executor, program).status is Status.PASSED
    assert not (tmp_path / "scratch.txt").exists()


def test_output_is_captured_and_bounded(executor):
    result = run(executor, "print('hello from the sample')\n" + GOOD)
    assert "hello from the sample" in result.stdout
    flood = run(executor, "import sys\nsys.stdout.write('x' * 50_000_000)\n" + GOOD)
    assert flood.status is Status.OUTPUT_LIMIT
    assert len(flood.stdout) <= 4000


def test_timing_repeats_are_reported_per_test(executor):
    request = ExecutionRequest(program=GOOD, tests=TESTS, timing_repeats=5)
    result = executor.run(request)
    assert result.status is Status.PASSED
    assert all(len(t.times_ns) == 5 and all(x > 0 for x in t.times_ns) for t in result.tests)


@pytest.mark.parametrize(
    "tests",
    [
        TESTS,  # one call per test: every call is sent ahead
        # two calls in one of several tests: nothing is sent ahead, calls go one at a time
        (TestCase("a", "assert inc(1) == 2\nassert inc(2) == 3"), TESTS[1]),
    ],
)
def test_timing_repeats_are_reported_in_reference_units_too(executor, tests):
    result = executor.run(ExecutionRequest(program=GOOD, tests=tests, timing_repeats=3))
    assert all(len(t.times_ref) == 3 and all(x > 0 for x in t.times_ref) for t in result.tests)


# The timed repeats of a call must not change what the tests see: a function that changes
# its argument gets a fresh copy for every repeat, in the planned (sent-ahead) and the
# one-call-at-a-time paths alike; and a timing run never changes a verdict: a program
# whose state the repeats changed keeps its pass and loses its times, with the reason.
STATEFUL = """
seen = []
def grow(xs):
    xs.append(len(xs))
    seen.append(len(xs))
    return xs
def sizes():
    return sorted(set(seen))
count = 0
def tick():
    global count
    count += 1
    return count
"""
GROW = (
    TestCase("grow", "xs = [0, 1]\nassert grow(xs) == [0, 1, 2]\nassert xs == [0, 1, 2]"),
    TestCase("sizes", "assert sizes() == [3]"),
)
TICK = TestCase("tick", "first = tick()\nassert tick() == first + 1")


@pytest.mark.parametrize("per_test_timeout", [None, 30.0])  # sent ahead / one call at a time
def test_timed_repeats_copy_the_arguments_they_change(executor, per_test_timeout):
    limits = ExecutionLimits(test_timeout_s=per_test_timeout)
    request = ExecutionRequest(program=STATEFUL, tests=GROW, timing_repeats=5, limits=limits)
    result = executor.run(request)
    assert result.status is Status.PASSED, result.message
    assert all(len(t.times_ref) == 5 for t in result.tests)
    assert result.timing_error == ""


def test_a_failed_timing_run_keeps_the_pass_and_drops_every_time(executor):
    request = ExecutionRequest(program=STATEFUL, tests=(*GROW, TICK), timing_repeats=5)
    result = executor.run(request)
    assert result.status is Status.PASSED, result.message
    assert all(not t.times_ns and not t.times_ref for t in result.tests)
    assert result.timing_error.startswith("test tick: failed on a timing run")
    untimed = executor.run(ExecutionRequest(program=STATEFUL, tests=(*GROW, TICK)))
    assert untimed.status is Status.PASSED  # the same verdict as without timing


def test_a_program_that_hangs_only_when_timed_keeps_its_pass(executor):
    # the first runs answer at once; the timing runs never end: the sample's time runs out
    # (the timing runs have the sample's limit once per repeat: two repeats, 4 s)
    program = "calls = [0]\ndef inc(x):\n    calls[0] += 1\n    while calls[0] > 2:\n"
    program += "        pass\n    return x + 1\n"
    limits = ExecutionLimits(timeout_s=2)
    request = ExecutionRequest(program=program, tests=TESTS, timing_repeats=2, limits=limits)
    result = executor.run(request)
    assert result.status is Status.PASSED, result.message
    assert "timeout on a timing run" in result.timing_error
    assert all(not t.times_ns for t in result.tests)
    after = executor.run(ExecutionRequest(program=GOOD, tests=TESTS, timing_repeats=2))
    assert after.status is Status.PASSED and all(len(t.times_ns) == 2 for t in after.tests)


@pytest.mark.parametrize("per_test_timeout", [None, 2.0])
def test_a_slow_program_that_passes_is_timed_not_cut_off(executor, per_test_timeout):
    # one first run takes 0.2 s of the sample's 2 s; twelve timing runs take 2.4 s more:
    # each timing run has a budget of its own (the sample's, and the per-test limit if
    # set), so timing costs neither the pass nor the times. Each run has ten times its
    # time in hand: a loaded machine does not cut it off
    program = "import time\ndef slow(x):\n    end = time.monotonic() + 0.2\n"
    program += "    while time.monotonic() < end:\n        pass\n    return x\n"
    tests = (TestCase("slow", "assert slow(7) == 7"),)
    limits = ExecutionLimits(timeout_s=2, test_timeout_s=per_test_timeout)
    result = executor.run(
        ExecutionRequest(program=program, tests=tests, timing_repeats=12, limits=limits)
    )
    assert result.status is Status.PASSED, result.message
    assert result.timing_error == ""
    assert len(result.tests[0].times_ns) == 12
    assert all(ns >= 200_000_000 for ns in result.tests[0].times_ns)


def test_run_many_keeps_request_order(executor):
    programs = [GOOD, "def inc(x):\n    return x\n", GOOD, "syntax error here (", GOOD]
    seen: list[int] = []
    results = executor.run_many(
        [ExecutionRequest(program=p, tests=TESTS) for p in programs],
        on_result=lambda i, r: seen.append(i),
    )
    assert [r.status for r in results] == [
        Status.PASSED,
        Status.FAILED,
        Status.PASSED,
        Status.ERROR,
        Status.PASSED,
    ]
    assert sorted(seen) == [0, 1, 2, 3, 4]


def test_metadata_names_the_executor_and_its_isolation(executor):
    meta = executor.metadata()
    assert meta["executor"] in ("sandbox", "subprocess")
    assert meta["isolation"] in ("bwrap", "unshare", "process")
    assert meta["isolation_details"] and meta["process_budget"]
    assert meta["fresh_worker_per_sample"] is (meta["executor"] == "subprocess")


def test_a_single_test_has_its_own_time_limit(executor):
    tests = (TestCase("quick", "assert inc(1) == 2"), TestCase("slow", "assert inc(-1) == 0"))
    program = "def inc(x):\n    while x < 0:\n        pass\n    return x + 1\n"
    result = executor.run(
        ExecutionRequest(
            program=program,
            tests=tests,
            limits=ExecutionLimits(timeout_s=30, test_timeout_s=1),
        )
    )
    assert result.status is Status.TIMEOUT
    assert "1 s per test" in result.message
    assert [(t.name, t.status) for t in result.tests] == [("quick", "passed"), ("slow", "timeout")]


def test_command_line_executor_choice_overrides_the_study_field_by_field():
    from beyondpass.cli.options import executor_choice
    from beyondpass.errors import ConfigError
    from beyondpass.execution import ExecutorChoice

    study = ExecutorChoice("ray", "bwrap", "10.0.0.1:6379")
    assert executor_choice(None, None, None, study) is study
    assert executor_choice(None, "process", None, study) == ExecutorChoice(
        "ray", "process", "10.0.0.1:6379"
    )
    assert executor_choice("sandbox", None, None, study) == ExecutorChoice("sandbox", "bwrap")
    assert executor_choice(None, None, "auto") == ExecutorChoice("ray", "auto", "auto")
    with pytest.raises(ConfigError, match="needs the ray executor"):
        executor_choice("sandbox", None, "auto")
    with pytest.raises(ConfigError, match="unknown isolation level"):
        ExecutorChoice(isolation="chroot")
