"""The stand-in for the model's function inside the test process (trusted side).

In the copy the project's tests run on, the target function's body is replaced by a call
of :func:`call`: the arguments go, as data (``_beyondpass_codec`` values in
``_beyondpass_wire`` frames), to the worker process that holds the model's function; the
answer comes back as data, is decoded with the project's own classes only, changes of
mutable arguments (lists, dicts, sets, ``self``) are written back into the caller's
objects, and the result is returned — or the worker's exception is raised here under its
own type name. A worker that hangs, dies or breaks the
protocol makes this call (and every later one) fail; it can never make a test pass.

Copied into the test copy as ``_beyondpass_proxy.py``; imports nothing from beyondpass.
"""

import builtins
import collections
import contextlib
import os
import socket
import sys
import threading
import time

import _beyondpass_codec as codec
import _beyondpass_wire as wire

_ROOT = os.environ.get("BEYONDPASS_PROJECT_ROOT", "")
_FD = os.environ.get("BEYONDPASS_WORKER_FD", "")
_TIMEOUT = float(os.environ.get("BEYONDPASS_CALL_TIMEOUT", "60"))
_lock = threading.Lock()
_state: dict = {"sock": None, "broken": None, "next": 0}
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


def _exchange(message: dict) -> dict:
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
    try:
        value = codec.encode((args, kwargs))
    except codec.CannotCross as exc:
        raise ArgumentsCannotCross(f"{target}: {exc}") from None
    try:
        answer = _exchange({"target": target, "value": value})
    except wire.EncodeError as exc:  # larger than a frame may be; nothing was sent
        raise ArgumentsCannotCross(f"{target}: {exc}") from None
    decoder = codec.Decoder(find_class)
    if answer.get("ok") is True:
        try:
            new_args, new_kwargs, result = decoder.decode(answer.get("value"))
            if type(new_args) is not tuple or type(new_kwargs) is not dict:
                raise codec.CannotCross("malformed answer")
        except (codec.CannotCross, ValueError, TypeError) as exc:
            raise ResultCannotCross(f"{target}: {exc}") from None
        originals = {}
        pairs = list(zip(args, new_args, strict=False))
        pairs += [(kwargs[k], new_kwargs[k]) for k in kwargs if k in new_kwargs]
        for old, new in pairs:
            _write_back(old, new)
            originals[id(new)] = old
        return originals.get(id(result), result)
    error = answer.get("error")
    if isinstance(error, dict) and error.get("suppress_context") is True:
        raise _exception(error, decoder) from None  # the worker's ``raise ... from None``
    raise _exception(error, decoder)


def _write_back(old: object, new: object) -> None:
    """Copy the worker's post-call state of an argument into the caller's object."""
    kind = type(old)
    if type(new) is not kind or old is new:
        return
    if kind in (list, bytearray):
        old[:] = new
        return
    if kind in (dict, set):
        kind.clear(old)
        kind.update(old, new)
        return
    if not (kind.__flags__ & (1 << 9)):  # other builtin values are immutable or opaque
        return
    base = codec._base_of(kind)
    if base in (dict, collections.OrderedDict, collections.defaultdict):
        base.clear(old)
        for key, value in dict.items(new):
            base.__setitem__(old, key, value)
        if base is collections.defaultdict:
            old.default_factory = new.default_factory
    elif base in (list, bytearray):
        base.__setitem__(old, slice(None), new)
    elif base is set:
        set.clear(old)
        set.update(old, new)
    elif base is collections.deque:
        collections.deque.clear(old)
        collections.deque.extend(old, new)
    try:
        attrs = object.__getattribute__(new, "__dict__")
        target = object.__getattribute__(old, "__dict__")
    except AttributeError:
        attrs = target = None
    if type(attrs) is dict and type(target) is dict:
        dict.clear(target)
        dict.update(target, {k: old if v is new else v for k, v in attrs.items()})
    for desc in codec._slots(kind).values():
        try:
            value = desc.__get__(new, kind)
        except AttributeError:
            with contextlib.suppress(AttributeError):
                desc.__delete__(old)
            continue
        desc.__set__(old, old if value is new else value)


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
