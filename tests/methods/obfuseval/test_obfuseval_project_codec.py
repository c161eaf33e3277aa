"""The data codec, the proxy's channel and its helpers of project mode, without a sandbox.

What crosses from the worker (the model's process) to the test process is data: these
tests build values the way a hostile worker could and check what the decoder makes of
them — no function, no foreign class, no code of a class runs, malformed input is refused.
"""

from __future__ import annotations

import collections
import json
import socket
import sys
import threading

import pytest

from beyondpass.execution import wire
from obfuseval_support import codec, copied, copied_all


class Node:
    __slots__ = ("value", "next", "_Node__hidden")

    def __init__(self, value, nxt=None):
        self.value, self.next = value, nxt


class Box:
    def __init__(self, items):
        self.items = items
        self.me = self

    def __setstate__(self, state):  # must never run while decoding
        raise AssertionError("decoder ran __setstate__")


class Hashed(tuple):
    pass


CLASSES = {"Node": Node, "Box": Box, "Hashed": Hashed}


def _admit(module: str, qualname: str):
    return CLASSES.get(qualname) if module == __name__ else None


def _round_trip(value):
    wire = json.loads(json.dumps(codec.encode(value)))
    return codec.Decoder(_admit).decode(wire)


def test_data_and_admitted_classes_round_trip_with_sharing_and_cycles():
    shared = [1, 2]
    ring = Node(1)
    ring.next = Node(2, ring)
    box = Box([shared, shared, {"k": (1.5, float("inf"), 2**100, -3)}])
    counter = collections.Counter("abca")
    value = (box, ring, counter, Hashed((1, 2)), {1, 2}, frozenset({3}), b"\x00", bytearray(b"x"))
    back = _round_trip(value)
    box2, ring2, counter2, hashed2, *rest = back
    assert type(box2) is Box and box2.me is box2 and box2.items[0] is box2.items[1]
    assert box2.items == box.items
    assert type(ring2) is Node and ring2.next.next is ring2 and ring2.next.value == 2
    assert type(counter2) is collections.Counter and counter2 == counter
    assert type(hashed2) is Hashed and hashed2 == (1, 2)
    assert rest == [{1, 2}, frozenset({3}), b"\x00", bytearray(b"x")]


def _local() -> object:
    class Local:
        pass

    return Local()


@pytest.mark.parametrize("value", [lambda: 1, (x for x in ()), print, sys, open, _local()])
def test_functions_generators_modules_and_local_classes_cannot_cross(value):
    with pytest.raises(codec.CannotCross):
        codec.encode(value)


@pytest.mark.parametrize(
    "node",
    [
        ["k", ["os", "system"]],  # a function posing as a class
        ["k", ["subprocess", "Popen"]],  # a class that is not admitted
        ["o", 0, ["builtins", "object"], None, None, None, {}, {}],
        ["o", 0, [__name__, "Box"], "list", [], None, {}, {}],  # a base it does not have
        ["r", 5],  # a reference to nothing
        ["l", 0, [["r", 0], ["x"]]],  # an unknown tag
        ["i", 12],  # not a string
        ["d", 0, [[["l", 1, []], ["n"]]]],  # an unhashable key
        "not a list",
    ],
)
def test_a_malformed_or_foreign_tree_is_refused(node):
    with pytest.raises(codec.CannotCross):
        codec.Decoder(_admit).decode(node)


def test_decoding_runs_no_code_of_the_class():
    wire = ["o", 0, [__name__, "Box"], None, None, None, {"items": ["n"]}, {}]
    box = codec.Decoder(_admit).decode(wire)
    assert type(box) is Box and box.items is None and not hasattr(box, "me")


def test_deep_nesting_is_refused_not_a_crash():
    deep: list = []
    for _ in range(codec.MAX_DEPTH + 10):
        deep = [deep]
    with pytest.raises(codec.CannotCross):
        codec.encode(deep)


@pytest.mark.parametrize(
    "body", [b"[1, 2]", b'"text"', b"{not json", b"\xff", b"[" * 100_000 + b"]" * 100_000]
)
def test_a_frame_that_is_not_one_json_object_is_refused(body):
    with pytest.raises(ValueError):
        codec.message(body)


@pytest.fixture
def modules(monkeypatch):
    return copied_all(monkeypatch)


@pytest.fixture
def refs(modules):
    return modules["refs"]


@pytest.fixture
def mirror(modules):
    return modules["mirror"]


@pytest.fixture
def session(modules):
    return modules["session"]


@pytest.fixture
def proxy(monkeypatch, session):
    return copied(monkeypatch, "proxy", "_beyondpass_proxy")


def _worker_answers(proxy, monkeypatch, answer: str | bytes) -> object:
    """Call through the proxy to a worker that reads the request and answers: a message
    (``str``, ``ID`` standing for the request's id) in a frame, or ``bytes`` as they are."""
    ours, theirs = socket.socketpair()
    view = proxy.mirror.Mirror(0, proxy.find_class, proxy.sendable)
    monkeypatch.setitem(proxy._state, "session", proxy.session.Session(ours, view, timeout=0.5))

    def serve() -> None:
        request = codec.message(wire.recv_frame(theirs))
        if isinstance(answer, str):
            theirs.sendall(_frame(answer.replace("ID", str(request["id"]))))
        else:
            theirs.sendall(answer)

    server = threading.Thread(target=serve)
    server.start()
    try:
        return proxy.call("pkg", "f", (1,), {})
    finally:
        server.join()
        ours.close()
        theirs.close()


def _frame(text: str) -> bytes:
    body = text.encode()
    return wire.HEADER.pack(len(body)) + body


#: a new object of a class that is not the project's
_FORGED_OBJECT = '["H", 1], [["N", 1, "o", ["os", "system"], null, null, null, {}, {}]]'


def test_the_proxy_returns_a_well_formed_answer(proxy, monkeypatch):
    # the result, and a change to the call's kwargs dict (the test side's handle 0)
    value = '["M", ["i", "0x2a"], [["D", 0, "c", [[["s", "k"], ["i", "0x1"]]], []]]]'
    answer = '{"id": ID, "ok": true, "value": VALUE}'.replace("VALUE", value)
    assert _worker_answers(proxy, monkeypatch, answer) == 42


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("[1]", "WorkerGone"),  # not a message
        ("{broken", "WorkerGone"),  # not JSON
        (wire.HEADER.pack(wire.MAX_FRAME + 1) + b"{}", "WorkerGone"),  # larger than a frame
        (b'{"nodeid": "t", "when": "call"}\n', "WorkerGone"),  # a forged row, not a frame
        (b"", "WorkerTimeout"),  # silence
        ('{"id": ID, "ok": true, "value": ["M", ' + _FORGED_OBJECT + "]}", "ResultCannotCross"),
        (
            '{"id": ID, "ok": true, "value": ["M", ["k", ["os", "system"]], []]}',
            "ResultCannotCross",
        ),  # a class that is not the project's
        (
            '{"id": ID, "ok": true, "value": ["M", ["R", 4], []]}',
            "ResultCannotCross",
        ),  # a reference the test process never handed over
        (
            '{"id": ID, "ok": true, "value": ["M", ["R", 5, "obj"], []]}',
            "ResultCannotCross",
        ),  # an opaque object of the worker: it may hand over only functions and iterators
        (
            '{"id": ID, "ok": true, "value": ["M", ["H", 3], [["U", 3, "l", []]]]}',
            "ResultCannotCross",
        ),  # a change to an object this side never had
        (
            '{"id": ID, "ok": true, "value": ["M", ["H", 1], [["N", 1, "l", []], '
            '["U", 1, "l", [["i", "0x1"]]]]]}',
            "ResultCannotCross",
        ),  # one object in two entries
        (
            '{"id": ID, "ok": true, "value": ["M", ["H", 2], [["N", 2, "l", []]]]}',
            "ResultCannotCross",
        ),  # a new object under a handle of the test side's parity
        (
            '{"id": ID, "ok": true, "value": ["M", ["i", "0x1"], [["K", 0, []]]]}',
            "ResultCannotCross",
        ),  # an entry of no known kind
        (
            '{"id": ID, "ok": true, "value": ["M", ["G", "posix", "system"], []]}',
            "ResultCannotCross",
        ),  # a builtin by name that the test process never handed over
        ('{"id": ID, "ok": true, "value": ["t", [["n"], ["t", []]]]}', "ResultCannotCross"),
        ('{"id": 999, "ok": true, "value": ["M", ["n"], []]}', "WorkerGone"),
    ],
)
def test_the_proxy_refuses_whatever_the_worker_answers_out_of_protocol(
    proxy, monkeypatch, answer, failure
):
    with pytest.raises(Exception) as caught:
        _worker_answers(proxy, monkeypatch, answer)
    assert type(caught.value).__name__ == failure


def _send(source, target, value):
    """One message from one side's mirror to the other's, through JSON; its size."""
    text = json.dumps(source.encode(value))
    source.commit()
    found = target.decode(json.loads(text))
    target.settle()
    return found, len(text)


def test_changes_come_back_into_the_callers_own_objects(mirror):
    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    inner, table = [1], {"a": 1}
    box = Box([inner])
    box.table = table
    (args, _), _ = _send(test_side, worker, ((box, [5]), {}))
    theirs, their_list = args
    theirs.items[0].append(2)  # what the function does in the worker
    theirs.table["b"] = True
    their_list.append(6)
    theirs.new = {"made": [7]}
    (args, _, result), _ = _send(worker, test_side, ((theirs, their_list), {}, theirs.new))
    assert args[0] is box and box.me is box  # the caller's own objects, changed in place
    assert box.items[0] is inner and inner == [1, 2]
    assert box.table is table and table == {"a": 1, "b": True}
    assert result is box.new and box.new == {"made": [7]}
    assert args[1] == [5, 6]


def test_an_unchanged_object_crosses_as_a_handle_and_growth_as_a_delta(mirror):
    """A cache growing by one entry per call (cachetools' test_pickle_maxsize calls
    ``__setitem__`` 2,000 times) sends the new entry, not the cache."""
    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    box = Box([])
    box.data = {}
    sizes = []
    for i in range(300):
        (args, _), there = _send(test_side, worker, ((box, i), {}))
        args[0].data[i] = str(i)
        _, back = _send(worker, test_side, ((args[0], i), {}, None))
        sizes.append(there + back)
    assert box.data == {i: str(i) for i in range(300)}
    assert max(sizes[10:]) < 400, sizes[-1]
    _, same = _send(test_side, worker, ((box,), {}))
    assert same < 80  # nothing changed: handles only (and the call's new kwargs dict)


def test_a_linked_list_longer_than_the_nesting_limit_crosses_and_comes_back_changed(mirror):
    """Objects cross as flat entries that name each other by handle, so a chain of 1,000
    nodes (a cache's linked list) is not a value nested 1,000 deep; a set's members are
    whole before they are hashed."""
    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    head = None
    for value in range(1000):
        node = Box([value])
        node.next = head
        head = node
    (args, _), _ = _send(test_side, worker, ((head, {frozenset({1}), "x"}), {}))
    theirs, their_set = args
    assert theirs.next.next.items == [997] and their_set == {frozenset({1}), "x"}
    last = theirs
    while last.next is not None:
        last = last.next
    last.items.append("end")  # the function changes the far end of the chain
    back, _ = _send(worker, test_side, ((theirs,), {}, None))
    assert back[0][0] is head
    node = head
    while node.next is not None:
        node = node.next
    assert node.items == [0, "end"]


def test_an_ordered_dict_crosses_in_its_own_order_and_a_move_to_the_end_is_a_small_change(mirror):
    """An LRU cache's order is its ``OrderedDict``'s, which ``move_to_end`` changes and its
    underlying dict does not show: both directions carry it, as the keys that moved."""
    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    links = collections.OrderedDict((i, str(i)) for i in range(200))
    links.move_to_end(3)
    (args, _), _ = _send(test_side, worker, ((links,), {}))
    theirs = args[0]
    assert list(theirs.items()) == list(links.items()) and next(reversed(theirs)) == 3
    theirs.move_to_end(50)  # what an LRU lookup does in the worker
    del theirs[7]
    theirs[20] = "changed in place"
    theirs[500] = "new"
    (back, _, _), size = _send(worker, test_side, ((theirs,), {}, None))
    assert back[0] is links and list(links.items()) == list(theirs.items())
    assert list(links)[-2:] == [50, 500] and links[20] == "changed in place"
    assert size < 400  # the moves, not the 200 entries
    links.move_to_end(0)  # and a change made in the test process goes the other way
    _send(test_side, worker, ((links,), {}))
    assert list(theirs) == list(links)


def test_a_heap_pushed_and_popped_crosses_as_the_places_that_changed(mirror):
    """A priority queue of 1,000 items (cachetools' TLRUCache keeps one) changes a few
    places per push or pop: those cross, not the list."""
    import heapq

    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    heap = list(range(0, 2000, 2))
    heapq.heapify(heap)
    (args, _), _ = _send(test_side, worker, ((heap,), {}))
    theirs = args[0]
    heapq.heappush(theirs, 7)
    heapq.heappop(theirs)
    theirs.append("end")
    (back, _, _), size = _send(worker, test_side, ((theirs,), {}, None))
    assert back[0] is heap and heap == theirs
    assert size < 600  # a few places and the length, not 1,000 items
    del heap[10:]  # and a shrink made in the test process
    heap[3] = None
    _send(test_side, worker, ((heap,), {}))
    assert theirs == heap and len(theirs) == 10


@pytest.mark.parametrize(
    "change",
    [
        ["l", [], 10**12],  # grown far past the places it sets
        ["l", [[0, ["i", "0x1"]]], 3],  # grown with places left unset
        ["l", [[5, ["i", "0x1"]]], 2],  # a place past the length
        ["l", [[0, ["i", "0x1"]], [0, ["i", "0x2"]]], 1],  # one place twice
        ["l", [["0", ["i", "0x1"]]], 1],  # a place that is not a number
    ],
)
def test_a_malformed_list_change_is_refused(mirror, change):
    test_side, worker = mirror.Mirror(0, _admit), mirror.Mirror(1, _admit)
    _send(test_side, worker, (([],), {}))
    with pytest.raises(codec.CannotCross):
        worker.decode(["M", ["n"], [["D", 0, *change]]])


def test_a_message_naming_a_handle_it_was_never_given_is_refused(mirror):
    test_side = mirror.Mirror(0, _admit)
    for node in (
        ["M", ["H", 7], []],
        ["M", ["n"], [["U", 3, "l", []]]],
        ["M", ["n"], [["N", 2, "l", []]]],  # new, but under this side's parity
        ["M", ["n"], [["D", 5, "c", [], []]]],
    ):
        with pytest.raises(codec.CannotCross):
            test_side.decode(node)


def test_worker_exceptions_keep_their_type_name_and_never_end_the_session(refs):
    decoder = codec.Decoder(_admit)

    def raised(error):
        try:
            return refs.build_error(error, decoder)
        except codec.CannotCross as exc:
            return exc

    key = raised({"type": "KeyError", "message": "'x'", "args": codec.encode(("x",))})
    assert type(key) is KeyError and key.args == ("x",)
    own = raised({"type": "CacheFull", "bases": ["CacheFull", "LookupError"], "message": "m"})
    assert type(own).__name__ == "CacheFull" and isinstance(own, LookupError)
    for name in ("KeyboardInterrupt", "GeneratorExit"):  # pytest would stop, not fail
        made = raised({"type": name, "bases": [name, "BaseException"], "message": ""})
        assert type(made).__name__ == name and isinstance(made, Exception)
    # a command-line function's exit: a test that expects it (``pytest.raises(SystemExit)``)
    # sees it, as in one process; pytest reports it in any other test as a failure
    exit_code = raised({"type": "SystemExit", "message": "2", "args": codec.encode((2,))})
    assert type(exit_code) is SystemExit and exit_code.code == 2  # args of a second error too
    quiet = {"type": "KeyError", "message": "", "args": codec.encode(())}
    assert raised({**quiet, "suppress_context": True}).__suppress_context__ is True
    assert raised(quiet).__suppress_context__ is False  # ``raise ... from None``, or not
    odd = raised({"type": "not a name!", "message": 5})
    assert type(odd) is Exception
    assert isinstance(raised("garbage"), codec.CannotCross)


def test_the_answer_is_only_in_the_worker_copy_and_the_tests_only_in_the_test_copy(tmp_path):
    """The test copy holds the proxy in place of the function (never the answer, so none
    of its module-level code can run where outcomes are decided); the worker copy holds
    the answer and none of the project's test files."""
    from beyondpass.methods.obfuseval.project.boundary import testing_copy, worker_copy
    from beyondpass.methods.obfuseval.project.tasks import ProjectTask

    pristine = tmp_path / "pristine"
    (pristine / "pkg").mkdir(parents=True)
    (pristine / "tests").mkdir()
    module = "import os\n\n\nclass Box:\n    def size(self):\n        return 1\n"
    (pristine / "pkg" / "box.py").write_text(module)
    (pristine / "tests" / "test_box.py").write_text("def test_size():\n    pass\n")
    (pristine / "tests" / "helpers.py").write_text("VALUE = 1\n")
    (pristine / "conftest.py").write_text("")
    task = ProjectTask("pkg.box.Box.size", "pkg/box.py", ("Box", "size"), "d", "", "", ())
    answer = (  # code that runs at import: the decorator of the answer's function
        "import sys\n\n\ndef hook(fn):\n    sys.exit(0)\n\n\n@hook\ndef size(self):\n    return 2\n"
    )
    tests = testing_copy(pristine, tmp_path / "t", task, "pkg.box")
    worker = worker_copy(pristine, tmp_path / "w", task, answer, ["tests/helpers.py"])
    proxied = (tests / "pkg" / "box.py").read_text()
    assert "_beyondpass_proxy.call('pkg.box', 'Box.size', args, kwargs)" in proxied
    assert "sys.exit" not in proxied and "return 1" not in proxied
    assert (tests / "tests" / "test_box.py").is_file()
    assert {p.name for p in (tests / ".beyondpass").iterdir()} == {
        "_beyondpass_wire.py",
        "_beyondpass_codec.py",
        "_beyondpass_classes.py",
        "_beyondpass_mirror.py",
        "_beyondpass_refs.py",
        "_beyondpass_callables.py",
        "_beyondpass_session.py",
        "_beyondpass_state.py",
        "_beyondpass_kinds.py",
        "_beyondpass_liveness.py",
        "_beyondpass_changes.py",
        "_beyondpass_deltas.py",
        "_beyondpass_proxy.py",
    }
    spliced = (worker / "pkg" / "box.py").read_text()
    assert "sys.exit(0)" in spliced and "return 2" in spliced
    left = sorted(p.relative_to(worker).as_posix() for p in worker.rglob("*.py"))
    assert left == [
        ".beyondpass/_beyondpass_callables.py",
        ".beyondpass/_beyondpass_changes.py",
        ".beyondpass/_beyondpass_classes.py",
        ".beyondpass/_beyondpass_codec.py",
        ".beyondpass/_beyondpass_deltas.py",
        ".beyondpass/_beyondpass_importcheck.py",
        ".beyondpass/_beyondpass_kinds.py",
        ".beyondpass/_beyondpass_liveness.py",
        ".beyondpass/_beyondpass_mirror.py",
        ".beyondpass/_beyondpass_refs.py",
        ".beyondpass/_beyondpass_session.py",
        ".beyondpass/_beyondpass_state.py",
        ".beyondpass/_beyondpass_wire.py",
        ".beyondpass/_beyondpass_worker.py",
        "pkg/box.py",
    ]
