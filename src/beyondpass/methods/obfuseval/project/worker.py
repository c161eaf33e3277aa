"""Serves calls of the model's function in a sandbox of its own (hostile side).

Started per test run, in the copy that holds the model's function (and none of the
project's tests): imports the module — every module-level effect of the model's code
happens here — then answers each call the test process's proxy sends: decode the
arguments, call the function, send back what the call changed and the result (or the
exception) as data; both directions send only what changed since an object last crossed
(``_beyondpass_mirror``: this process keeps the objects it was given between calls).
Nothing this process sends is more than data to the test process.

Copied into the worker copy as ``_beyondpass_worker.py``; imports nothing from beyondpass.
Usage: ``python _beyondpass_worker.py FD MODULE``.
"""

import importlib
import socket
import sys

import _beyondpass_codec as codec
import _beyondpass_mirror as mirror
import _beyondpass_wire as wire


def find_class(module: str, qualname: str) -> "type | None":
    try:
        found: object = importlib.import_module(module)
    except Exception:
        return None
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def _target(module: object, qualname: str) -> object:
    *owners, name = qualname.split(".")
    holder = module
    for part in owners:
        holder = getattr(holder, part)
    raw = vars(holder)[name] if isinstance(holder, type) else getattr(holder, name)
    if isinstance(raw, (staticmethod, classmethod)):
        return raw.__func__
    if isinstance(raw, property):
        return raw.fget
    return raw


def _error(ident: object, exc: BaseException) -> dict:
    cls = type(exc)
    try:
        message = str(exc)[:2000]
    except Exception:
        message = ""
    try:
        args = codec.encode(tuple(exc.args))
    except Exception:
        args = None
    try:
        ref = [cls.__module__, cls.__qualname__]
    except Exception:
        ref = None
    return {
        "id": ident,
        "ok": False,
        "error": {
            "type": cls.__name__,
            "bases": [c.__name__ for c in cls.__mro__],
            "class": ref,
            "message": message,
            "args": args,
            "suppress_context": exc.__suppress_context__ is True,
        },
    }


def _with_state(view: "mirror.Mirror", answer: dict, args: tuple, kwargs: dict) -> dict:
    """An error answer with what the call changed before it failed; when that cannot
    cross either, both sides start again from whole objects."""
    try:
        answer["state"] = view.encode((args, kwargs))
    except codec.CannotCross:
        view.rollback()
        view.reset()
        answer["reset"] = True
    return answer


def _answer(view: "mirror.Mirror", ident: object, call: tuple) -> dict:
    """Call, then encode what changed and the result (pending until sent)."""
    function, args, kwargs = call
    try:
        result = function(*args, **kwargs)
    except BaseException as exc:
        return _with_state(view, _error(ident, exc), args, kwargs)
    try:
        return {"id": ident, "ok": True, "value": view.encode((args, kwargs, result))}
    except codec.CannotCross as exc:
        view.rollback()
        answer = _error(ident, exc)
        answer["error"]["type"] = "ResultCannotCross"
        return _with_state(view, answer, args, kwargs)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    sock.set_inheritable(False)
    module: object = None
    failure: BaseException | None = None
    view = mirror.Mirror(1, find_class)
    try:
        module = importlib.import_module(sys.argv[2])
    except BaseException as exc:  # SystemExit too: the module did not import
        failure = exc
    while True:
        try:
            request = codec.message(wire.recv_frame(sock))
        except (wire.PeerGone, wire.ProtocolError, ValueError, OSError):
            return
        ident = request.get("id")
        reset = False
        if request.get("reset") is True:
            view.reset()
        try:
            if failure is not None:
                raise failure
            function = _target(module, str(request.get("target")))
            try:
                args, kwargs = view.decode(request.get("value"))
                view.settle()
            except (codec.CannotCross, ValueError, TypeError, RecursionError) as exc:
                view.reset()  # partly applied: both sides start again from whole objects
                reset = True
                raise codec.CannotCross(f"the arguments did not decode ({exc})") from None
            answer = _answer(view, ident, (function, args, kwargs))
        except codec.CannotCross as exc:
            view.rollback()
            answer = _error(ident, exc)
            answer["error"]["type"] = "ArgumentsCannotCross"
        except BaseException as exc:
            view.rollback()
            answer = _error(ident, exc)
        if reset:
            answer["reset"] = True
        try:
            wire.send_frame(sock, answer)
            view.commit()
        except wire.EncodeError as exc:  # larger than a frame may be: start again
            view.rollback()
            view.reset()
            answer = _error(ident, exc)
            answer["error"]["type"] = "ResultCannotCross"
            answer["reset"] = True
            wire.send_frame(sock, answer)


if __name__ == "__main__":
    main()
