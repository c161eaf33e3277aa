"""The sandbox conformance suite: every launcher, at every level this machine offers, meets
the same hostile programs.

A *launcher* is a way beyondpass runs code it does not trust, each through the one sandbox
builder (``execution/sandbox.py``) and launcher (``execution/launch.py``):

- ``executor``: the sandbox executor's workers (a judge and a candidate fork server), the
  program a Python sample;
- ``analyser``: a confined static analyser run (``analysers.run_process(confine=True)``),
  the program the analyser process;
- ``project``: ObfusEval's project mode (``ProjectSandbox``), the program a command in a
  copy of a small project made here, and for the verdict, an answer spliced into it.

Each check is run where the level promises it (``sandbox.GUARANTEES``; the process budget
and the verdict channel are promised everywhere): files, network, secrets, a fork bomb,
memory, an output flood, leftovers and a forged verdict. A program that *probes* sets
``HELD`` (the protection held, as the program sees it); what the harness can see from
outside is checked from outside too. Real sandboxes, real cgroups (bubblewrap and a
writable cgroup tree on CI: a missing level fails there).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from test_sandbox_budget import TreeSampler

from beyondpass.analysers import AnalyserFailed, run_process
from beyondpass.benchmarks.task import TestCase
from beyondpass.errors import ConfigError
from beyondpass.execution import (
    ExecutionLimits,
    ExecutionRequest,
    Sandboxes,
    Status,
    create_executor,
)
from beyondpass.execution.budget import CANDIDATE_TASKS, JUDGE_TASKS
from beyondpass.execution.sandbox import GUARANTEES, ISOLATION, LEVELS, level_works

CI = os.environ.get("CI", "").lower() == "true"
#: processes of one sandbox beside what its budget counts (its launcher, bwrap's outer
#: process) and a margin for a sandbox being replaced while sampled
MARGIN = 8


@dataclass(frozen=True)
class Ran:
    """How a probe ended, as the launcher reports it to the harness."""

    held: bool  # the program reported that the protection held
    ended: bool  # it ended without reporting (killed, crashed, out of time or memory)
    detail: str


class Launcher(ABC):
    """One launcher at one level: runs a Python program the way it runs untrusted code."""

    name: str
    has_verdict = True  # a verdict channel the program could try to forge

    def __init__(self, level: str) -> None:
        self.level = level

    @abstractmethod
    def run(self, program: str, timeout_s: float = 20.0) -> Ran:
        """Run ``program`` (which sets ``HELD``) -> how it ended."""

    @abstractmethod
    def flood(self, megabytes: int) -> tuple[int, str]:
        """Run a program writing ``megabytes`` to stdout -> (bytes of it the harness read
        into memory, what the launcher said about it)."""

    @property
    @abstractmethod
    def most_processes(self) -> int:
        """The most processes the launcher's sandboxes may hold at once, with margins."""

    def fresh(self) -> Launcher:
        """The same launcher, started anew (its sandboxes started from now on)."""
        return type(self)(self.level)

    def close(self) -> None:  # noqa: B027 - most launchers hold nothing to close
        pass


REPORT = "\nimport sys as _sys\n_sys.stdout.write('\\nHELD\\n' if HELD else '\\nBREACHED\\n')\n"


def _reported(stdout: str) -> bool | None:
    lines = stdout.strip().splitlines()
    return {"HELD": True, "BREACHED": False}.get(lines[-1] if lines else "")


class ExecutorLauncher(Launcher):
    name = "executor"
    WORKERS = 2

    def __init__(self, level: str) -> None:
        super().__init__(level)
        self.executor = create_executor("sandbox", workers=self.WORKERS, isolation=level)

    @staticmethod
    def request(program: str, timeout_s: float = 20.0, **limits: int) -> ExecutionRequest:
        code = textwrap.dedent(program) + "\ndef probe():\n    return HELD\n"
        test = TestCase("held", "assert probe() is True")
        return ExecutionRequest(
            code, (test,), limits=ExecutionLimits(timeout_s=timeout_s, **limits)
        )

    def run(self, program: str, timeout_s: float = 20.0) -> Ran:
        result = self.executor.run(self.request(program, timeout_s, memory_mb=512))
        detail = f"{result.status.value}: {result.message}"
        ended = result.status in (Status.TIMEOUT, Status.KILLED, Status.MEMORY)
        return Ran(result.status is Status.PASSED, ended, detail)

    def flood(self, megabytes: int) -> tuple[int, str]:
        program = f"import sys\nsys.stdout.write('x' * ({megabytes} << 20))\nHELD = True\n"
        result = self.executor.run(self.request(program))
        return len(result.stdout.encode()), result.status.value

    @property
    def most_processes(self) -> int:
        return self.WORKERS * (CANDIDATE_TASKS + JUDGE_TASKS + MARGIN)

    def close(self) -> None:
        self.executor.close()


class AnalyserLauncher(Launcher):
    name = "analyser"
    has_verdict = False  # what it reports is the analyser's own output, not a verdict

    def __init__(self, level: str, workdir: Path | None = None) -> None:
        super().__init__(level)
        self.workdir = workdir or Path(os.environ.get("TMPDIR", "/tmp"))

    def _run(self, program: str, timeout_s: float):
        work = self.workdir / f"analyser-{uuid.uuid4().hex[:8]}"
        work.mkdir()
        try:
            return run_process(
                "python",
                [sys.executable, "-c", program],
                work,
                timeout_s=timeout_s,
                memory_mb=512,
                confine=True,
                level=self.level,
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def run(self, program: str, timeout_s: float = 20.0) -> Ran:
        try:
            done = self._run(textwrap.dedent(program) + REPORT, timeout_s)
        except AnalyserFailed as failed:
            return Ran(False, True, str(failed))
        said = _reported(done.stdout)
        detail = f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
        return Ran(said is True, said is None, detail)

    def flood(self, megabytes: int) -> tuple[int, str]:
        try:
            done = self._run(f"import sys\nsys.stdout.write('x' * ({megabytes} << 20))\n", 60)
        except AnalyserFailed as failed:
            return 0, str(failed)
        return len(done.stdout.encode()), f"exit {done.returncode}"

    @property
    def most_processes(self) -> int:
        from beyondpass.analysers.process import CONFINED_TASKS

        return CONFINED_TASKS + MARGIN


#: a small project of our own: a package, its tests, and a description of it
TINY = {
    "tiny/__init__.py": (
        'def double(x):\n    """Return twice x."""\n    y = 2 * x\n    return y\n'
    ),
    "tests/test_tiny.py": (
        "from tiny import double\n\n\n"
        "def test_double():\n    assert double(2) == 4\n\n\n"
        "def test_double_negative():\n    assert double(-3) == -6\n"
    ),
}


def make_tiny(root: Path) -> Path:
    """The small project's checkout and description under ``root``; the description."""
    checkout = root / "tiny"
    for name, text in TINY.items():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text(text)
    description = root / "tiny.toml"
    description.write_text(
        f'name = "tiny"\n[source]\ncheckout = "{checkout}"\n[test]\ntimeout_s = 20\n'
        'command = "python -m pytest --disable-plugin-autoload"\n'
        '[select]\npaths = ["tiny/*.py"]\n'
    )
    return description


class ProjectLauncher(Launcher):
    name = "project"

    def __init__(self, level: str, root: Path | None = None) -> None:
        from beyondpass.methods.obfuseval.project.spec import load_project
        from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox, materialise

        super().__init__(level)
        self.root = root or Path(os.environ.get("TMPDIR", "/tmp")) / f"tiny-{uuid.uuid4().hex}"
        self.root.mkdir(parents=True, exist_ok=True)
        self.spec = load_project(make_tiny(self.root))
        # a 512 MB budget per sandbox: the memory check fills it quickly
        self.sandboxes = Sandboxes(level, memory_mb=512, announce=False)
        self.sandbox = ProjectSandbox(self.spec, self.sandboxes)
        (self.root / "scratch").mkdir(exist_ok=True)
        self.pristine = materialise(self.spec, self.root / "scratch")

    def fresh(self) -> Launcher:
        return type(self)(self.level, self.root / "fresh")

    def _copy(self) -> Path:
        from beyondpass.methods.obfuseval.project.workspace import fresh_copy

        return fresh_copy(self.pristine, self.root / f"copy-{uuid.uuid4().hex[:8]}")

    def run(self, program: str, timeout_s: float = 20.0) -> Ran:
        copy = self._copy()
        try:
            words = ["python", "-c", textwrap.dedent(program) + REPORT]
            done = self.sandbox.run(copy, words, timeout_s)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        said = _reported(done.stdout)
        detail = f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
        return Ran(said is True, said is None, detail)

    def flood(self, megabytes: int) -> tuple[int, str]:
        from beyondpass.methods.obfuseval.project import workspace

        copy = self._copy()
        program = f"import sys\nsys.stdout.write('x' * ({megabytes} << 20))\n"
        try:  # as ProjectSandbox.wait reads a command's output, kept bytes included
            started = self.sandbox.start(copy, ["python", "-c", program])
            done = started.communicate(60, workspace._KEEP_BYTES)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        return len(done.stdout), f"read {done.stdout_bytes} bytes, exit {done.returncode}"

    @property
    def most_processes(self) -> int:
        return 128 + MARGIN  # one command's sandbox at a time (workspace._TASKS)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


LAUNCHERS = {"executor": ExecutorLauncher, "analyser": AnalyserLauncher, "project": ProjectLauncher}
#: the levels each launcher runs at (project mode refuses the others: a test below)
LEVELS_OF = {"executor": LEVELS, "analyser": LEVELS, "project": ("bwrap",)}


def _available(level: str) -> None:
    if level_works(level):
        return
    if level == "bwrap" and CI:
        pytest.fail("CI must run the bwrap sandbox: install bubblewrap")
    pytest.skip(f"isolation level {level} does not work on this machine")


@pytest.fixture(scope="module")
def launchers():
    """Each launcher at each level, started on first use and kept for the module."""
    made: dict[str, Launcher] = {}

    def get(key: str) -> Launcher:
        if key not in made:
            name, level = key.split("@")
            _available(level)
            made[key] = LAUNCHERS[name](level)
        return made[key]

    yield get
    for launcher in made.values():
        launcher.close()


def cases(promise: str | None = None, verdict: bool = False) -> list[str]:
    """``launcher@level`` for every launcher and level that promises ``promise`` (None:
    promised everywhere) and, with ``verdict``, has a verdict channel."""
    return [
        f"{name}@{level}"
        for name, levels in LEVELS_OF.items()
        for level in levels
        if (promise is None or promise in GUARANTEES[level])
        and (not verdict or LAUNCHERS[name].has_verdict)
    ]


def test_every_promise_made_in_words_is_one_the_suite_checks():
    """``ISOLATION`` (what runs record and users read) and ``GUARANTEES`` (what this suite
    checks) say the same: a promise not made is a line saying NOT."""
    words = {
        "filesystem": "filesystem",
        "network": "network",
        "processes": "processes",
        "environment": "environment",
    }
    for level in LEVELS:
        for promise, prefix in words.items():
            line = next(x for x in ISOLATION[level] if x.startswith(prefix))
            assert ("NOT" not in line) == (promise in GUARANTEES[level]), (level, line)


# -- files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", cases("filesystem"))
def test_files_of_the_user_and_the_project_are_not_visible(launchers, key, tmp_path):
    token = uuid.uuid4().hex
    planted = [
        Path.home() / f".beyondpass-visible-{token}",
        Path.cwd() / f"visible-{token}",
        tmp_path / f"visible-{token}",
    ]
    for path in planted:
        path.write_text(token)
    probes = [*map(str, planted), "/etc/shadow", "/etc/ssh", "/etc/hostname"]
    probes.append(str(Path(__file__).resolve()))  # the project's own source
    program = f"""
        import os
        VISIBLE = [p for p in {probes!r} if os.path.exists(p)]
        print(VISIBLE)
        HELD = not VISIBLE
        """
    try:
        ran = launchers(key).run(program)
    finally:
        for path in planted:
            path.unlink()
    assert ran.held, ran.detail


@pytest.mark.parametrize("key", cases("filesystem"))
def test_nothing_outside_the_sandbox_is_written_or_removed(launchers, key, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    home_marker = Path.home() / f"beyondpass-escape-{uuid.uuid4().hex}"
    targets = [tmp_path / "created.txt", home_marker, Path("/usr/escape.txt")]
    targets.append(Path.cwd() / f"escape-{uuid.uuid4().hex}.txt")
    shell_target = tmp_path / "from-shell.txt"
    program = f"""
        import os, shutil, subprocess
        for path in {[str(t) for t in targets]!r}:
            try:
                open(path, "w").write("pwned")
            except OSError:
                pass
        try:
            os.remove({str(victim)!r})
        except OSError:
            pass
        shutil.rmtree({str(tmp_path)!r}, ignore_errors=True)
        subprocess.run(["sh", "-c", "echo pwned > {shell_target}"], capture_output=True)
        HELD = True  # decided from outside
        """
    ran = launchers(key).run(program)
    assert victim.read_text() == "keep me"
    assert [t for t in [*targets, shell_target] if t.exists()] == []
    assert ran.held, ran.detail


# -- network ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", cases("network"))
def test_no_network_even_to_the_local_host(launchers, key):
    # A connection the program made would sit in the listener's accept queue (the kernel
    # completes it and buffers what was sent without an accept), so one non-blocking
    # accept afterwards sees it: no thread waiting out a timeout.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        program = f"""
            import socket
            HELD = True
            try:
                s = socket.create_connection(("127.0.0.1", {port}), timeout=2)
                s.sendall(b"stolen")
                HELD = False
            except OSError:
                pass
            """
        ran = launchers(key).run(program)
        listener.setblocking(False)
        try:
            conn, _ = listener.accept()
            conn.close()
            accepted = True
        except BlockingIOError:
            accepted = False
    assert not accepted
    assert ran.held, ran.detail


# -- secrets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", cases("environment"))
def test_secrets_in_the_environment_are_not_passed(launchers, key, monkeypatch):
    secret = f"sk-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("BEYONDPASS_TEST_SECRET", secret)
    program = f"""
        import os
        HELD = {secret!r} not in repr(dict(os.environ))
        """
    # started while the secrets are in the harness's environment (a launcher started
    # before could not have seen them): its sandboxes must not see them either
    fresh = launchers(key).fresh()
    try:
        ran = fresh.run(program)
    finally:
        fresh.close()
    assert ran.held, ran.detail


@pytest.mark.parametrize("key", cases("processes"))
def test_other_processes_environments_are_not_visible(launchers, key):
    secret = f"sk-{uuid.uuid4().hex}"
    holder = subprocess.Popen(
        ["sleep", "60"], env={**os.environ, "OPENAI_API_KEY": secret}, stdin=subprocess.DEVNULL
    )
    program = f"""
        import os
        def leaked():
            for pid in os.listdir("/proc"):
                try:
                    if {secret!r}.encode() in open(f"/proc/{{pid}}/environ", "rb").read():
                        return True
                except OSError:
                    pass
            return False
        HELD = not leaked()
        """
    try:
        ran = launchers(key).run(program)
    finally:
        holder.kill()
        holder.wait()
    assert ran.held, ran.detail


# -- processes ---------------------------------------------------------------------------------


def _host_processes(marker: str) -> list[str]:
    """Live processes whose command line has ``marker``, once SIGKILL has had time to land."""
    for _ in range(100):
        out = subprocess.run(["ps", "-eo", "stat=,args="], capture_output=True, text=True).stdout
        alive = [line for line in out.splitlines() if marker in line and not line.startswith("Z")]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


@pytest.mark.parametrize("key", cases())
def test_a_fork_bomb_stays_within_the_budget_and_nothing_of_it_is_left(launchers, key):
    launcher = launchers(key).fresh()  # its own: it is closed before the last check
    marker = f"{uuid.uuid4().int % 10**6}.25"
    program = f"""
        import os, subprocess
        subprocess.Popen(["sleep", "{marker}"])
        while True:
            try:
                os.fork()
            except OSError:
                pass
        HELD = True
        """
    try:
        with TreeSampler() as sampler:
            ran = launcher.run(program, timeout_s=3)
    finally:
        # without a PID namespace, what left the sample's session is collected when its
        # sandbox ends (its budget): closing the launcher ends them all
        launcher.close()
    assert ran.ended and not ran.held, ran.detail
    assert sampler.most_processes <= launcher.most_processes
    assert _host_processes(f"sleep {marker}") == []


@pytest.mark.parametrize("key", cases("processes"))
def test_daemonised_grandchildren_do_not_outlive_the_run(launchers, key):
    marker = f"{uuid.uuid4().int % 10**6}.5"
    program = f"""
        import os, subprocess
        subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "{marker}"])
            os._exit(0)
        HELD = True
        """
    ran = launchers(key).run(program)
    assert ran.held, ran.detail
    assert _host_processes(f"sleep {marker}") == []


# -- memory and output -------------------------------------------------------------------------


@pytest.mark.parametrize("key", cases("limits"))
def test_a_memory_hog_is_stopped_at_its_limit(launchers, key):
    program = """
        hog = b"x" * (2 << 30)
        HELD = False
        """
    ran = launchers(key).run(program, timeout_s=60)
    assert ran.ended and not ran.held, ran.detail
    # refused (the executor's memory status, Python's MemoryError under an address-space
    # limit), or killed at the sandbox's memory budget (137: bwrap's 128 + SIGKILL)
    stopped = ("memory", "MemoryError", "SIGKILL", "exit -9", "exit 137")
    assert any(mark in ran.detail for mark in stopped), ran.detail


@pytest.mark.parametrize("key", cases())
def test_an_output_flood_is_cut_off_before_it_reaches_the_harness(launchers, key):
    launcher = launchers(key)
    kept, said = launcher.flood(200)
    # at most the launcher's cap reaches the harness's memory: a sample's 4000-byte tail
    # (the kernel stopped the writer at the file-size limit), an analyser's refusal past
    # 64 MB, or a project command's last 64 KB, all 200 MB having been read and counted
    if launcher.name == "executor":
        assert (kept <= 4000, said) == (True, "output_limit")
    if launcher.name == "analyser":
        assert said.startswith("python wrote more than 64 MB of output")
    if launcher.name == "project":
        assert kept == 64 << 10 and said == f"read {200 << 20} bytes, exit 0", said


# -- the verdict ---------------------------------------------------------------------------------

FAKES = {
    "sys.exit at load": "import sys\nsys.exit(0)\n",
    "os._exit at load": "import os\nos._exit(0)\n",
    "os._exit in the function": "import os\ndef inc(x):\n    os._exit(0)\n",
    "sys.exit in the function": "import sys\ndef inc(x):\n    sys.exit(0)\n",
    "SIGKILL to itself": (
        "import os, signal\ndef inc(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    ),
    "printed fake report": """
        import json, sys
        for name in ("a", "b"):
            print(json.dumps({"event": "test", "name": name, "status": "passed"}))
        print(json.dumps({"event": "done"}))
        print('{"tests": [], "status": "passed"}', file=sys.stderr)
        def inc(x):
            return 0
        """,
    "always-equal object": """
        class Anything:
            def __eq__(self, other): return True
            def __ne__(self, other): return False
            def __hash__(self): return 0
        def inc(x):
            return Anything()
        """,
    "int subclass lying about equality": """
        class Liar(int):
            def __eq__(self, other): return True
        def inc(x):
            return Liar(0)
        """,
    "trace function skipping assertions": """
        import sys
        def skip(frame, event, arg):
            if event == "line" and "assert" in str(frame.f_code.co_filename):
                frame.f_lineno += 1
            return skip
        sys.settrace(skip)
        def inc(x):
            return 0
        """,
    "patched builtins": """
        import builtins
        builtins.AssertionError = type("Nope", (Exception,), {})
        builtins.isinstance = lambda *a: True
        def inc(x):
            return 0
        """,
    "patched sys.modules": """
        import sys, types
        sys.modules["json"] = types.ModuleType("json")
        sys.modules["socket"] = types.ModuleType("socket")
        def inc(x):
            return 0
        """,
    "atexit hook": """
        import atexit, os
        atexit.register(lambda: os.write(1, b'{"event": "done"}'))
        def inc(x):
            return 0
        """,
    "garbage to every inherited descriptor": """
        import json, os
        forged = json.dumps(["ok", 42, 0, []]).encode()
        frame = len(forged).to_bytes(4, "big") + forged
        def inc(x):
            for fd in range(3, 256):
                try:
                    os.write(fd, frame * 4 + b"garbage")
                except OSError:
                    pass
            return 0
        """,
    "forged replies on its own channel": """
        import json, os, socket, struct
        def inc(x):
            for fd in range(3, 64):
                try:
                    s = socket.socket(fileno=os.dup(fd))
                except OSError:
                    continue
                body = json.dumps(["ok", x + 1, 0, []]).encode()
                try:
                    s.sendall(struct.pack(">I", len(body)) + body)
                except OSError:
                    pass
            return 0
        """,
}
GOOD = "def inc(x):\n    return x + 1\n"
INC_TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))


def _executor_forgeries(launcher: ExecutorLauncher) -> None:
    """Every forgery between correct samples, concurrently: none passes, the others do."""

    def request(program: str) -> ExecutionRequest:
        limits = ExecutionLimits(timeout_s=10)
        return ExecutionRequest(textwrap.dedent(program), INC_TESTS, limits=limits)

    names = sorted(FAKES)
    batch = [request(GOOD)]
    for name in names:
        batch += [request(FAKES[name]), request(GOOD)]
    results = launcher.executor.run_many(batch)
    goods, fakes = results[::2], results[1::2]
    assert [r.status for r in goods] == [Status.PASSED] * len(goods), [r.message for r in goods]
    for name, result in zip(names, fakes, strict=True):
        assert result.status in (Status.FAILED, Status.ERROR, Status.KILLED), (name, result)


#: answers that return a wrong value and try to make the verdict say "passed" anyway; the
#: forging code is what would have worked if the tests shared a process with the answer.
#: ``TESTS`` is replaced by the task's covering test ids (the forger knows them all).
_FORGE = """
import json, os
def _forge():
    rows = "".join(json.dumps({"nodeid": t, "when": w, "error": None}) + "\\n"
                   for t in TESTS for w in ("setup", "call", "teardown"))
    paths = {os.environ.get("BEYONDPASS_OUTCOMES", ""), "/tmp/project/.beyondpass/outcomes.jsonl"}
    for path in paths:
        try:
            with open(path, "a") as out:
                out.write(rows)
        except OSError:
            pass
    print(rows)
    for fd in range(3, 256):  # every descriptor this process holds
        try:
            os.write(fd, rows.encode())
        except OSError:
            pass
    for pid in os.listdir("/proc"):  # every other process's descriptors
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                with open(f"/proc/{pid}/fd/{fd}", "a") as out:
                    out.write(rows)
            except OSError:
                pass
"""
_PATCH = """
import builtins, sys
def _patch():
    try:
        import pytest, _pytest.runner, _pytest.reports
        _pytest.runner.call_and_report = lambda *a, **k: None
        _pytest.reports.TestReport.passed = property(lambda self: True)
        pytest.fail = lambda *a, **k: None
    except Exception:
        pass
    builtins.AssertionError = type("AssertionError", (Exception,), {})
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("_beyondpass"):
            for name in dir(module):
                if name.startswith("pytest_"):
                    setattr(module, name, lambda *a, **k: None)
"""
#: the splice keeps an answer's imports and functions, so code runs at import time through
#: a decorator of the answer's function
_AT_IMPORT = "\ndef _at_import(fn):\n    {call}\n    return fn\n\n\n@_at_import\n"
_WRONG = "def double(x):\n    {call}\n    return 'nope'\n"
_PASS = _WRONG.format(call="pass")
PROJECT_FORGERIES = {
    "forged outcomes at import": _FORGE + _AT_IMPORT.format(call="_forge()") + _PASS,
    "forged outcomes at call": _FORGE + _WRONG.format(call="_forge()"),
    "forge then exit at import": "import os\n"
    + _FORGE
    + _AT_IMPORT.format(call="_forge(); os._exit(0)")
    + _PASS,
    "forge then exit at call": "import os\n" + _FORGE + _WRONG.format(call="_forge(); os._exit(0)"),
    "os._exit(0) at import": "import os\n" + _AT_IMPORT.format(call="os._exit(0)") + _PASS,
    "sys.exit(0) at import": "import sys\n" + _AT_IMPORT.format(call="sys.exit(0)") + _PASS,
    "os._exit(0) at call": "import os\n" + _WRONG.format(call="os._exit(0)"),
    "sys.exit(0) at call": "import sys\n" + _WRONG.format(call="sys.exit(0)"),
    "pytest and builtins patched at import": _PATCH + _AT_IMPORT.format(call="_patch()") + _PASS,
    "pytest and builtins patched at call": _PATCH + _WRONG.format(call="_patch()"),
}


def _project_forgeries(launcher: ProjectLauncher) -> None:
    """The small project prepared (its own function spliced back passes), then every
    forging answer: none passes, and each that imports fails every covering test."""
    from beyondpass.methods.obfuseval.project.runner import evaluate, prepare
    from beyondpass.methods.obfuseval.project.tasks import reference_answer
    from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox

    spec = replace(launcher.spec, repeats=2)  # two runs: preparation needs no more here
    prepared = prepare(spec, launcher.root / "prepare", launcher.sandboxes)
    (task,) = prepared.tasks
    assert task.task_id == "tiny.double" and len(task.tests) == 2
    work = launcher.root / "work"
    reference = evaluate(prepared, task, reference_answer(task), work)
    assert (reference.compiled, reference.passed) == (True, True), reference.detail
    # a shorter limit per command than the project's 20 s: an answer that jams a run (forged
    # rows on every descriptor at import) is a failure either way, only found sooner
    spec = replace(spec, timeout_s=4.0)
    prepared = replace(prepared, spec=spec, sandbox=ProjectSandbox(spec, launcher.sandboxes))
    for name, code in PROJECT_FORGERIES.items():
        answer = f"```python\n{code.replace('TESTS', repr(list(task.tests)))}```"
        result = evaluate(prepared, task, answer, work)
        assert result.passed is False, name
        assert result.category is not None and result.category != "syntax", (name, result)
        if result.compiled:  # every covering test fails: no forged row counted as a pass
            assert sorted(result.failing_tests) == sorted(task.tests), name


@pytest.mark.parametrize("key", cases(verdict=True))
def test_a_forged_verdict_never_passes(launchers, key):
    launcher = launchers(key)
    if isinstance(launcher, ExecutorLauncher):
        _executor_forgeries(launcher)
    else:
        assert isinstance(launcher, ProjectLauncher)
        _project_forgeries(launcher)


# -- project mode refuses levels that do not confine the filesystem ----------------------------


@pytest.mark.parametrize("level", [lv for lv in LEVELS if "filesystem" not in GUARANTEES[lv]])
def test_project_mode_refuses_a_level_that_leaves_the_files_open(level, tmp_path):
    _available(level)
    with pytest.raises(ConfigError, match=f"project mode needs the bwrap sandbox .*{level!r}"):
        ProjectLauncher(level, tmp_path)


def test_the_launchers_record_the_level_they_ran_at(launchers):
    """What a run records is what ran: the executor's and the analysers' metadata name the
    level and the budget the checks above ran under."""
    _available("bwrap")
    executor = launchers("executor@bwrap")
    meta = executor.executor.metadata()
    assert meta["isolation"] == "bwrap"
    assert meta["process_budget"]["mechanism"] in ("cgroup", "enclosing", "nproc")
    from beyondpass.analysers import Analyser

    record = Analyser("cppcheck", confine=True).record()
    assert record["confinement"] == "bwrap"
    assert json.dumps(record)  # plain data, stored with results
