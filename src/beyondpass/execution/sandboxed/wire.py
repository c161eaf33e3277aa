"""Frames and a plain-data codec for the channel between the judge and a candidate.

The judge (trusted: it runs the benchmark's tests) and the candidate (hostile: it runs the
model's code) live in different processes and talk only through this module. Whatever the
candidate sends is decoded here into plain values — ``None``, ``bool``, ``int``, ``float``,
``complex``, ``str``, ``bytes``, ``bytearray``, ``list``, ``tuple``, ``dict``, ``set``,
``frozenset``, ``Decimal``, ``Fraction``, ``range`` — or into an opaque handle for any other
object. No object of the candidate ever reaches the judge, so the candidate cannot decide
how the judge compares, hashes or prints a value (the "always equal" object, a patched
``__eq__``), and a malformed frame is a protocol error, never code execution: decoding
uses only ``json.loads`` and constructors of the types above.

Subclasses of plain types are sent as their base value (a ``namedtuple`` as a ``tuple``, a
``Counter`` as a ``dict``): in-process tests compare them equal to the base value anyway.

This file must import nothing from beyondpass: it runs inside the sandboxes.
"""

import base64
import json
import select
import socket
import struct
import sys
import time

HEADER = struct.Struct(">I")
MAX_FRAME = 64 << 20  # a larger answer is a protocol error, not a memory problem
_SAFE_INT = 1 << 53


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed frame of plain data."""


class PeerGone(Exception):
    """The peer closed the channel (it exited or was killed)."""


class DeadlineExceeded(Exception):
    """No complete frame arrived before the deadline."""


class EncodeError(Exception):
    """A value cannot be sent (no handle exporter for an object that is not plain data)."""


# -- frames -------------------------------------------------------------------------------
def send_frame(sock: socket.socket, obj: object) -> None:
    body = json.dumps(obj, separators=(",", ":"), allow_nan=True).encode()
    if len(body) > MAX_FRAME:
        raise EncodeError(f"message of {len(body)} bytes exceeds the {MAX_FRAME}-byte limit")
    sock.sendall(HEADER.pack(len(body)) + body)


def recv_frame(sock: socket.socket, deadline: float | None = None) -> bytes:
    """The body of one frame; ``deadline`` is a ``time.monotonic()`` value.

    Bodies from a trusted peer are read with ``json.loads``; bodies from a candidate only
    with :func:`decode`.
    """
    header = _recv_exactly(sock, HEADER.size, deadline)
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
    return _recv_exactly(sock, size, deadline)


class FrameReader:
    """Reads frames from a socket through a buffer: answers that stream in back to back
    (calls sent ahead) cost one ``recv`` for many frames instead of two each."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()
        sock.settimeout(None)  # blocking: reads wait in select() first, so never block

    def read(self, deadline: float | None = None) -> bytes:
        """The body of the next frame; same contract as :func:`recv_frame`."""
        while True:
            if len(self.buf) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.buf)
                if size > MAX_FRAME:
                    raise ProtocolError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
                end = HEADER.size + size
                if len(self.buf) >= end:
                    body = bytes(self.buf[HEADER.size : end])
                    del self.buf[:end]
                    return body
            self._fill(deadline)

    def _fill(self, deadline: float | None) -> None:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise DeadlineExceeded()
        try:
            ready, _, _ = select.select([self.sock], [], [], remaining)
            if not ready:
                raise DeadlineExceeded()
            chunk = self.sock.recv(1 << 16)
        except (OSError, ValueError) as exc:  # ValueError: the socket was closed
            raise PeerGone(str(exc)) from None
        if not chunk:
            raise PeerGone("the peer closed the channel")
        self.buf += chunk


def _recv_exactly(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceeded()
            sock.settimeout(remaining)
        try:
            k = sock.recv_into(view[got:], n - got)
        except TimeoutError:
            raise DeadlineExceeded() from None
        except OSError as exc:
            raise PeerGone(str(exc)) from None
        if k == 0:
            raise PeerGone("the peer closed the channel")
        got += k
    return bytes(buf)


# -- values -------------------------------------------------------------------------------
def encode(value: object, export=None) -> object:
    """A JSON-ready form of ``value``; ``export(obj) -> dict`` turns other objects into handles."""
    t = type(value)
    if value is None or t is str or t is bool or t is float:
        return value
    if t is int:
        return value if -_SAFE_INT < value < _SAFE_INT else {"i": format(value, "x")}
    if t is list:
        return [encode(x, export) for x in value]
    if t is tuple:
        return {"t": [encode(x, export) for x in value]}
    if t is dict:
        return {"d": [[encode(k, export), encode(v, export)] for k, v in value.items()]}
    return _encode_other(value, export)


def _encode_other(value: object, export) -> object:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return encode(int(value))
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, complex):
        return {"c": [complex(value).real, complex(value).imag]}
    if isinstance(value, bytes):
        return {"b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, bytearray):
        return {"y": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [encode(x, export) for x in list.__iter__(value)]
    if isinstance(value, tuple):
        return {"t": [encode(x, export) for x in tuple.__iter__(value)]}
    if isinstance(value, dict):
        return {"d": [[encode(k, export), encode(v, export)] for k, v in dict.items(value)]}
    if isinstance(value, frozenset):
        return {"f": [encode(x, export) for x in frozenset.__iter__(value)]}
    if isinstance(value, set):
        return {"s": [encode(x, export) for x in set.__iter__(value)]}
    # looked up, not imported: a process that never imported them holds no such values, and
    # the candidate fork server stays small (every page it holds makes each fork slower)
    decimal, fractions = sys.modules.get("decimal"), sys.modules.get("fractions")
    if decimal is not None and isinstance(value, decimal.Decimal):
        return {"dec": str(decimal.Decimal(value))}
    if fractions is not None and isinstance(value, fractions.Fraction):
        return {"q": [encode(int(value.numerator)), encode(int(value.denominator))]}
    if isinstance(value, range):
        return {"r": [encode(value.start), encode(value.stop), encode(value.step)]}
    if export is None:
        raise EncodeError(f"cannot send an object of type {type(value).__name__}")
    return export(value)


def decode(data: bytes, handle=None) -> object:
    """Plain values from a frame body; ``handle(tag) -> object`` resolves ``{"h": ...}`` tags.

    Every JSON object in a frame is a tagged value, so messages themselves are lists.
    """
    try:
        return json.loads(data, object_hook=lambda obj: _tagged(obj, handle))
    except ProtocolError:
        raise
    except (ValueError, TypeError, RecursionError, ArithmeticError) as exc:
        raise ProtocolError(f"malformed frame: {type(exc).__name__}: {str(exc)[:200]}") from None


def _tagged(obj: dict, handle) -> object:
    if len(obj) != 1 and "h" not in obj:
        raise ProtocolError(f"not a tagged value: keys {sorted(obj)[:5]}")
    if "h" in obj:
        return obj if handle is None else handle(obj)
    ((tag, body),) = obj.items()
    if tag == "t":
        return tuple(_list(body))
    if tag == "d":
        out = {}
        for pair in _list(body):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ProtocolError("a dict entry is not a [key, value] pair")
            out[pair[0]] = pair[1]
        return out
    if tag == "s":
        # built the way a set literal is (a frozenset merged into an empty set), so code that
        # depends on a set's iteration order sees what it would see in-process in nearly all
        # cases: the order depends on how a set was built, not only on its elements
        return set(frozenset(_list(body)))
    if tag == "f":
        return frozenset(_list(body))
    if tag == "i":
        if not isinstance(body, str) or len(body) > 1 << 16:
            raise ProtocolError("a big integer is not a bounded hex string")
        return int(body, 16)
    if tag == "c":
        re_, im = _list(body)
        return complex(_float(re_), _float(im))
    if tag == "b":
        return base64.b64decode(_str(body), validate=True)
    if tag == "y":
        return bytearray(base64.b64decode(_str(body), validate=True))
    if tag == "dec":
        from decimal import Decimal

        return Decimal(_str(body))
    if tag == "q":
        num, den = _list(body)
        if type(num) is not int or type(den) is not int:
            raise ProtocolError("a fraction needs two integers")
        from fractions import Fraction

        return Fraction(num, den)
    if tag == "r":
        start, stop, step = _list(body)
        if not all(type(x) is int for x in (start, stop, step)):
            raise ProtocolError("a range needs three integers")
        return range(start, stop, step)
    raise ProtocolError(f"unknown value tag {tag!r}")


def _list(body: object) -> list:
    if not isinstance(body, list):
        raise ProtocolError("a tagged value's body is not a list")
    return body


def _str(body: object) -> str:
    if not isinstance(body, str):
        raise ProtocolError("a tagged value's body is not a string")
    return body


def _float(x: object) -> float:
    if type(x) not in (int, float):
        raise ProtocolError("a complex number needs two numbers")
    return float(x)
