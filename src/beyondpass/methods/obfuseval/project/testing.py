"""Running a project's tests repeatedly in a copy and classifying what fails.

Each run is a fresh pytest process in the sandbox; a small pytest plugin written into the
copy records every selected test's outcome and, on failure, the exception's type. A test
passes only if it passed in every run (the seed's rule against flakiness); a test that
fails in any of the runs of the untouched project is flaky and left out up front.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from beyondpass.jsonl import json_values
from beyondpass.methods.obfuseval.project.workspace import (
    PLUGIN_DIR,
    Completed,
    ProjectSandbox,
)

#: the failure taxonomy, in the order ties are broken
CATEGORIES = ("syntax", "name", "import", "type", "attribute", "assertion", "timeout", "other")
_BY_EXCEPTION = {
    "SyntaxError": "syntax",
    "IndentationError": "syntax",
    "TabError": "syntax",
    "NameError": "name",
    "UnboundLocalError": "name",
    "ImportError": "import",
    "ModuleNotFoundError": "import",
    "TypeError": "type",
    "AttributeError": "attribute",
    "AssertionError": "assertion",
    "WorkerTimeout": "timeout",  # the function's process did not answer a call in time
}
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception))(?=:|$)")
PLUGIN = "_beyondpass_outcomes"
_PLUGIN_CODE = '''"""Reports each test's outcome and exception type (written by beyondpass).

Outcomes go to an inherited pipe to the harness, never to a file. The process is made
non-dumpable first, so no other process of the user can trace it or read its memory.
"""
import ctypes
import json
import os

try:
    ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
except (AttributeError, OSError):
    pass
_FD = os.environ.pop("BEYONDPASS_OUTCOMES_FD", "")
_OUT = None
if _FD.isdigit():
    os.set_inheritable(int(_FD), False)
    _OUT = os.fdopen(int(_FD), "w", encoding="utf-8")
_WORKER = os.environ.get("BEYONDPASS_WORKER_FD", "")
if _WORKER.isdigit():
    os.set_inheritable(int(_WORKER), False)


def _message(error):
    try:
        return (str(error.value).splitlines() or [""])[0][:300]
    except Exception:
        return ""


def pytest_runtest_makereport(item, call):
    if _OUT is None:
        return
    error = call.excinfo
    row = {"nodeid": item.nodeid, "when": call.when,
           "error": error.typename if error is not None else None,
           "message": _message(error) if error is not None else None,
           "seconds": call.duration}
    _OUT.write(json.dumps(row) + "\\n")
    _OUT.flush()
'''
#: the most outcome bytes read from one run (more are drained and dropped)
_OUTCOME_LIMIT = 16 << 20


def category_of(exception: str | None) -> str:
    """The taxonomy class of an exception type name (``other`` for anything unlisted)."""
    return _BY_EXCEPTION.get(exception or "", "other")


def exception_in(output: str) -> str | None:
    """The last exception type a traceback or pytest's error summary names, if any."""
    for line in reversed(output.strip().splitlines()):
        found = _EXCEPTION.findall(line)
        if found:
            return str(found[-1])
    return None


@dataclass
class TestRuns:
    """Outcomes of the selected tests over all runs: test -> the category of each failure."""

    tests: tuple[str, ...]
    runs: int
    failures: dict[str, list[str]] = field(default_factory=dict)
    timed_out: int = 0  # runs killed at the time limit
    messages: dict[str, str] = field(default_factory=dict)  # test -> its first failure

    @property
    def passing(self) -> list[str]:
        return [t for t in self.tests if not self.failures.get(t)]

    @property
    def failing(self) -> list[str]:
        return [t for t in self.tests if self.failures.get(t)]

    def category(self) -> str | None:
        """The most common failure class across failing tests (None: all passed)."""
        counts = Counter(self.failures[t][0] for t in self.failing)
        if not counts:
            return None
        return max(CATEGORIES, key=lambda c: (counts[c], -CATEGORIES.index(c)))


def _install_plugin(copy: Path) -> None:
    folder = copy / PLUGIN_DIR
    folder.mkdir(exist_ok=True)
    (folder / f"{PLUGIN}.py").write_text(_PLUGIN_CODE, encoding="utf-8")


@dataclass(frozen=True)
class Outcome:
    """One test's result in one run: None (passed) or its first failure, and the seconds
    its setup, call and teardown took."""

    error: str | None
    message: str = ""
    seconds: float = 0.0


def _rows(data: bytes) -> list[dict]:
    # the tests under study run in the process that writes these lines and may write into
    # the pipe too (or be cut off mid-line): lines that are not the plugin's are passed over
    return [
        row
        for _, row in json_values("test outcomes", data, skip_bad=True)
        if isinstance(row, dict) and isinstance(row.get("nodeid"), str)
    ]


def _outcomes(data: bytes) -> dict[str, Outcome]:
    """nodeid -> its outcome, from the plugin's JSON lines."""
    result: dict[str, Outcome] = {}
    seconds: dict[str, float] = {}
    for row in _rows(data):
        node, error = row["nodeid"], row.get("error")
        took = row.get("seconds")
        if isinstance(took, (int, float)) and took >= 0:
            seconds[node] = seconds.get(node, 0.0) + float(took)
        if row.get("when") == "call" or error is not None:
            result.setdefault(node, Outcome(None))
            if error is not None and result[node].error is None:
                result[node] = Outcome(str(error), str(row.get("message") or ""))
    return {node: replace(o, seconds=seconds.get(node, 0.0)) for node, o in result.items()}


def pytest_words(
    sandbox: ProjectSandbox, copy: Path, tests: Iterable[str], extra: Iterable[str] = ()
) -> list[str]:
    """The test command for ``tests`` with the outcome plugin."""
    _install_plugin(copy)
    return [*sandbox.spec.test_command, "-p", "no:cacheprovider", "-p", PLUGIN, *extra, *tests]


@dataclass(frozen=True)
class Worker:
    """Where the function under test runs: a copy holding it and its module's name."""

    copy: Path
    module: str


def _drain(fd: int, into: bytearray) -> None:
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(1 << 16):
            if len(into) < _OUTCOME_LIMIT:
                into += chunk[: _OUTCOME_LIMIT - len(into)]


def run_once(
    sandbox: ProjectSandbox, copy: Path, words: list[str], worker: Worker | None
) -> tuple[Completed, dict[str, Outcome], set[str]]:
    """One pytest run on the test copy; with ``worker``, its proxy is served by a fresh
    worker process in a sandbox of its own. Outcomes come back through a pipe that only
    the test process holds."""
    ours, theirs = socket.socketpair()
    read_end, write_end = os.pipe()
    received = bytearray()
    served = None
    env = {
        "BEYONDPASS_OUTCOMES_FD": str(write_end),
        "BEYONDPASS_CALL_TIMEOUT": f"{sandbox.spec.timeout_s:g}",
        "BEYONDPASS_PROJECT_ROOT": sandbox.root_inside(copy),
    }
    fds = [write_end]
    try:
        if worker is not None:
            inside = sandbox.root_inside(worker.copy)
            script = f"{inside}/{PLUGIN_DIR}/_beyondpass_worker.py"
            served = sandbox.start(
                worker.copy,
                ["python", script, str(theirs.fileno()), worker.module],
                pass_fds=(theirs.fileno(),),
                capture=False,
            )
            env["BEYONDPASS_WORKER_FD"] = str(ours.fileno())
            fds.append(ours.fileno())
        theirs.close()
        proc = sandbox.start(copy, words, env, pass_fds=tuple(fds))
        ours.close()
        os.close(write_end)
        write_end = -1
        reader = threading.Thread(target=_drain, args=(read_end, received), daemon=True)
        read_end = -1  # the reader owns it now
        reader.start()
        done = sandbox.wait(proc, sandbox.spec.timeout_s)
        reader.join(30)
    finally:
        if served is not None:
            served.close()
        theirs.close()
        ours.close()
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    started = {row["nodeid"] for row in _rows(bytes(received)) if row.get("when") == "setup"}
    return done, _outcomes(bytes(received)), started


def run_tests(
    sandbox: ProjectSandbox,
    copy: Path,
    tests: Iterable[str],
    repeats: int,
    worker: Worker | None,
) -> TestRuns:
    """Run ``tests`` ``repeats`` times in fresh processes; collect failures per test (runs
    stop early once every test has failed)."""
    selected = tuple(sorted(set(tests)))
    runs = TestRuns(selected, repeats)
    if not selected:
        return runs
    words = pytest_words(sandbox, copy, selected)
    for _ in range(repeats):
        done, seen, _ = run_once(sandbox, copy, words, worker)
        if done.timed_out:
            runs.timed_out += 1
        for test in selected:
            outcome = seen.get(test)
            if outcome is not None and outcome.error is None:
                continue
            if outcome is not None:
                what = category_of(outcome.error)
                runs.messages.setdefault(test, f"{outcome.error}: {outcome.message}"[:300])
            elif done.timed_out:
                what = "timeout"
            else:  # never reported: collection failed (an import error of the module, ...)
                what = category_of(exception_in(done.stdout + "\n" + done.stderr))
            runs.failures.setdefault(test, []).append(what)
        if len(runs.failing) == len(selected):  # every test has failed: more runs decide nothing
            break
    return runs


def _handshake(sock: socket.socket, deadline_s: float, nonce: bytes, done: list[bool]) -> None:
    """``imported``, then the nonce sent and echoed: the import returned."""
    try:
        sock.settimeout(deadline_s)
        said = b""
        while not said.endswith(b"\n") and len(said) < 16:
            chunk = sock.recv(16 - len(said))
            if not chunk:
                return
            said += chunk
        if said != b"imported\n":
            return
        sock.sendall(nonce)
        echoed = b""
        while len(echoed) < len(nonce):
            chunk = sock.recv(len(nonce) - len(echoed))
            if not chunk:
                return
            echoed += chunk
        done.append(echoed == nonce)
    except OSError:
        return


def import_check(sandbox: ProjectSandbox, copy: Path, module: str) -> tuple[bool, Completed]:
    """Import ``module`` in the worker copy (its sandbox); True only when the check script
    proved, over a socket of its own, that ``import_module`` returned (``importcheck.py``)
    and the process then ended with status 0. Output text decides nothing."""
    ours, theirs = socket.socketpair()
    done: list[bool] = []
    script = f"{sandbox.root_inside(copy)}/{PLUGIN_DIR}/_beyondpass_importcheck.py"
    try:
        proc = sandbox.start(
            copy, ["python", script, str(theirs.fileno()), module], pass_fds=(theirs.fileno(),)
        )
        theirs.close()
        nonce = secrets.token_hex(16).encode()
        talk = threading.Thread(
            target=_handshake, args=(ours, sandbox.spec.timeout_s, nonce, done), daemon=True
        )
        talk.start()
        finished = sandbox.wait(proc, sandbox.spec.timeout_s)
        talk.join(5)
    finally:
        theirs.close()
        ours.close()
    return bool(done and done[0]) and finished.returncode == 0, finished
