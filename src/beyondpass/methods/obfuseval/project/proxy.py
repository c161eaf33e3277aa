"""The stand-in for the model's function inside the test process (trusted side).

In the copy the project's tests run on, the target function's body is replaced by a call
of :func:`call`: the arguments go to the worker process that holds the model's function,
as data (``_beyondpass_codec`` values in ``_beyondpass_wire`` frames) or, for what is not
data — callbacks, iterators, sentinels, the tests' own objects — by reference
(``_beyondpass_refs``). While the worker runs the function, it may call back into what it
was handed; the answer comes back as data (decoded with the project's own classes only)
or as a reference to a function or generator the answer made. The changes the call made
to anything it was given (lists, dicts, sets, ``self``, objects reachable from them) are
written into the caller's own objects, at every turn of the conversation
(``_beyondpass_session``), and the result is returned — or the worker's exception is
raised here under its own type name (the test's own exception object, when a callback of
the test raised it). A worker that hangs, dies or breaks the protocol makes this call
(and every later one) fail; it can never make a test pass.

Copied into the test copy as ``_beyondpass_proxy.py``; imports nothing from beyondpass.
"""

import fnmatch
import os
import socket
import sys
import threading

import _beyondpass_codec as codec
import _beyondpass_mirror as mirror
import _beyondpass_refs as refs
import _beyondpass_session as session

_ROOT = os.environ.get("BEYONDPASS_PROJECT_ROOT", "")
_FD = os.environ.get("BEYONDPASS_WORKER_FD", "")
_TIMEOUT = float(os.environ.get("BEYONDPASS_CALL_TIMEOUT", "60"))
#: test modules are not in the worker's copy (boundary.TEST_PATTERNS): their classes go
#: by reference
_TEST_FILES = ("test_*.py", "*_test.py", "conftest.py")
_lock = threading.Lock()
_state: dict = {"sock": None, "session": None}

WorkerTimeout = session.WorkerTimeout
WorkerGone = session.WorkerGone
ArgumentsCannotCross = refs.ArgumentsCannotCross
ResultCannotCross = session.ResultCannotCross


def _project_file(module: str) -> "str | None":
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None) if mod is not None else None
    if not _ROOT or not isinstance(path, str):
        return None
    path = os.path.abspath(path)
    if not path.startswith(_ROOT.rstrip("/") + "/") or "/.beyondpass/" in path:
        return None
    return path


def find_class(module: str, qualname: str) -> "type | None":
    """A class of an already imported module of the project; looked up in ``__dict__``s
    only, so no code of the project runs and nothing is imported."""
    if _project_file(module) is None:
        return None
    found: object = sys.modules[module]
    for part in qualname.split("."):
        table = vars(found) if isinstance(found, type) or found is sys.modules[module] else None
        found = table.get(part) if table is not None else None
        if not isinstance(found, type):
            return None
    return found


def sendable(cls: type) -> bool:
    """Whether the worker admits ``cls``: a builtin or standard container, or a class of
    the project outside its test modules (the worker's copy has no tests)."""
    module, qualname = getattr(cls, "__module__", ""), getattr(cls, "__qualname__", "")
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return False
    try:
        if codec.Decoder(lambda m, q: None).cls([module, qualname]) is cls:
            return True  # builtins and the codec's standard containers
    except codec.CannotCross:
        pass
    path = _project_file(module)
    if path is None or any(fnmatch.fnmatch(os.path.basename(path), p) for p in _TEST_FILES):
        return False
    return find_class(module, qualname) is cls


def _session() -> "session.Session":
    if _state["session"] is None:
        if not _FD.isdigit():
            raise WorkerGone("no worker channel")
        sock = socket.socket(fileno=int(_FD))
        sock.set_inheritable(False)
        view = mirror.Mirror(0, find_class, sendable)
        _state["sock"] = sock
        _state["session"] = session.Session(sock, view, timeout=_TIMEOUT)
    return _state["session"]


def call(module: str, target: str, args: tuple, kwargs: dict) -> object:
    """Run ``module.target(*args, **kwargs)`` in the worker; see the module docstring."""
    with _lock:
        talk = _session()
    try:
        return talk.request({"op": "target", "target": target}, (args, kwargs))
    except (ArgumentsCannotCross, ResultCannotCross) as exc:  # this side's own failures
        raise type(exc)(f"{target}: {exc}") from None
