"""How a candidate's call is timed for the performance metric (runs inside the sandbox).

Two things make a single ``perf_counter_ns`` around a microsecond call a poor figure, and
each has its remedy here:

* **Resolution and one-off interruptions.** A call shorter than :data:`CHUNK_NS` is run
  again, back to back, until the chunk has lasted that long (timeit's idea), and the time
  per call is the chunk's time divided by the calls. No repeat sees an argument an earlier
  call changed: immutable arguments are shared, mutable plain data (lists, dicts, sets)
  is copied for every repeat before the clock starts, and a call with any other argument
  (an object of the program) is not repeated. The value the judge checks is always the
  first call's. The garbage collector is paused for the chunk, as timeit does.
* **The machine's speed is not constant.** On a shared or virtual machine the same loop
  can take twice as long from one millisecond to the next (other work on the same
  physical core, outside the machine); no number of repeats removes that from wall-clock
  time. So a fixed reference workload is timed right before and right after each chunk,
  and the call's time is also reported *in reference units*: the call's time divided by
  the reference's, measured at the same moment, the median over :data:`CHUNKS` chunks.
  Both are slowed alike, so the ratio stays put (docs/performance.md shows how much).

This file must import nothing from beyondpass: it runs inside the candidate sandbox, and
everything it uses is bound at import, before the candidate's code can patch anything.
"""

import gc
import time

#: A timed call is repeated until a chunk has run this long ...
CHUNK_NS = 200_000
#: ... in this many chunks, each between two runs of the reference workload.
CHUNKS = 4
#: A call longer than a chunk is compared with the reference run for up to half its
#: duration, at most this long.
MAX_WINDOW_NS = 25_000_000
#: At most this many calls per chunk (a call of a few nanoseconds).
MAX_CALLS = 10_000
#: At most this many argument values are copied for one chunk's repeats (memory bound).
MAX_COPIED = 100_000
#: Iterations of the reference workload: about 0.1 ms of mixed interpreter work.
REFERENCE_SIZE = 300

#: Changes whenever the method or the reference workload does: times in reference units
#: compare only between runs with the same version (recorded with every run, ``method()``).
METHOD_VERSION = 1

_clock = time.perf_counter_ns
_gc_enable, _gc_disable, _gc_isenabled = gc.enable, gc.disable, gc.isenabled
_PLAIN = frozenset({int, float, complex, str, bytes, bool, type(None)})
_CONTAINERS = frozenset({tuple, frozenset})


def reference_workload(n: int = REFERENCE_SIZE, str=str, len=len) -> int:  # noqa: A002
    """Fixed interpreter work of the kind programs do: string keys, dict updates, list
    appends and sorts, integer arithmetic. Its duration is the unit of ``times_ref``."""
    counts: dict = {}
    keys: list = []
    for i in range(n):
        key = str(i % 97)
        counts[key] = counts.get(key, 0) + i
        keys.append(key)
        if len(keys) > 50:
            keys.sort()
            keys.clear()
    return len(counts)


def method() -> dict:
    """How calls were timed, for a run's provenance."""
    return {
        "version": METHOD_VERSION,
        "chunk_ns": CHUNK_NS,
        "chunks": CHUNKS,
        "max_calls": MAX_CALLS,
        "reference_size": REFERENCE_SIZE,
        "long_call_window_ns": MAX_WINDOW_NS,
        "garbage_collector": "paused while timing",
    }


def reference_ns() -> int:
    start = _clock()
    reference_workload()
    return _clock() - start


def repeatable(args: tuple, kwargs: dict) -> bool:
    """True when every argument is an immutable plain value, so a repeat sees what the
    first call saw."""
    return all(_immutable(a, 0) for a in args) and all(_immutable(v, 0) for v in kwargs.values())


def _immutable(value: object, depth: int) -> bool:
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind in _CONTAINERS and depth < 20:
        return all(_immutable(item, depth + 1) for item in value)
    return False


class NotPlain(Exception):
    """A value that cannot be copied for a repeat: an object of the program."""


def fresh_copies(args: tuple, kwargs: dict, count: int) -> list:
    """Up to ``count`` independent copies of ``(args, kwargs)``, fewer when they would hold
    more than :data:`MAX_COPIED` values; raises :class:`NotPlain` for non-plain data."""
    budget = [MAX_COPIED]
    copies = []
    for _ in range(count):
        try:
            copies.append((_copy(args, budget, 0), _copy(kwargs, budget, 0)))
        except _Exhausted:
            break
    return copies


class _Exhausted(Exception):
    pass


def _copy(value: object, budget: list, depth: int) -> object:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Exhausted
    kind = type(value)
    if kind in _PLAIN:
        return value
    if depth > 20:
        raise NotPlain
    if kind is list or kind is tuple:
        return kind([_copy(item, budget, depth + 1) for item in value])
    if kind is dict:
        return {_copy(k, budget, depth + 1): _copy(v, budget, depth + 1) for k, v in value.items()}
    if kind is set or kind is frozenset:
        return kind(_copy(item, budget, depth + 1) for item in value)
    if kind is bytearray:
        budget[0] -= len(value) // 64
        return bytearray(value)
    raise NotPlain


class TimedCall:
    """One timed call of the program: ``start()``, call it once (the call whose value the
    judge checks), ``first_done()``, then ``finish()`` -> (ns per call, reference units)."""

    __slots__ = (
        "fn",
        "args",
        "kwargs",
        "shared",
        "pristine",
        "ref_before",
        "elapsed",
        "was_enabled",
        "_start",
    )

    _warm = False

    def __init__(self, fn, args: tuple, kwargs: dict) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.elapsed = 0
        # repeats share immutable arguments, and otherwise copy them as they were before the
        # first call could change them (no copy: an object of the program, not repeated)
        self.shared = repeatable(args, kwargs)
        self.pristine = None
        if not self.shared:
            try:
                copies = fresh_copies(args, kwargs, 1)
            except NotPlain:
                copies = []
            self.pristine = copies[0] if copies else None

    def start(self) -> None:
        if not TimedCall._warm:  # the first reference of a process pays for page faults
            reference_workload()
            reference_workload()
            TimedCall._warm = True
        self.was_enabled = _gc_isenabled()
        _gc_disable()
        self.ref_before = reference_ns()
        self._start = _clock()

    def first_done(self) -> None:
        self.elapsed = _clock() - self._start

    def finish(self) -> tuple:
        """Time chunks of repeats when the call is short and may be repeated; else the
        first call alone, against the references around it."""
        try:
            if self.elapsed < CHUNK_NS:
                chunked = self._chunks(min(MAX_CALLS, CHUNK_NS // max(self.elapsed, 1)))
                if chunked is not None:
                    return chunked
            # a long call lives through the machine's changes of speed: compare it with the
            # reference's mean over a window of a comparable length, not one short run
            window = min(self.elapsed // 2, MAX_WINDOW_NS)
            runs = [self.ref_before, reference_ns()]
            end = _clock() + window
            while _clock() < end:
                runs.append(reference_ns())
            return self.elapsed, self.elapsed / (sum(runs) / len(runs))
        finally:
            self.restore()

    def _chunks(self, calls: int):
        total_ns = total_calls = 0
        ratios = []
        ref = reference_ns()
        for _ in range(CHUNKS):
            ns, done = self._chunk(calls)
            if not done:
                break
            next_ref = reference_ns()
            ratios.append(ns / done / ((ref + next_ref) / 2))
            ref = next_ref
            total_ns += ns
            total_calls += done
            if done < calls:  # a repeat failed: what ran so far is the measurement
                break
        if not ratios:
            return None
        ratios.sort()
        middle = len(ratios) // 2
        median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
        return total_ns // total_calls, median

    def _chunk(self, calls: int) -> tuple:
        """Run up to ``calls`` calls inside the clock -> (ns, how many finished)."""
        fn, args, kwargs = self.fn, self.args, self.kwargs
        done = 0
        if self.shared:
            start = _clock()
            try:
                for done in range(1, calls + 1):  # noqa: B007 - done counts finished calls
                    fn(*args, **kwargs)
            except BaseException:  # noqa: BLE001 - a repeat that fails ends the chunk early
                done -= 1
        elif self.pristine is not None:
            copies = fresh_copies(*self.pristine, calls)
            start = _clock()
            try:
                for done, (fresh_args, fresh_kwargs) in enumerate(copies, 1):  # noqa: B007
                    fn(*fresh_args, **fresh_kwargs)
            except BaseException:  # noqa: BLE001
                done -= 1
        else:  # an argument is an object of the program: the first call is the measurement
            return 0, 0
        return _clock() - start, done

    def restore(self) -> None:
        if self.was_enabled:
            _gc_enable()
