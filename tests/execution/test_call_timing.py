"""The timed call of the performance metric: repeats that the program cannot tell apart from
the first call, and a measurement in reference units (call_timing.py).

These run in-process: the module is plain Python that the candidate sandbox imports as is.
No assertion here depends on how fast the machine is.
"""

from __future__ import annotations

import gc
import time

import pytest

from beyondpass.execution.sandboxed.call_timing import (
    CHUNK_NS,
    CHUNKS,
    MAX_COPIED,
    NotPlain,
    TimedCall,
    fresh_copies,
)


def timed(fn, *args, **kwargs) -> tuple:
    """Drive a TimedCall as the candidate does: -> (first value, ns per call, units)."""
    timer = TimedCall(fn, args, kwargs)
    timer.start()
    value = fn(*args, **kwargs)
    timer.first_done()
    ns, units = timer.finish()
    return value, ns, units


def test_a_short_call_is_repeated_and_measured_in_both_units():
    calls = []
    value, ns, units = timed(lambda x: calls.append(x) or x * 2, 21)
    assert value == 42
    assert len(calls) > CHUNKS  # the first call and at least one per chunk
    assert ns > 0 and units > 0


def test_every_repeat_sees_the_arguments_as_the_first_call_did():
    seen = []

    def grow(xs, table):
        seen.append((len(xs), len(table)))
        xs.append(0)
        table["k"] = table.get("k", 0) + 1
        return len(xs)

    original = [1, 2]
    value, _, _ = timed(grow, original, table={})
    assert value == 3
    assert original == [1, 2, 0]  # the caller's list is changed by the first call only
    assert len(seen) > 1 and set(seen) == {(2, 0)}


def test_a_call_with_an_object_of_the_program_is_not_repeated():
    class Box:
        pass

    calls = []
    timed(lambda box: calls.append(box), Box())
    assert len(calls) == 1


def test_a_long_call_is_measured_once():
    calls = []

    def slow():
        calls.append(1)
        end = time.perf_counter_ns() + 2 * CHUNK_NS
        while time.perf_counter_ns() < end:
            pass

    _, ns, units = timed(slow)
    assert len(calls) == 1
    assert ns >= 2 * CHUNK_NS and units > 0


def test_a_repeat_that_raises_ends_the_measurement_quietly():
    calls = []

    def third_fails():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("state changed")
        return 1

    value, ns, _ = timed(third_fails)
    assert value == 1 and ns > 0
    assert len(calls) == 3  # nothing after the failing repeat


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_only_while_timing(enabled):
    (gc.enable if enabled else gc.disable)()
    try:
        states = []
        timed(lambda: states.append(gc.isenabled()))
        assert states and not any(states)
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_copies_are_independent_and_plain():
    args = ([1, {"a": {2, 3}}], (4, [5]), bytearray(b"xy"))
    (first, _), (second, _) = fresh_copies(args, {}, 2)
    assert first == second == args
    first[0][1]["a"].add(9)
    first[1][1].append(6)
    assert args == ([1, {"a": {2, 3}}], (4, [5]), bytearray(b"xy"))
    assert second[0][1]["a"] == {2, 3}


def test_copies_stop_at_the_memory_bound_and_refuse_objects():
    big = [0] * (MAX_COPIED * 6 // 10)
    assert len(fresh_copies((big,), {}, 5)) == 1
    with pytest.raises(NotPlain):
        fresh_copies((object(),), {}, 1)
