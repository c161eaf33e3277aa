"""Serves calls of the model's function in a sandbox of its own (hostile side).

Started per test run, in the copy that holds the model's function (and none of the
project's tests): imports the module — every module-level effect of the model's code
happens here — then answers each call the test process's proxy sends: decode the
arguments, call the function, send back what the call changed and the result (or the
exception). What the function was handed by reference (callbacks, iterators, the tests'
objects) it can only call or read, each use a request back to the test process
(``_beyondpass_session``); both directions send only what changed since an object last
crossed (``_beyondpass_mirror``: this process keeps the objects it was given between
calls). Nothing this process sends is more than data, or a reference to a function or an
iterator of its own, to the test process.

Copied into the worker copy as ``_beyondpass_worker.py``; imports nothing from beyondpass.
Usage: ``python _beyondpass_worker.py FD MODULE``.
"""

import importlib
import io
import socket
import sys

import _beyondpass_mirror as mirror
import _beyondpass_session as session


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


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    sock.set_inheritable(False)
    module: object = None
    failure: BaseException | None = None
    try:
        module = importlib.import_module(sys.argv[2])
    except BaseException as exc:  # SystemExit too: the module did not import
        failure = exc

    def serve_target(target: object, args: tuple, kwargs: dict) -> object:
        if failure is not None:
            raise failure
        return _target(module, str(target))(*args, **kwargs)

    view = mirror.Mirror(1, find_class)
    printed = _Printed()
    session.Session(sock, view, serve_target=serve_target, printed=printed).serve_forever()


class _Printed:
    """What the answer prints while it serves calls, sent with the worker's next message
    and printed by the test process (``capsys`` sees it, as in one process). Made after
    the module imported: what it printed then is no test's."""

    def __init__(self) -> None:
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()

    def __call__(self) -> tuple:
        found = []
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            found.append(stream.getvalue() if isinstance(stream, io.StringIO) else "")
            setattr(sys, name, io.StringIO())
        return tuple(found)


if __name__ == "__main__":
    main()
