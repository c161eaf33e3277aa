"""Project mode's conversation across the boundary, without a sandbox: a test-process side
and a worker side talk over a real socket pair, the worker in a thread of its own.

Both sides are the modules the sandboxes run (loaded under their copied names). What real
tests hand a function — callbacks, classes used as factories, iterators, generators,
sentinels, exceptions, standard-library values — must cross, and what comes back must be
only data or a use of what the worker was handed.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import itertools
import json
import socket
import threading

import pytest

from obfuseval_support import codec, copied_all


@pytest.fixture
def modules(monkeypatch):
    found = copied_all(monkeypatch)
    return found["refs"], found["mirror"], found["session"]


class Pair:
    """A test side (``call``) and a worker side serving ``functions`` by name."""

    def __init__(self, modules, functions: dict, timeout: float = 10.0) -> None:
        self.refs, self.mirror, self.session = modules
        ours, theirs = socket.socketpair()
        self.sockets = (ours, theirs)

        def nothing(module: str, qualname: str):
            return None

        def serve_target(target, args, kwargs):
            return functions[target](*args, **kwargs)

        worker = self.session.Session(
            theirs, self.mirror.Mirror(1, nothing), serve_target=serve_target
        )
        self.thread = threading.Thread(target=worker.serve_forever, daemon=True)
        self.thread.start()
        # the test side admits no class of its own: these tests pass builtins and the
        # standard library's values as data, everything else goes by reference
        self.test_side = self.session.Session(
            ours, self.mirror.Mirror(0, nothing, lambda cls: False), timeout=timeout
        )

    def call(self, name: str, *args, **kwargs):
        return self.test_side.request({"op": "target", "target": name}, (args, kwargs))

    def close(self) -> None:
        for s in self.sockets:
            s.close()
        self.thread.join(5)


@pytest.fixture
def pair(modules):
    made = []

    def make(functions: dict, **kw) -> Pair:
        made.append(Pair(modules, functions, **kw))
        return made[-1]

    yield make
    for p in made:
        p.close()


def test_a_callback_runs_in_the_test_process_and_sees_the_arguments_as_the_answer_left_them(pair):
    seen = []
    items = [3, 1, 2]

    def answer(values, key, report):
        values.append(0)  # changed before the callback: the callback must see it
        report()
        return sorted(values, key=key)

    def report():
        seen.append(list(items))  # the test's own list, read inside the callback

    p = pair({"answer": answer})
    assert p.call("answer", items, lambda v: -v, report) == [3, 2, 1, 0]
    assert seen == [[3, 1, 2, 0]] and items == [3, 1, 2, 0]


def test_classes_used_as_factories_and_builtins_are_called_where_they_live(pair):
    class Local:  # defined inside a test function: not data on the other side
        def __init__(self, v):
            self.v = v

    p = pair({"build": lambda factory, n: [factory(i) for i in range(n)]})
    made = p.call("build", Local, 3)
    assert [type(m) for m in made] == [Local] * 3 and [m.v for m in made] == [0, 1, 2]
    assert p.call("build", str, 2) == ["0", "1"]


def test_a_generator_the_answer_returns_is_consumed_lazily_even_when_endless(pair):
    produced = []

    def naturals():
        for n in itertools.count():
            produced.append(n)
            yield n * n

    p = pair({"naturals": naturals})
    squares = p.call("naturals")
    assert list(itertools.islice(squares, 5)) == [0, 1, 4, 9, 16]
    assert len(produced) == 5  # asked item by item, not drained
    assert next(squares) == 25


def test_a_generators_send_throw_close_and_return_value_cross(pair):
    """A coroutine-style generator the answer returns: ``send`` reaches it with the value,
    ``throw`` raises inside it (it may catch and go on), ``close`` ends it there, and its
    ``return`` value comes back as the ``StopIteration``'s."""
    log = []

    def averager():
        total = count = 0
        while True:
            try:
                value = yield (total / count if count else None)
            except ValueError as exc:
                log.append(f"caught {exc}")
                continue
            except GeneratorExit:
                log.append("closed")
                raise
            if value is None:
                return total
            total, count = total + value, count + 1

    p = pair({"averager": averager, "squares": lambda xs: map(lambda x: x * x, xs)})
    gen = p.call("averager")
    assert next(gen) is None
    assert gen.send(10) == 10 and gen.send(20) == 15
    assert gen.throw(ValueError("bad reading")) == 15  # caught inside, the mean unchanged
    assert log == ["caught bad reading"]
    with pytest.raises(StopIteration) as stopped:
        gen.send(None)
    assert stopped.value.value == 30
    again = p.call("averager")
    next(again)
    again.close()
    assert log[-1] == "closed"
    with pytest.raises(KeyError, match="boom"):  # an exception it does not catch comes back
        third = p.call("averager")
        next(third)
        third.throw(KeyError("boom"))
    plain = p.call("squares", [1, 2])  # an iterator that is no generator has no send
    with pytest.raises(AttributeError):
        plain.send(1)


def test_iterators_and_ranges_cross_in_both_directions(pair):
    p = pair({"pairs": lambda it: zip(it, it, strict=False), "total": lambda r: (r, sum(r))})
    assert list(p.call("pairs", iter("abcdef"))) == [("a", "b"), ("c", "d"), ("e", "f")]
    back, total = p.call("total", range(2, 20, 3))
    assert back == range(2, 20, 3) and total == sum(range(2, 20, 3))


def test_an_exception_of_a_callback_propagates_through_the_answer_as_the_tests_own(pair):
    class Stop(Exception):
        pass

    raised = Stop("from the test")

    def fail():
        raise raised

    def answer(callback):
        try:
            callback()
        finally:
            pass

    p = pair({"answer": answer, "swallow": lambda cb: _catch(cb)})
    with pytest.raises(Stop) as caught:
        p.call("answer", fail)
    assert caught.value is raised
    # caught by the answer: it sees the exception under its type name
    assert p.call("swallow", fail) == "Stop: from the test"


def _catch(callback):
    try:
        callback()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def test_sentinels_and_exceptions_that_cross_twice_are_the_same_object(pair):
    marker, error = object(), KeyError("k")
    p = pair({"echo": lambda *a: a})
    back = p.call("echo", marker, error, [marker])
    assert back[0] is marker and back[1] is error and back[2][0] is marker


def test_a_callback_that_calls_the_answer_again_is_served(pair):
    def fib(n, memo):
        return n if n < 2 else memo(n - 1) + memo(n - 2)

    p = pair({"fib": fib})

    def memo(n, cache={}):  # noqa: B006 - the cache is the point
        if n not in cache:
            cache[n] = p.call("fib", n, memo)  # re-enters the worker from a callback
        return cache[n]

    assert p.call("fib", 15, memo) == 610


def test_standard_library_values_cross_as_data():
    values = [
        range(-3, 10**20, 7),
        slice(1, None, -2),
        datetime.date(2024, 2, 29),
        datetime.datetime(2024, 2, 29, 13, 5, 7, 123456),
        datetime.datetime(2024, 11, 3, 1, 30, fold=1, tzinfo=datetime.UTC),
        datetime.time(
            23, 59, 59, 999999, tzinfo=datetime.timezone(datetime.timedelta(hours=-5), "EST")
        ),
        datetime.timedelta(days=-1, seconds=5, microseconds=7),
        decimal.Decimal("-0.000"),
        decimal.Decimal("sNaN"),
        fractions.Fraction(-22, 7),
    ]
    for value in values:
        back = codec.Decoder(lambda m, q: None).decode(json.loads(json.dumps(codec.encode(value))))
        assert type(back) is type(value) and str(back) == str(value) and repr(back) == repr(value)
        if isinstance(value, (datetime.datetime, datetime.time)):
            assert back.fold == value.fold and back.tzinfo == value.tzinfo


# -- hostile: what the worker side can do with what it was handed ---------------------------
def test_a_reference_offers_no_attributes_to_walk(pair):
    def walk(callback, iterator, marker):
        found = []
        for ref in (callback, iterator, marker):
            for name in ("__globals__", "__closure__", "gi_frame", "__dict__", "__class__",
                         "f_globals", "_owner", "_ref"):  # fmt: skip
                try:
                    found.append(getattr(ref, name))
                except Exception as exc:
                    found.append(type(exc).__name__)
        return [x if isinstance(x, str) else type(x).__name__ for x in found]

    p = pair({"walk": walk})
    secret = {"token": "s3cret"}
    got = p.call("walk", lambda: secret, iter([secret]), object())
    # nothing but the stand-ins' own class and their id/owner slots, all inside the worker
    assert "s3cret" not in json.dumps(got)
    assert set(got) <= {"NoRemoteAttribute", "type", "References", "int", "dict"}


def test_a_crafted_request_cannot_use_what_the_worker_was_not_handed(pair, modules):
    _, _, session = modules
    handed = []

    def keep(callback):
        handed.append(callback)
        return None

    p = pair({"keep": keep})
    p.call("keep", len)
    test_side = p.test_side
    exported = dict(test_side.refs.exported)
    # a worker that names other ids, or uses a callable as an iterator, gets refusals
    for n, request in enumerate(({"op": "call", "ref": 2}, {"op": "call", "ref": 1},
                    {"op": "next", "ref": 0}, {"op": "getattr", "ref": 0},
                    {"op": "call", "ref": "0"})):  # fmt: skip
        reply = {}
        test_side._reply = lambda r, result, reply=reply: reply.update(r=r, result=result)
        kwargs = 101 + 2 * n  # a new dict of the worker's each time: () and {} arrive whole
        value = ["M", ["t", [["t", []], ["H", kwargs]]], [["N", kwargs, "d", []]]]
        test_side._serve({"id": 1, **request, "value": value})
        assert (
            reply["r"]["ok"] is False and type(reply["result"]).__name__ == "ArgumentsCannotCross"
        )
    assert test_side.refs.exported == exported


def test_a_generator_that_never_ends_or_raises_is_charged_to_its_use(pair):
    def broken():
        yield 1
        raise ValueError("bad iterator")

    p = pair({"broken": broken, "spin": lambda: iter(int, 1)})
    it = p.call("broken")
    assert next(it) == 1
    with pytest.raises(ValueError, match="bad iterator"):
        next(it)
    endless = p.call("spin")
    assert list(itertools.islice(endless, 3)) == [0, 0, 0]


def test_a_silent_worker_fails_the_call_in_time_and_every_later_one(pair, modules):
    _, _, session = modules
    import time

    p = pair({"sleep": lambda: time.sleep(2)}, timeout=0.5)
    with pytest.raises(session.WorkerTimeout):
        p.call("sleep")
    with pytest.raises(session.WorkerTimeout):
        p.call("sleep")


def test_a_callback_given_a_crafted_object_gets_only_data(pair):
    received = []

    def answer(callback):
        class Evil:  # the worker's own class: not data for the test process
            def __eq__(self, other):
                return True

        callback(Evil())

    p = pair({"answer": answer, "fn": lambda cb: cb(lambda: 1)})
    with pytest.raises(Exception) as caught:
        p.call("answer", received.append)
    assert type(caught.value).__name__ == "ArgumentsCannotCross" and received == []
    # a function of the worker is a reference the test process can call, never run here
    p.call("fn", received.append)
    (fn,) = received
    assert type(fn).__name__ == "Call" and fn() == 1


def test_a_callback_tells_its_names_and_lacks_everything_else_as_an_attribute_error(pair):
    def probe(callback):
        return (
            callback.__name__,
            callback.__qualname__.rsplit(".", 1)[-1],
            callback.__doc__,
            hasattr(callback, "__globals__"),
            getattr(callback, "__wrapped__", "none"),
        )

    def double(x):
        """Twice x."""
        return 2 * x

    p = pair({"probe": probe})
    assert p.call("probe", double) == ("double", "double", "Twice x.", False, "none")


def test_a_test_objects_truth_is_its_classs_own_and_a_sentinel_is_true(pair):
    class Plain:
        pass

    class Empty:
        def __len__(self):  # run in the test process, on the test's own object
            return 0

    p = pair({"truth": lambda x: "yes" if x else "no"})
    assert [p.call("truth", x) for x in (Plain(), Empty(), object())] == ["yes", "no", "yes"]


def test_instances_of_a_tests_classes_cross_with_their_methods_run_by_the_test(pair):
    calls = []

    class Money:
        __slots__ = ("cents",)
        RATE = 100

        def __init__(self, cents):
            self.cents = cents

        def __lt__(self, other):
            calls.append("lt")
            return self.cents < other.cents

        def __eq__(self, other):
            return isinstance(other, Money) and self.cents == other.cents

        __hash__ = None

        @property
        def whole(self):
            return self.cents // self.RATE

        @classmethod
        def of(cls, whole):
            return cls(whole * cls.RATE)

    class Tip(Money):
        pass

    def answer(values, factory):
        top = max(values)  # Money.__lt__, in the test process
        made = factory.of(3)  # a classmethod of the test's class
        return top, top.whole, made, isinstance(made, factory), type(top).__name__

    p = pair({"answer": answer})
    values = [Money(250), Tip(990), Money(5)]
    top, whole, made, is_instance, name = p.call("answer", values, Money)
    assert top is values[1] and whole == 9 and name == "Tip"
    assert type(made) is Money and made == Money(300) and is_instance is True
    assert calls.count("lt") >= 2


def test_a_returned_function_brings_its_own_functions_along(pair):
    def memoize(func):
        seen = {}

        def wrapper(x):
            if x not in seen:
                seen[x] = func(x)
            return seen[x]

        wrapper.cache_info = lambda: len(seen)
        wrapper.cache_clear = seen.clear
        wrapper.maxsize = 128
        return wrapper

    p = pair({"memoize": memoize})
    square = p.call("memoize", lambda x: x * x)
    assert [square(2), square(2), square(3)] == [4, 4, 9]
    assert (square.cache_info(), square.maxsize) == (2, 128)
    square.cache_clear()
    assert square.cache_info() == 0


def test_a_named_tuple_the_test_process_cannot_name_comes_back_as_its_items(pair):
    import collections

    hidden = collections.namedtuple("CacheInfo", "hits misses")  # no module has this name

    p = pair({"info": lambda: hidden(3, 4)})
    assert p.call("info") == (3, 4)


class Node:
    pass


def test_objects_no_code_holds_go_to_sleep_and_wake_when_the_other_side_names_them(pair):
    """Every object that crossed stays kept (its handle may come back), but one that no
    code of this side reaches any more — dropped, or held only by other dropped objects in
    a cycle — cannot change: it is not checked again, so a turn's cost does not grow with
    every call made before. Code that can still reach an object keeps it checked, through
    a weak reference or its ``__dict__`` too; a message that names a sleeping object
    wakes it and what it holds."""
    import weakref

    stash: dict = {}

    def keep(name, value):
        stash[name] = value

    def grow(name):
        stash[name][0].append(9)
        return stash[name]

    def read(name, attr):
        return getattr(stash[name], attr)

    p = pair({"keep": keep, "size": len, "grow": grow, "read": read,
              "size_of": lambda name: len(stash[name][0])})  # fmt: skip
    view = p.test_side.view
    held = [1, 2]
    p.call("keep", "held", held)
    cycle: list = []
    cycle.append([cycle])
    p.call("keep", "cycle", cycle)
    inner = [1]
    p.call("keep", "outer", [inner])
    by_weakref, by_dict = Node(), Node()
    by_weakref.x = by_dict.x = 1
    ref, attrs = weakref.ref(by_weakref), vars(by_dict)
    p.call("keep", "by_weakref", by_weakref)
    p.call("keep", "by_dict", by_dict)
    handles = {name: view.handles[id(obj)] for name, obj in
               [("held", held), ("cycle", cycle), ("cycle_inner", cycle[0]), ("inner", inner),
                ("by_weakref", by_weakref), ("by_dict", by_dict)]}  # fmt: skip
    inner_id = id(inner)
    del cycle, by_weakref, by_dict, inner
    for _ in range(40):  # more turns, more objects: the mirror looks again, and what the
        p.call("size", [[0], [1]])  # last ones dropped goes to sleep
    asleep = {name for name, handle in handles.items() if handle not in view.live}
    assert asleep == {"cycle", "cycle_inner", "inner"}
    assert len(view.live) < len(view.objects) // 2  # the lists of those turns too
    # reached without being held: a change still crosses
    ref().x, attrs["x"] = 2, 3
    assert (p.call("read", "by_weakref", "x"), p.call("read", "by_dict", "x")) == (2, 3)
    # the worker hands back what only the mirror held here: the same objects, awake
    outer = p.call("grow", "outer")
    assert id(outer[0]) == inner_id and outer[0] == [1, 9]
    assert handles["inner"] in view.live
    outer[0].append(10)  # a change to the woken object crosses again
    assert p.call("size_of", "outer") == 3


def test_code_that_inspects_a_callback_sees_its_signature_and_builtins_are_themselves(pair):
    """toolz's ``is_arity`` reads a function's signature and looks builtins up in a table
    keyed by the builtin: a callback's stand-in has the callback's ``__signature__`` (or
    fails as the callback does), a standard-library builtin crosses by name and is the
    worker's own, and a ``functools.partial`` crosses as one."""
    import functools
    import inspect
    import operator

    def describe(f):
        try:
            return str(inspect.signature(f))
        except ValueError as exc:
            return f"ValueError: {exc}"

    p = pair({"describe": describe, "same": lambda f: f, "is_map": lambda f: f is map,
              "parts": lambda f: (f.args, f.keywords, f(3))})  # fmt: skip

    def callback(x, y=2, *rest, k, **more):
        return x

    assert p.call("describe", callback) == str(inspect.signature(callback))
    assert p.call("describe", lambda: None) == "()"
    getter = operator.itemgetter(1)
    assert p.call("describe", getter).startswith("ValueError: ")  # as inspect fails on it
    assert p.call("is_map", map) is True and p.call("same", map) is map
    assert p.call("same", all) is all and p.call("describe", all) == str(inspect.signature(all))
    signature = inspect.signature(callback)  # toolz passes signatures it builds itself
    assert p.call("same", signature) == signature
    assert p.call("parts", functools.partial(lambda a, b, k: (a, b, k), 1, k=2)) == (
        (1,),
        {"k": 2},
        (1, 3, 2),
    )


class Registry:
    """A test's class whose methods' defaults are objects (argparse's parsers are such)."""

    def add(self, item, into=[]):  # noqa: B006 - the default is what this test is about
        into.append(item)
        return into


def test_an_instance_whose_shadow_class_holds_objects_crosses_in_one_message(pair):
    """Objects cross as flat entries made empty first; a shadow class's methods come with
    their signatures, whose defaults are entries of the same message, made when first
    named — before the instance of that class is made."""
    p = pair({"read": lambda box: (box.own, box.add(3))})
    box = Registry()
    box.own = [{"verbose": False}]
    assert p.call("read", box) == ([{"verbose": False}], [3])


def test_a_reference_crosses_whole_once_and_then_as_its_id(pair):
    """A test's class or callback crosses with its names, signature and shape the first
    time; the other side keeps its stand-in, so later messages carry only the id (an
    argparse parser's class shape is over a megabyte)."""
    import json

    p = pair({"call": lambda f, x: f(x)})
    view = p.test_side.view
    sent = []
    encode = view.encode

    def recording(value):
        node = encode(value)
        sent.append(json.dumps(node))
        return node

    view.encode = recording

    def twice(x):
        return 2 * x

    assert p.call("call", twice, 1) == 2
    assert p.call("call", twice, 2) == 4
    ref = p.test_side.refs.ids[id(twice)]
    first, second = (message for message in sent if f'["R", {ref}' in message)
    assert f'["R", {ref}, "call"' in first and f'["R", {ref}]' in second
    assert len(second) < len(first) / 2


def test_what_the_answer_prints_is_printed_by_the_test_process_in_order(modules, capsys):
    """A command-line function prints its result: a test reads it with ``capsys``, so the
    worker's output crosses with its next message, before a callback's and after it."""
    import io

    refs, mirror, session = modules
    ours, theirs = socket.socketpair()
    buffers = {"stdout": io.StringIO(), "stderr": io.StringIO()}

    def printed():  # the worker's capture (worker.py's, on buffers of this test)
        found = tuple(buffers[name].getvalue() for name in ("stdout", "stderr"))
        for name in buffers:
            buffers[name].seek(0)
            buffers[name].truncate()
        return found

    def shout(callback):
        buffers["stdout"].write("before\n")
        callback()
        buffers["stdout"].write("after\n")
        buffers["stderr"].write("warned\n")
        return 0

    worker = session.Session(
        theirs, mirror.Mirror(1, lambda m, q: None), printed=printed,
        serve_target=lambda target, args, kwargs: shout(*args),
    )  # fmt: skip
    thread = threading.Thread(target=worker.serve_forever, daemon=True)
    thread.start()
    test_side = session.Session(ours, mirror.Mirror(0, lambda m, q: None, lambda c: False))
    try:
        assert (
            test_side.request({"op": "target", "target": "shout"}, ((lambda: print("in"),), {}))
            == 0
        )
    finally:
        ours.close()
        thread.join(5)
        theirs.close()
    captured = capsys.readouterr()
    assert captured.out == "before\nin\nafter\n" and captured.err == "warned\n"
