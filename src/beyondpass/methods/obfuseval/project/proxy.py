"""The stand-in for the model's function inside the test process (trusted side).

In the copy the project's tests run on, the target function's body is replaced by a call
of :func:`call`: the arguments go, as data (``_beyondpass_codec`` values in
``_beyondpass_wire`` frames), to the worker process that holds the model's function; the
answer comes back as data, is decoded with the project's own classes only, the changes the
call made to anything it was given (lists, dicts, sets, ``self``, objects reachable from
them) are written into the caller's own objects, and the result is returned — or the
worker's exception is raised here under its own type name. Both directions send only
what changed since the object last crossed (``_beyondpass_mirror``). A worker that
hangs, dies or breaks the protocol makes this call (and every later one) fail; it can
never make a test pass.

Copied into the test copy as ``_beyondpass_proxy.py``; imports nothing from beyondpass.
"""

import builtins
import os
import socket
import sys
import threading
import time

import _beyondpass_codec as codec
import _beyondpass_mirror as mirror
import _beyondpass_wire as wire

_ROOT = os.environ.get("BEYONDPASS_PROJECT_ROOT", "")
_FD = os.environ.get("BEYONDPASS_WORKER_FD", "")
_TIMEOUT = float(os.environ.get("BEYONDPASS_CALL_TIMEOUT", "60"))
_lock = threading.Lock()
_state: dict = {"sock": None, "broken": None, "next": 0, "mirror": None, "reset": False}
_NAME_LIMIT = 100


class WorkerTimeout(Exception):
    """The worker did not answer a call in time (it is left behind as hung)."""


class WorkerGone(Exception):
    """The worker ended or broke the protocol."""


class ArgumentsCannotCross(Exception):
    """An argument of the call is not data (a function, a generator, a local class...)."""


class ResultCannotCross(Exception):
    """The worker's answer holds something that is not data or not the project's class."""


def find_class(module: str, qualname: str) -> "type | None":
    """A class of an already imported module of the project; looked up in ``__dict__``s
    only, so no code of the project runs and nothing is imported."""
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None) if mod is not None else None
    if not _ROOT or not isinstance(path, str):
        return None
    path = os.path.abspath(path)
    if not path.startswith(_ROOT.rstrip("/") + "/") or "/.beyondpass/" in path:
        return None
    found: object = mod
    for part in qualname.split("."):
        table = vars(found) if isinstance(found, type) or found is mod else None
        found = table.get(part) if table is not None else None
        if not isinstance(found, type):
            return None
    return found


def _connect() -> socket.socket:
    if _state["sock"] is None:
        if not _FD.isdigit():
            raise WorkerGone("no worker channel")
        sock = socket.socket(fileno=int(_FD))
        sock.set_inheritable(False)
        _state["sock"] = sock
    return _state["sock"]


def _view() -> "mirror.Mirror":
    if _state["mirror"] is None:
        _state["mirror"] = mirror.Mirror(0, find_class)
    return _state["mirror"]


def _exchange(message: dict, sent=None) -> dict:
    with _lock:
        if _state["broken"] is not None:
            raise _state["broken"]("the worker stopped answering earlier")
        ident = _state["next"]
        _state["next"] += 1
        message["id"] = ident
        try:
            sock = _connect()
            deadline = time.monotonic() + _TIMEOUT
            sock.settimeout(_TIMEOUT)
            wire.send_frame(sock, message)
            if sent is not None:
                sent()
            while True:
                answer = codec.message(wire.recv_frame(sock, deadline))
                if answer.get("id") == ident:
                    return answer
        except (TimeoutError, wire.DeadlineExceeded):
            _state["broken"] = WorkerTimeout
            raise WorkerTimeout(f"no answer within {_TIMEOUT:g} s") from None
        except (wire.PeerGone, wire.ProtocolError, ValueError, OSError) as exc:
            _state["broken"] = WorkerGone
            raise WorkerGone(f"the worker ended ({exc})") from None


def call(module: str, target: str, args: tuple, kwargs: dict) -> object:
    """Run ``module.target(*args, **kwargs)`` in the worker; see the module docstring."""
    with _lock:
        view = _view()
        try:
            value = view.encode((args, kwargs))
        except codec.CannotCross as exc:
            view.rollback()
            raise ArgumentsCannotCross(f"{target}: {exc}") from None
    message = {"target": target, "value": value}
    if _state["reset"]:
        message["reset"] = _state["reset"] = True
    try:
        answer = _exchange(message, view.commit)
    except wire.EncodeError as exc:  # larger than a frame may be; nothing was sent
        view.rollback()
        raise ArgumentsCannotCross(f"{target}: {exc}") from None
    with _lock:
        if answer.get("reset") is True:  # the worker could not take the arguments
            view.reset()
        if answer.get("ok") is True:
            found = _settle(view, answer.get("value"), target)
            if type(found) is not tuple or len(found) != 3:
                view.reset()
                _state["reset"] = True
                raise ResultCannotCross(f"{target}: malformed answer")
            return found[2]
        elif answer.get("state") is not None:
            _settle(view, answer.get("state"), target)
    error = answer.get("error")
    decoder = codec.Decoder(find_class)
    if isinstance(error, dict) and error.get("suppress_context") is True:
        raise _exception(error, decoder) from None  # the worker's ``raise ... from None``
    raise _exception(error, decoder)


def _settle(view: "mirror.Mirror", node: object, target: str) -> object:
    """Apply the worker's changes to the caller's objects; after a message that does not
    decode, both sides forget what they kept (the next request tells the worker)."""
    try:
        found = view.decode(node)
    except (codec.CannotCross, ValueError, TypeError, RecursionError) as exc:
        view.reset()
        _state["reset"] = True
        raise ResultCannotCross(f"{target}: {exc}") from None
    view.settle()
    return found


def _exception(error: object, decoder: "codec.Decoder") -> Exception:
    """The worker's exception as one of this process: a builtin exception by name, the
    project's own exception class, or else a new class of that name on the nearest
    builtin base. ``SystemExit`` and the like become plain failures here."""
    if not isinstance(error, dict):
        return WorkerGone("malformed answer")
    name = error.get("type")
    if not isinstance(name, str) or not name.isidentifier() or len(name) > _NAME_LIMIT:
        name = "Exception"
    message = error.get("message")
    message = message[:2000] if isinstance(message, str) else ""
    try:
        args = decoder.decode(error["args"]) if error.get("args") else (message,)
        if type(args) is not tuple:
            args = (message,)
    except (codec.CannotCross, ValueError, TypeError):
        args = (message,)
    cls = None
    try:
        found = decoder.cls(error.get("class"))
        if issubclass(found, Exception) and found.__name__ == name:
            cls = found
    except (codec.CannotCross, TypeError):
        pass
    builtin = getattr(builtins, name, None)
    if cls is None and isinstance(builtin, type) and issubclass(builtin, Exception):
        try:
            return builtin(*args)
        except Exception:  # an odd argument list for this type
            return builtin(message)
    if cls is not None:
        try:
            exc = BaseException.__new__(cls, *args)
            exc.args = args
            return exc
        except Exception:
            pass
    base: type = Exception
    for other in error.get("bases") or ():
        candidate = getattr(builtins, other, None) if isinstance(other, str) else None
        if isinstance(candidate, type) and issubclass(candidate, Exception):
            base = candidate
            break
    made = type(name, (base,), {"__module__": "worker"})
    try:
        return made(*args)
    except Exception:
        return made(message)
