"""The two copies of a task's project: one for the tests, one for the model's function.

The **test copy** is the untouched project with the target function's body replaced by a
call to the proxy (``proxy.py``); the project's tests run on it, and the pytest process
that reports outcomes never holds a line of the model's code. The **worker copy** has the
model's function spliced in (or the original, when checking that a task's calls can cross
at all) and none of the project's test files; a worker process (``worker.py``) serves
calls from it in a sandbox of its own. Both get the channel's frames (the sandbox
channel's ``wire``, one framing for every channel to hostile code), the data codec
(``codec.py``, ``classes.py``), the mirror (``mirror.py``, ``state.py``, ``kinds.py``,
``liveness.py``, ``changes.py``, ``deltas.py``), the references (``refs.py``,
``callables.py``) and the conversation (``session.py``), under names no project module has.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import Path

from beyondpass.execution import wire
from beyondpass.methods.obfuseval.project.splice import splice
from beyondpass.methods.obfuseval.project.tasks import ProjectTask
from beyondpass.methods.obfuseval.project.workspace import PLUGIN_DIR, fresh_copy

HERE = Path(__file__).resolve().parent
WIRE, CODEC, MIRROR = "_beyondpass_wire", "_beyondpass_codec", "_beyondpass_mirror"
REFS, SESSION, STATE = "_beyondpass_refs", "_beyondpass_session", "_beyondpass_state"
KINDS, LIVENESS, CHANGES = "_beyondpass_kinds", "_beyondpass_liveness", "_beyondpass_changes"
DELTAS, CLASSES = "_beyondpass_deltas", "_beyondpass_classes"
CALLABLES = "_beyondpass_callables"
PROXY, WORKER = "_beyondpass_proxy", "_beyondpass_worker"
IMPORT_CHECK = "_beyondpass_importcheck"
_SOURCES = {
    WIRE: Path(wire.__file__),  # the sandbox channel's frames, the one framing
    CODEC: HERE / "codec.py",
    CLASSES: HERE / "classes.py",
    MIRROR: HERE / "mirror.py",
    REFS: HERE / "refs.py",
    CALLABLES: HERE / "callables.py",
    STATE: HERE / "state.py",
    KINDS: HERE / "kinds.py",
    LIVENESS: HERE / "liveness.py",
    CHANGES: HERE / "changes.py",
    DELTAS: HERE / "deltas.py",
    SESSION: HERE / "session.py",
    PROXY: HERE / "proxy.py",
    WORKER: HERE / "worker.py",
    IMPORT_CHECK: HERE / "importcheck.py",
}
#: what both copies get: the channel, the codec, the mirror, the references, the session
_BOTH = (
    WIRE,
    CODEC,
    CLASSES,
    MIRROR,
    STATE,
    KINDS,
    LIVENESS,
    CHANGES,
    DELTAS,
    REFS,
    CALLABLES,
    SESSION,
)
#: pytest's default test file names, and its fixtures' file
TEST_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")


def proxy_stub(task: ProjectTask, module: str) -> str:
    """The definition that stands for the function in the test copy (the original's
    decorators are kept by the splice)."""
    target = ".".join(task.scope)
    return (
        f"def {task.name}(*args, **kwargs):\n"
        f"    import {PROXY}\n\n"
        f"    return {PROXY}.call({module!r}, {target!r}, args, kwargs)\n"
    )


def _support(copy: Path, names: Iterable[str]) -> None:
    folder = copy / PLUGIN_DIR
    folder.mkdir(exist_ok=True)
    for name in names:
        text = _SOURCES[name].read_text(encoding="utf-8")
        (folder / f"{name}.py").write_text(text, encoding="utf-8")


def testing_copy(pristine: Path, target: Path, task: ProjectTask, module: str) -> Path:
    """A fresh copy of the project whose target function forwards to the worker."""
    copy = fresh_copy(pristine, target)
    path = copy / task.path
    path.write_text(splice(path.read_text("utf-8"), task.scope, proxy_stub(task, module)), "utf-8")
    _support(copy, (*_BOTH, PROXY))
    return copy


def worker_copy(
    pristine: Path, target: Path, task: ProjectTask, code: str | None, test_files: Iterable[str]
) -> Path:
    """A fresh copy with ``code`` spliced in (None: the original function) and the test
    files removed: the model's code runs next to the project's source, not its tests.
    Raises :class:`~beyondpass.methods.obfuseval.project.splice.SpliceError`."""
    copy = fresh_copy(pristine, target)
    named = set(test_files)
    for path in sorted(copy.rglob("*.py")):
        rel = path.relative_to(copy).as_posix()
        if rel in named or any(fnmatch.fnmatch(path.name, p) for p in TEST_PATTERNS):
            path.unlink()
    if code is not None:
        source = copy / task.path
        source.write_text(splice(source.read_text("utf-8"), task.scope, code), "utf-8")
    _support(copy, (*_BOTH, WORKER, IMPORT_CHECK))
    return copy
