"""The candidate as the judge's tests see it: its functions and objects behind a channel.

Calling ``candidate(x)`` in a test sends ``x`` over the channel to the candidate's process
and gets back plain data (:mod:`wire`); any other object stays there and is used through a
numbered handle whose equality and hashing are decided here, by identity. Exceptions come
back as the same builtin class (or a subclass of its nearest builtin base). The end of the
sample (its time ran out, the process went away) is :class:`SampleOver`, which test code
cannot swallow.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import builtins
import collections
import functools
import socket
import time

import wire

_MUTABLE = (list, dict, set, bytearray)


class SampleOver(BaseException):  # noqa: N818 - not an error of the test; ends the sample
    """The candidate is gone, out of time or broke the protocol: no further test runs.

    A ``BaseException`` so that ``except Exception`` in a benchmark's test code cannot
    swallow it; the channel also remembers it, so even a bare ``except:`` cannot.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "gone", "timeout" or "protocol"
        self.message = message


class CandidateChannel:
    """The judge's end of one sample's channel: requests, timing, handles."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.reader = wire.FrameReader(sock)
        self.sample_deadline = deadline
        self.deadline = deadline
        self.elapsed_ns = 0  # candidate-side time of calls since the last reset
        self.elapsed_ref = 0.0  # the same in reference units (call_timing.py)
        self.timing = False  # calls are timing repeats (the candidate times them carefully)
        self.over: SampleOver | None = None
        self._handles: dict[int, RemoteObject] = {}
        # calls sent ahead (prefetch.py) whose answers are still to be read, in order
        self.ahead: collections.deque = collections.deque()
        self.current_test = -1

    def receive(self) -> list:
        try:
            reply = wire.decode(self.reader.read(self.deadline), self._handle)
        except wire.DeadlineExceeded:
            raise self._end("timeout", "the sample ran out of time") from None
        except wire.PeerGone:
            raise self._end("gone", "the candidate's process ended") from None
        except wire.ProtocolError as exc:
            raise self._end("protocol", f"the candidate broke the protocol: {exc}") from None
        if not isinstance(reply, list) or not reply or not isinstance(reply[0], str):
            raise self._end("protocol", "the candidate sent a message that is not a reply")
        return reply

    def send(self, message: list) -> None:
        if self.over is not None:
            raise self.over
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self._end("timeout", "the sample ran out of time")
        try:
            encoded = [wire.encode(part, _export) for part in message]
        except wire.EncodeError as exc:
            raise TypeError(f"cannot pass this value to the candidate: {exc}") from None
        self.sock.settimeout(remaining)  # a program that stops reading cannot stall the judge
        try:
            wire.send_frame(self.sock, encoded)
        except TimeoutError:
            raise self._end("timeout", "the sample ran out of time") from None
        except wire.EncodeError as exc:
            raise TypeError(f"cannot pass this value to the candidate: {exc}") from None
        except OSError:
            raise self._end("gone", "the candidate's process ended") from None
        finally:
            self.sock.settimeout(None)

    def send_ahead(self, planned: list, quiet: bool = False) -> None:
        """Send ``(test key, name, args, kwargs, timed)`` calls at once; answers are read
        later, in order.

        ``quiet``: the candidate answers only after the last call (for timing runs).
        """
        calls = [[name, args, kwargs, timed] for _, name, args, kwargs, timed in planned]
        self.send(["batch", calls, quiet])
        self.ahead.extend(call[:4] for call in planned)

    def call(self, name: str, args: tuple, kwargs: dict) -> object:
        """Call the program's ``name``: from the answers sent ahead when this is the next
        planned call of the running test, else as a request of its own."""
        while self.ahead and self.ahead[0][0] < self.current_test:
            self.ahead.popleft()  # an earlier test stopped before using this answer
            self.receive()
        if self.ahead:
            test, planned_name, planned_args, planned_kwargs = self.ahead[0]
            if (
                test == self.current_test
                and planned_name == name
                and planned_args == list(args)
                and planned_kwargs == kwargs
            ):
                self.ahead.popleft()
                return self._answer(self.receive(), args)
            self.skip_ahead()  # the test went another way: back to one call at a time
        return self.request(["call", name, list(args), kwargs, self.timing], args)

    def skip_ahead(self) -> None:
        while self.ahead:
            self.ahead.popleft()
            self.receive()

    def request(self, message: list, mutable_args: tuple = ()) -> object:
        if self.ahead:
            self.skip_ahead()
        self.send(message)
        return self._answer(self.receive(), mutable_args)

    def _answer(self, reply: list, mutable_args: tuple) -> object:
        kind = reply[0]
        if kind == "ok" and len(reply) == 5 and isinstance(reply[3], list):
            _, value, ns, changed, in_reference_units = reply
            self._add_time(ns, in_reference_units)
            for item in changed:
                _copy_back(mutable_args, item)
            return value
        if kind == "err" and len(reply) == 5:
            _, type_name, base, message_text, ns = reply
            self._add_time(ns, 0)
            raise remote_exception(str(type_name), str(base), str(message_text)[:500])
        raise self._end("protocol", f"the candidate sent an unexpected {kind!r} reply")

    def _add_time(self, ns: object, in_reference_units: object) -> None:
        units = in_reference_units
        if (
            type(ns) is not int
            or ns < 0
            or type(units) not in (int, float)
            or not 0 <= units < 1e18
        ):
            raise self._end("protocol", "the candidate reported an invalid duration")
        self.elapsed_ns += ns
        self.elapsed_ref += units

    def _end(self, kind: str, message: str) -> SampleOver:
        if self.over is None:
            self.over = SampleOver(kind, message)
        return self.over

    def _handle(self, tag: dict) -> "RemoteObject":
        ident = tag.get("h")
        if type(ident) is not int:
            raise wire.ProtocolError("a handle without an integer id")
        if ident not in self._handles:
            self._handles[ident] = RemoteObject(self, ident, str(tag.get("type", "object"))[:100])
        return self._handles[ident]


def _export(obj: object) -> dict:
    if isinstance(obj, (RemoteObject, RemoteFunction)):
        return obj._tag()
    raise wire.EncodeError(f"an object of type {type(obj).__name__} is not plain data")


def _copy_back(args: tuple, item: object) -> None:
    """Apply an in-place change the candidate made to a mutable argument (call by copy-restore)."""
    if not isinstance(item, list) or len(item) != 2 or type(item[0]) is not int:
        return
    index, new = item
    if not 0 <= index < len(args):
        return
    old = args[index]
    if type(new) is not type(old) or type(old) not in _MUTABLE:
        return
    if isinstance(old, (list, bytearray)):
        old[:] = new
    else:
        old.clear()
        old.update(new)


def remote_exception(type_name: str, base: str, message: str) -> BaseException:
    """The candidate's exception, re-created here: builtin ones as themselves (so ``except
    ValueError`` in a test matches), others as a subclass of their nearest builtin base
    that carries the candidate's class name."""
    klass = _exception_class(type_name, base)
    try:
        return klass(message)
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError needs five arguments
        return _exception_class(type_name, "Exception")(message)


@functools.lru_cache(maxsize=256)
def _exception_class(type_name: str, base: str) -> type:
    builtin = getattr(builtins, base, None)
    if not (isinstance(builtin, type) and issubclass(builtin, BaseException)):
        builtin = Exception
    if type_name == base or not type_name.isidentifier():
        return builtin
    try:
        return type(type_name, (builtin,), {"__module__": "candidate"})
    except TypeError:
        return builtin


class RemoteFunction:
    """A top-level callable of the candidate, called through the channel."""

    __slots__ = ("_channel", "_name")

    def __init__(self, channel: CandidateChannel, name: str) -> None:
        self._channel = channel
        self._name = name

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._channel.call(self._name, args, kwargs)

    def __repr__(self) -> str:
        return f"<candidate function {self._name}>"

    def _tag(self) -> dict:
        raise wire.EncodeError("a candidate function cannot be passed back to the candidate")


class RemoteObject:
    """An object that stays in the candidate's process.

    Equality and hashing are by identity and decided here: a candidate object never
    compares equal to a plain value, whatever its class says.
    """

    __slots__ = ("_channel", "_id", "_type")

    def __init__(self, channel: CandidateChannel, ident: int, type_name: str) -> None:
        self._channel = channel
        self._id = ident
        self._type = type_name

    def _tag(self) -> dict:
        return {"h": self._id}

    def _ask(self, op: str, *args: object) -> object:
        return self._channel.request([op, self, *args])

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._channel.request(["call", self, list(args), kwargs], args)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ask("attr", name)

    def __iter__(self):
        return self._ask("iter")

    def __next__(self):
        return self._ask("next")

    def __len__(self) -> int:
        n = self._ask("len")
        if type(n) is not int:
            raise TypeError("len() of a candidate object is not an integer")
        return n

    def __bool__(self) -> bool:
        return self._ask("bool") is True

    def __str__(self) -> str:
        return str(self._ask("str"))

    def __repr__(self) -> str:
        return f"<candidate {self._type} object>"

    def __getitem__(self, key: object) -> object:
        return self._ask("getitem", key)

    def __contains__(self, item: object) -> bool:
        return self._ask("contains", item) is True


class TestGlobals(dict):
    """The test code's namespace: plain values of the program are fetched on first use."""

    __test__ = False

    def __init__(self, channel: CandidateChannel, lazy: frozenset) -> None:
        super().__init__()
        self._channel = channel
        self._lazy = lazy

    def __missing__(self, name: str) -> object:
        if name not in self._lazy:
            raise KeyError(name)
        value = self._channel.request(["get", name])
        self[name] = value
        return value
