"""The conversation between the test process and the worker: requests, replies, nested.

The test process asks the worker to call the model's function (``target``). While it
waits, either side may ask the other in turn: the worker calls a callback it was handed
(``call``) or reads an iterator it was handed (``next``), the test process calls a
function or reads a generator the answer returned, and a callback may call the model's
function again. Every request is answered before the request it interrupted, so the
conversation is a stack; each side serves the other's requests while it waits for its own
answer (one message loop, :meth:`Session.request`), under a re-entrant lock.

Every message carries one value, encoded by the side's mirror (``_beyondpass_mirror``):
its payload and every object both sides keep that this side changed since it last
crossed — whether the payload reaches it or not: the arguments of the calls in progress,
and as well what only a closure reaches (a cache a decorator the answer returned keeps).
So every change crosses at every turn — each callback call and return, each ``next`` —
not only when the outermost call ends: a callback sees the arguments as the answer left
them, and a test reads its cache as the answer's wrapper filled it. A payload is the
arguments ``(args, kwargs)`` of a call, the result of a reply, or the exception of a
failed one (crossing by reference: ``_beyondpass_refs``), ``StopIteration`` being
``"stop"``.

The test process waits at most ``timeout`` seconds for each message of the worker (the
time its own callbacks take is not the worker's); a worker that is silent, ends or breaks
the protocol fails that request and every later one (:class:`WorkerTimeout`,
:class:`WorkerGone`). A message one side cannot take makes it forget its mirrored objects
and say so in its next message (``reset``), as the mirror's transactions require.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_session``.
"""

import sys
import threading
import time

import _beyondpass_codec as codec
import _beyondpass_refs as refs
import _beyondpass_wire as wire

_CALLS = ("target", "call")
#: what a stand-in of an iterator asks its owner: the next item, and a generator's
#: ``send``, ``throw`` and ``close`` (the payload: the value sent, the exception thrown)
_ITERATES = ("next", "send", "throw", "close")


def _iterate(iterator: object, op: str, payload: object) -> object:
    """Do ``op`` on this side's iterator (an iterator that is no generator has no
    ``send``: the AttributeError crosses back, as it would be raised there)."""
    if op == "next":
        return next(iterator)  # type: ignore[call-overload]
    if op == "throw":
        if not isinstance(payload, BaseException):
            raise refs.ArgumentsCannotCross("throw needs an exception")
        return iterator.throw(payload)  # type: ignore[attr-defined]
    if op == "close":
        return iterator.close()  # type: ignore[attr-defined]
    return iterator.send(payload)  # type: ignore[attr-defined]


_PRINTED_LIMIT = 1 << 20  # characters of the answer's output per message


class WorkerTimeout(Exception):
    """The worker did not answer in time (it is left behind as hung)."""


class WorkerGone(Exception):
    """The worker ended or broke the protocol."""


class ResultCannotCross(Exception):
    """An answer holds something that cannot cross (not data, not the project's class)."""


class Session:
    """One side of the conversation. ``serve_target(target, args, kwargs)`` (the worker's)
    calls the model's function; ``timeout``: how long to wait for the other side (None:
    for ever, the worker's)."""

    def __init__(self, sock, view, timeout=None, serve_target=None, printed=None) -> None:
        self.sock = sock
        self.printed = printed  # the worker's: () -> (stdout, stderr) since it last asked
        self.view = view
        self.refs = view.refs
        self.refs.ask = self.ask
        self.timeout = timeout
        self.serve_target = serve_target
        self.lock = threading.RLock()
        self.next = view.side  # request ids of this side's parity
        self.reset_due = False
        self.broken = None

    # -- asking -----------------------------------------------------------------------------
    def ask(self, op: str, ref: int, payload: object) -> object:
        """A stand-in's use: call or read the other side's object ``ref``."""
        return self.request({"op": op, "ref": ref}, payload)

    def request(self, message: dict, payload: object) -> object:
        """Send a request and serve the other side until its answer comes; return the
        answer's result or raise its exception. Raises ``refs.ArgumentsCannotCross``
        when the payload cannot be sent, :class:`ResultCannotCross` when the answer
        cannot be taken."""
        with self.lock:
            if self.broken is not None:
                raise self.broken("the worker stopped answering earlier")
            ident, self.next = self.next, self.next + 2
            message["id"] = ident
            try:
                self._send(message, payload)
            except codec.CannotCross as exc:
                raise refs.ArgumentsCannotCross(str(exc)) from None
            while True:
                incoming = self._receive()
                if "op" in incoming:
                    self._serve(incoming)
                    continue
                if incoming.get("id") != ident:
                    raise self._break(WorkerGone, "an answer to no question")
                return self._outcome(incoming)

    def _outcome(self, reply: dict) -> object:
        try:
            found = self._value(reply)
        except codec.CannotCross as exc:
            raise ResultCannotCross(str(exc)) from None
        if reply.get("ok") is True:
            if reply.get("stop") is True:  # a generator's return value comes with it
                raise StopIteration(found) if found is not None else StopIteration
            return found
        if isinstance(found, BaseException):
            raise found
        raise ResultCannotCross("a failed answer without its exception")

    # -- serving ----------------------------------------------------------------------------
    def serve_forever(self) -> None:
        """The worker's loop: serve requests until the other side is gone."""
        while True:
            try:
                incoming = self._receive()
            except (WorkerGone, WorkerTimeout):
                return
            if "op" not in incoming:
                return  # an answer to no question: the test process broke the protocol
            try:
                self._serve(incoming)
            except (WorkerGone, WorkerTimeout):
                return

    def _serve(self, request: dict) -> None:
        ident, op = request.get("id"), request.get("op")
        reply: dict = {"id": ident, "ok": True}
        try:
            try:
                payload = self._value(request)
            except codec.CannotCross as exc:
                raise refs.ArgumentsCannotCross(f"the arguments did not decode ({exc})") from None
            if op in _CALLS:
                if type(payload) is not tuple or len(payload) != 2:
                    raise refs.ArgumentsCannotCross("malformed arguments")
                args, kwargs = payload
                if type(args) is not tuple or type(kwargs) is not dict:
                    raise refs.ArgumentsCannotCross("malformed arguments")
                if op == "target" and self.serve_target is not None:
                    result = self.serve_target(request.get("target"), args, kwargs)
                elif op == "call":
                    result = self._target(request, "call")(*args, **kwargs)
                else:
                    raise refs.ArgumentsCannotCross("this side has no target")
            elif op in _ITERATES:
                try:
                    result = _iterate(self._target(request, "next"), op, payload)
                except StopIteration as stop:
                    result, reply["stop"] = stop.value, True
            else:
                raise refs.ArgumentsCannotCross(f"unknown request {str(op)[:20]!r}")
        except BaseException as exc:  # the answer's (or a callback's) exception crosses
            result, reply = exc, {"id": ident, "ok": False}
        self._reply(reply, result)

    def _target(self, request: dict, op: str) -> object:
        try:
            return self.refs.target(request.get("ref"), op)
        except codec.CannotCross as exc:
            raise refs.ArgumentsCannotCross(str(exc)) from None

    def _reply(self, reply: dict, result: object) -> None:
        """Send a reply; a result that cannot cross is replaced by that failure, and when
        not even that can be sent, both sides start again from whole objects."""
        try:
            self._send(reply, result)
            return
        except codec.CannotCross as exc:
            failure = ResultCannotCross(str(exc))
        reply = {"id": reply.get("id"), "ok": False}
        try:
            self._send(reply, failure)
        except codec.CannotCross:
            self.view.reset()
            self.reset_due = True
            self._send(reply, failure)  # nothing is kept now: no change to carry

    # -- the channel ------------------------------------------------------------------------
    def _send(self, message: dict, payload: object) -> None:
        """Send ``message`` with ``payload`` and this side's changes as its value; what
        the mirror encoded is kept only once the frame is sent. Raises
        ``codec.CannotCross``."""
        try:
            message["value"] = self.view.encode(payload)
        except (codec.CannotCross, RecursionError) as exc:
            self.view.rollback()
            raise codec.CannotCross(str(exc)) from None
        if self.reset_due:
            message["reset"] = True
        if self.printed is not None:  # what the answer printed crosses where it was due
            for stream, text in zip(("out", "err"), self.printed(), strict=True):
                if text:
                    message[stream] = text[:_PRINTED_LIMIT]
        try:
            wire.send_frame(self.sock, message)
        except wire.EncodeError as exc:  # larger than a frame may be: nothing was sent
            self.view.rollback()
            raise codec.CannotCross(str(exc)) from None
        except OSError as exc:
            self.view.rollback()
            raise self._break(WorkerGone, f"the worker ended ({exc})") from None
        self.view.commit()
        self.reset_due = False

    def _receive(self) -> dict:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        try:
            self.sock.settimeout(self.timeout)
            found = codec.message(wire.recv_frame(self.sock, deadline))
        except (TimeoutError, wire.DeadlineExceeded):
            raise self._break(WorkerTimeout, f"no answer within {self.timeout:g} s") from None
        except (wire.PeerGone, wire.ProtocolError, ValueError, OSError) as exc:
            raise self._break(WorkerGone, f"the worker ended ({exc})") from None
        if self.printed is None:  # the test process prints what the answer printed
            for stream, name in (("out", "stdout"), ("err", "stderr")):
                text = found.get(stream)
                if type(text) is str:
                    getattr(sys, name).write(text[:_PRINTED_LIMIT])
        return found

    def _break(self, kind: type, why: str) -> Exception:
        self.broken = kind
        return kind(why)

    def _value(self, message: dict) -> object:
        """The payload of a message, the changes it carries applied (``codec.CannotCross``
        when it does not decode: this side forgets its objects and says so next)."""
        if message.get("reset") is True:
            self.view.reset()
        try:
            found = self.view.decode(message.get("value"))
            self.view.settle()
        except (codec.CannotCross, ValueError, TypeError, RecursionError) as exc:
            self.view.reset()
            self.reset_due = True
            raise codec.CannotCross(str(exc)) from None
        return found
