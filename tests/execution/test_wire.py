"""The plain-data codec between judge and candidate: exact round trips, strict decoding."""

from __future__ import annotations

import json
import math
import socket
import time
from collections import Counter, OrderedDict, defaultdict, namedtuple
from decimal import Decimal
from fractions import Fraction

import pytest

from beyondpass.execution.sandboxed import wire

VALUES = [
    None,
    True,
    False,
    0,
    -7,
    2**53,
    -(2**200),
    10**5000,  # beyond int-to-str's default digit limit
    1.5,
    -0.0,
    float("inf"),
    "",
    "héllo\n\x00",
    "\ud800",  # a lone surrogate survives
    b"\x00\xff",
    bytearray(b"ab"),
    1 + 2j,
    [1, [2, [3]]],
    (1, (2,), ()),
    {"a": 1, 2: "b", (3, 4): [5], None: None},
    {1, 2, 3},
    frozenset({"x"}),
    Decimal("1.10"),
    Fraction(3, 7),
    range(1, 10, 3),
    [(), {}, set(), ""],
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_round_trip_keeps_value_and_type(value):
    body = json.dumps(wire.encode(value)).encode()
    back = wire.decode(body)
    assert type(back) is type(value)
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(back)
    else:
        assert back == value
        if not isinstance(value, int) or abs(value) < 10**100:  # repr of huge ints is limited
            assert repr(back) == repr(value)


def test_subclasses_travel_as_their_base_type():
    Point = namedtuple("Point", "x y")
    for value, base in [
        (Point(1, 2), (1, 2)),
        (OrderedDict(a=1), {"a": 1}),
        (defaultdict(int, a=1), {"a": 1}),
        (Counter("aab"), {"a": 2, "b": 1}),
        (type("S", (str,), {})("s"), "s"),
    ]:
        back = wire.decode(json.dumps(wire.encode(value)).encode())
        assert type(back) is type(base) and back == base


def test_objects_need_an_exporter_and_become_handles():
    class Thing:
        pass

    with pytest.raises(wire.EncodeError):
        wire.encode(Thing())
    tagged = wire.encode([Thing()], export=lambda obj: {"h": 1, "type": "Thing"})
    resolved = wire.decode(json.dumps(tagged).encode(), handle=lambda tag: ("handle", tag["h"]))
    assert resolved == [("handle", 1)]


def test_a_set_copy_iterates_like_the_literal_it_came_from():
    original = {12, 13, 14, 15, 16}  # iterates 16 first: its table was sized for a literal
    back = wire.decode(json.dumps(wire.encode(original)).encode())
    assert list(back) == list(original)


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b'{"t": [1], "s": [2]}',  # two tags
        b'{"zz": []}',  # unknown tag
        b'{"d": [[1]]}',  # a pair of one
        b'{"d": [[[1], 2]]}',  # unhashable key
        b'{"s": [[1]]}',  # unhashable element
        b'{"i": 12}',  # big int that is not a string
        b'{"i": "zz"}',
        b'{"b": "***"}',
        b'{"q": [1, 0]}',  # zero denominator
        b'{"r": [1, 2, 0]}',  # zero step
        b'{"dec": "not a number"}',
        b"[" * 100_000 + b"]" * 100_000,  # nesting bomb
        b"1" * 5000,  # a 5000-digit number
    ],
)
def test_malformed_frames_are_protocol_errors(body):
    with pytest.raises(wire.ProtocolError):
        wire.decode(body)


def test_frames_over_a_socket_with_deadline_and_peer_gone():
    a, b = socket.socketpair()
    wire.send_frame(a, ["ok", wire.encode((1, 2)), 0, []])
    assert wire.decode(wire.recv_frame(b, time.monotonic() + 5)) == ["ok", (1, 2), 0, []]
    with pytest.raises(wire.DeadlineExceeded):
        wire.recv_frame(b, time.monotonic() + 0.05)
    a.sendall(wire.HEADER.pack(wire.MAX_FRAME + 1))
    with pytest.raises(wire.ProtocolError):
        wire.recv_frame(b, time.monotonic() + 5)
    a.close()
    with pytest.raises(wire.PeerGone):
        wire.recv_frame(b, time.monotonic() + 5)
    b.close()


def test_the_constants_both_halves_share_agree():
    """The job schema is the one definition; the runners that cannot import it (the Python
    function runner starts with -P, Java cannot import Python) repeat its values."""
    import ast
    import re
    from pathlib import Path

    from beyondpass.execution.sandboxed import job

    here = Path(job.__file__).parent
    tree = ast.parse((here / "python_function_runner.py").read_text())
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id.startswith("NOT_CALLABLE")
    }
    assert values == {
        "NOT_CALLABLE_EXIT": job.NOT_CALLABLE_EXIT,
        "NOT_CALLABLE_MARK": job.NOT_CALLABLE_MARK,
    }
    java = (here / "FunctionRunner.java").read_text()
    found = re.search(r"static final int NOT_CALLABLE = (\d+);", java)
    assert found and int(found.group(1)) == job.NOT_CALLABLE_EXIT
