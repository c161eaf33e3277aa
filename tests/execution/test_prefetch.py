"""Calls sent ahead: read only where the source fixes them, and verdicts as if sent one by one."""

from __future__ import annotations

import textwrap

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor
from beyondpass.execution.sandboxed.prefetch import planned_calls

CALLABLES = frozenset({"inc", "helper"})
PROGRAM = CALLABLES | {"TABLE"}


def plan(source: str):
    return planned_calls(textwrap.dedent(source), CALLABLES, PROGRAM)


def test_one_line_asserts_are_planned_with_literal_arguments():
    assert plan("assert inc(3) == 4") == [("inc", [3], {})]
    assert plan("assert inc([1, (2, 3)], k={'a': -1.5}) is None") == [
        ("inc", [[1, (2, 3)]], {"k": {"a": -1.5}})
    ]
    assert plan("assert abs(inc(1) - inc(2)) < 1e-6, 'close'") == [
        ("inc", [1], {}),
        ("inc", [2], {}),
    ]
    assert plan("import math\nassert math.isclose(helper(2), 0.5)") == [("helper", [2], {})]


def test_a_check_function_is_planned_in_order_with_its_parameter_bound():
    source = """
        METADATA = {"author": "x"}
        def check(candidate):
            "doc"
            assert candidate(1) == 2
            assert candidate(2) == 3, "second"
            assert helper(5)
        check(inc)
        """
    assert plan(source) == [("inc", [1], {}), ("inc", [2], {}), ("helper", [5], {})]


@pytest.mark.parametrize(
    "source",
    [
        "for i in range(3):\n    assert inc(i) == i + 1",  # a loop
        "x = 1\nassert inc(x) == 2",  # a computed argument
        "assert inc(1) == 2 and inc(2) == 3",  # short-circuit
        "assert 0 < inc(1) < inc(2)",  # a chained comparison stops early
        "assert list(map(inc, [1])) == [2]",  # the program's function as a value
        "assert TABLE[0] == 1",  # the program's value read
        "inc = lambda x: x + 1\nassert inc(1) == 2",  # the test rebinds the program's name
        "assert inc(1) == 2, helper(0)",  # the message runs only on failure
        "assert [inc(i) for i in range(2)] == [1, 2]",  # a comprehension
        "assert inc(*[1]) == 2",  # unpacked arguments
        "def check(candidate):\n    for x in [1]:\n        assert candidate(x)\ncheck(inc)",
        "assert inc(1) == 2\nif True:\n    pass",
        "not python (",
    ],
)
def test_what_the_source_does_not_fix_is_not_planned(source):
    assert plan(source) is None


@pytest.fixture(scope="module")
def executor():
    ex = create_executor("sandbox", workers=1)
    yield ex
    ex.close()


def run(executor, program: str, tests, repeats: int = 0, **limits):
    return executor.run(
        ExecutionRequest(
            program=textwrap.dedent(program),
            tests=tests,
            limits=ExecutionLimits(**{"timeout_s": 5, **limits}),
            timing_repeats=repeats,
        )
    )


def test_a_stateful_program_sees_its_calls_in_test_order(executor):
    program = """
        COUNT = [0]
        def tick(step):
            COUNT[0] += step
            return COUNT[0]
        """
    tests = tuple(TestCase(f"t{i}", f"assert tick(1) == {i + 1}") for i in range(20))
    result = run(executor, program, tests)
    assert result.status is Status.PASSED, result.message
    two = (TestCase("t0", "assert tick(1) == 1"), TestCase("t1", "assert tick(1) == 2"))
    with_repeats = run(executor, program, two, 3)
    # every first run comes before any timing run, in test order, exactly as one by one; the
    # timing run of t0 then sees a later count, which costs the times, not the pass
    assert with_repeats.status is Status.PASSED, with_repeats.message
    assert with_repeats.timing_error.startswith("test t0: failed on a timing run")


def test_a_call_after_a_failed_check_cannot_turn_a_failure_into_a_timeout(executor):
    program = """
        def f(x):
            while x == 2:
                pass
            return 0
        """
    check = "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(2) == 0\n"
    result = run(executor, program, (TestCase("check", check + "check(f)"),), timeout_s=3)
    assert result.status is Status.FAILED, result.message


def test_failed_tests_with_unused_repeats_do_not_disturb_the_next(executor):
    program = "def inc(x):\n    return x + 1 if x else 99\n"
    tests = (TestCase("zero", "assert inc(0) == 1"), TestCase("one", "assert inc(1) == 2"))
    result = run(executor, program, tests, repeats=2)
    assert [(t.name, t.status) for t in result.tests] == [("zero", "failed"), ("one", "passed")]
    # a failing sample is not timed (its time would be no one's metric), and that is no error
    assert not result.tests[1].times_ns and result.timing_error == ""


def test_a_test_that_goes_another_way_falls_back_to_single_calls(executor):
    program = "def inc(x):\n    return x + 1\n"
    tests = (
        TestCase("a", "assert inc(1) == 2"),
        TestCase("b", "assert inc(5) == 6 if True else inc(9)"),  # not planned
        TestCase("c", "assert inc(2) == 3"),
    )
    result = run(executor, program, tests)
    assert result.status is Status.PASSED, result.message
    assert [t.status for t in result.tests] == [Status.PASSED] * 3


def test_an_unused_answer_of_an_earlier_test_does_not_hold_up_the_next(executor):
    program = """
        def f(x):
            while x == 3:
                pass
            return x
        """
    tests = (
        TestCase("raises_first", "assert undefined_name == f(1)"),
        TestCase("passes", "assert f(2) == 2"),
        TestCase("hangs", "assert f(3) == 3"),
    )
    result = run(executor, program, tests, timeout_s=2)
    statuses = [(t.name, t.status) for t in result.tests]
    assert statuses == [("raises_first", "error"), ("passes", "passed"), ("hangs", "timeout")]
