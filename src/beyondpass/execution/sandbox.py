"""The one sandbox command builder: which isolation this machine allows, and how any
sandboxed process is started.

Every caller that runs something it does not trust — the executor's judge and candidate
fork server, the static analysers that read generated code, ObfusEval's project test runs —
describes its process as a :class:`SandboxSpec` (argv, binds, environment, working
directory, budget) and gets its command line from :func:`command`, at one of the levels
below. So there is one policy: one list of levels, one view of the filesystem, one
environment, one identity, and one way a process joins its budget.

Levels, strongest first:

``bwrap``
    bubblewrap: new user, network, PID, IPC, UTS and cgroup namespaces; the filesystem is
    read-only system directories plus the Python installation, and a private size-capped
    ``/tmp``; home, the project, the run store and the harness's working directory do not
    exist inside unless bound; the environment is cleared.
``unshare``
    util-linux ``unshare``: new user, network and PID namespaces (no network, leftovers
    killed), but the filesystem is the host's, read-write as the current user.
``process``
    no namespaces: a plain process with the scrubbed environment and rlimits.

``auto`` picks the strongest level that works here and says so on stderr when it is not
``bwrap``; the level is recorded in every run's metadata.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from beyondpass.errors import ConfigError

#: the levels, strongest first
LEVELS = ("bwrap", "unshare", "process")
#: what a user may ask for (``--isolation``, ``[execution] isolation``)
ISOLATION_LEVELS = ("auto", *LEVELS)
#: the private, size-capped scratch of a ``bwrap`` sandbox
SCRATCH = "/tmp"

#: The only variables a sandboxed process sees (plus ``HOME``/``TMPDIR`` = its scratch or
#: working directory, and what its spec adds).
SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8:backslashreplace",
}

#: What an interpreter needs from /etc (dynamic linker cache, time zone, name lookups).
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/alternatives",
)
#: What a JVM needs beyond /usr (Debian keeps the JDK's configuration under /etc)
JAVA_ETC = ("/etc/java-17-openjdk", "/etc/java-21-openjdk", "/etc/ssl/certs/java")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Inside-the-sandbox identity when the harness runs as root: an unprivileged uid with no
#: capabilities, so the sandbox cannot remount its read-only binds or use root's powers.
SANDBOX_UID = 65534

#: What each level promises, by name; ``ISOLATION`` says the same in words (a promise not
#: made is a line with NOT there). tests/execution/test_sandbox_conformance.py checks every
#: promise of every level with every launcher. A process budget (processes and memory of a
#: whole sandbox) and the verdict channel are promised at every level.
GUARANTEES = {
    "bwrap": frozenset({"filesystem", "network", "processes", "environment", "limits"}),
    "unshare": frozenset({"network", "processes", "environment", "limits"}),
    "process": frozenset({"environment", "limits"}),
}

ISOLATION = {
    "bwrap": [
        "verdict: tests run in a separate sandboxed judge process; the program's process "
        "holds no test, no expected value and no verdict channel",
        "network: none (new network namespace, no interfaces up)",
        "filesystem: read-only /usr, /bin, /lib*, a few /etc files and the Python "
        "installation; private size-capped /tmp; home, project, run store and harness cwd "
        "absent",
        "identity: new user namespace; as root, an unprivileged uid with every capability dropped",
        "processes: own PID namespace; every leftover process killed after each sample",
        "environment: cleared; only PATH, LANG, LC_ALL and fixed Python settings",
        "limits: wall clock, CPU time, address space, file size, output size, no core dumps",
    ],
    "unshare": [
        "verdict: tests run in a separate judge process; the program's process holds no "
        "test, no expected value and no verdict channel",
        "network: none (new network namespace)",
        "filesystem: NOT confined (host filesystem with the current user's rights); "
        "private scratch directory as working directory",
        "identity: root of a new user namespace, every capability dropped before the program runs",
        "processes: own PID namespace; every leftover process killed after each sample",
        "environment: cleared; only PATH, LANG, LC_ALL and fixed Python settings",
        "limits: wall clock, CPU time, address space, file size, output size, no core dumps",
    ],
    "process": [
        "verdict: tests run in a separate judge process; the program's process holds no "
        "test, no expected value and no verdict channel",
        "network: NOT confined",
        "filesystem: NOT confined; private scratch directory as working directory",
        "identity: NOT changed: the program can signal every process of the user "
        "(including the harness)",
        "processes: own process group per sample, killed after each sample; daemonised "
        "escapees are NOT tracked",
        "environment: cleared; only PATH, LANG, LC_ALL and fixed Python settings",
        "limits: wall clock, CPU time, address space, file size, output size, no core dumps",
    ],
}


class Joinable(Protocol):
    """A budget a sandbox joins before its first instruction (:mod:`.cgroups`)."""

    def wrap(self, command: list[str]) -> list[str]: ...


@dataclass(frozen=True)
class Bind:
    """A host path the sandbox sees: at ``inside`` where the level has a filesystem view of
    its own (``bwrap``), at its own path elsewhere; read-only unless ``writable``."""

    host: str
    inside: str = ""
    writable: bool = False

    def at(self, level: str) -> str:
        """The path a process at ``level`` uses for it."""
        return (self.inside or self.host) if level == "bwrap" else self.host


@dataclass(frozen=True)
class SandboxSpec:
    """One sandboxed process, whatever starts it.

    ``argv`` is run as the sandbox sees it (paths of binds through :meth:`Bind.at`).
    ``workdir``: a writable bind the process starts in; without one, it starts in its
    scratch. The scratch (``HOME`` and ``TMPDIR``) is a private ``/tmp`` of ``scratch_mb``
    at ``bwrap``; at the other levels, which have no filesystem view of their own, the host
    directory ``scratch``, else the workdir. ``env`` is added to :data:`SANDBOX_ENV`;
    nothing of the harness's environment is passed. ``budget``: joined before the sandbox's
    first instruction.
    """

    argv: tuple[str, ...]
    binds: tuple[Bind, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    workdir: Bind | None = None
    scratch: str | None = None
    scratch_mb: int = 256
    budget: Joinable | None = None


@dataclass(frozen=True)
class Command:
    """What to start: the command line, its environment and working directory (host)."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None

    def popen(self, **options: Any) -> subprocess.Popen[Any]:
        """Start it (``options``: the rest of ``subprocess.Popen``'s arguments)."""
        return subprocess.Popen(self.argv, env=self.env, cwd=self.cwd, **options)


def python_roots() -> list[str]:
    """Directories the sandboxed interpreter needs: its prefix and where its packages are."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        roots.add(sysconfig.get_paths()[key])
    roots.add(str(Path(sys.executable).resolve().parent))
    kept: list[str] = []
    for root in sorted(roots, key=len):
        if Path(root).is_dir() and not any(root.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(root)
    return kept


def command(level: str, spec: SandboxSpec) -> Command:
    """The command that starts ``spec`` at isolation ``level`` (one of :data:`LEVELS`)."""
    if level not in LEVELS:
        raise ValueError(f"unknown isolation level {level!r}")
    if level == "bwrap":
        home = SCRATCH
        where = spec.workdir.at(level) if spec.workdir is not None else home
        argv = [*_bwrap_view(spec), "--chdir", where, *spec.argv]
        cwd = None
    else:
        found = spec.scratch or (spec.workdir.host if spec.workdir is not None else None)
        if found is None:
            raise ValueError(f"a sandbox at level {level!r} needs a workdir or a scratch directory")
        home = found
        argv = [*_UNSHARE, *spec.argv] if level == "unshare" else list(spec.argv)
        cwd = spec.workdir.host if spec.workdir is not None else home
    env = {**SANDBOX_ENV, "HOME": home, "TMPDIR": home, **spec.env}
    if level == "bwrap":  # the variables are set inside; bubblewrap clears the rest
        setenv = [part for key, value in env.items() for part in ("--setenv", key, value)]
        at = argv.index("--chdir")
        argv[at:at] = setenv
    if spec.budget is not None:
        argv = spec.budget.wrap(argv)
    return Command(argv, env, cwd)


_UNSHARE = (
    "unshare",
    "--user",
    "--map-root-user",
    "--net",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
)


def _bwrap_view(spec: SandboxSpec) -> list[str]:
    """bubblewrap's namespaces and filesystem view for ``spec`` (no environment yet)."""
    cmd = [
        "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--hostname",
        "sandbox",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(spec.scratch_mb << 20),
        "--tmpfs",
        SCRATCH,
    ]
    if os.getuid() == 0:  # root: enter a user namespace as an unprivileged uid, no capabilities
        uid = str(SANDBOX_UID)
        cmd[1:1] = ["--unshare-user", "--uid", uid, "--gid", uid, "--cap-drop", "ALL"]
    for path in SYSTEM_DIRS:
        if Path(path).is_symlink():
            cmd += ["--symlink", os.readlink(path), path]
        elif Path(path).exists():
            cmd += ["--ro-bind", path, path]
    for path in ETC_FILES:  # not all of /etc: it holds secrets (shadow, keys) on many hosts
        if Path(path).exists():
            cmd += ["--ro-bind", path, path]
    for path in JAVA_ETC:  # compiled languages' runtime configuration (no secrets)
        if Path(path).is_dir():
            cmd += ["--ro-bind", path, path]
    for root in python_roots():
        if not root.startswith(("/usr/", "/bin/", "/lib")):
            cmd += ["--ro-bind", root, root]
    binds = [*spec.binds, *([spec.workdir] if spec.workdir is not None else [])]
    for bind in binds:
        cmd += ["--bind" if bind.writable else "--ro-bind", bind.host, bind.at("bwrap")]
    return cmd


@functools.cache
def level_works(level: str) -> bool:
    """Try the level for real: start a trivial Python in it and see it run."""
    if level == "process":
        return True
    tool = "bwrap" if level == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        return False
    with tempfile.TemporaryDirectory(prefix="beyondpass-probe-") as scratch:
        probe = SandboxSpec(
            (sys.executable, "-s", "-P", "-c", "import socket; print('ok')"),
            scratch=scratch,
            scratch_mb=16,
        )
        try:
            with command(level, probe).popen(
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                text=True,
                start_new_session=True,
            ) as proc:
                try:
                    out, _ = proc.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    return False
        except OSError:
            return False
    return proc.returncode == 0 and out.strip() == "ok"


def choose_level(requested: str = "auto") -> tuple[str, str]:
    """The level to use and, when weaker than asked or than the best, why (for stderr)."""
    if requested != "auto":
        if requested not in LEVELS:
            raise ConfigError(
                f"unknown isolation level {requested!r} — choose {', '.join(ISOLATION_LEVELS)}"
            )
        if not level_works(requested):
            raise ConfigError(
                f"isolation level {requested!r} does not work on this machine "
                "(install bubblewrap, or allow user namespaces) — or use --isolation auto"
            )
        return requested, ""
    for level in LEVELS:
        if level_works(level):
            note = (
                ""
                if level == "bwrap"
                else (
                    f"warning: bubblewrap sandbox unavailable; running generated code at isolation "
                    f"level '{level}' ({'; '.join(i for i in ISOLATION[level] if 'NOT' in i)})"
                )
            )
            return level, note
    raise AssertionError("the process level always works")


def stronger_or_equal(level: str, than: str) -> bool:
    """Whether ``level`` confines at least as much as ``than`` (both in :data:`LEVELS`)."""
    return LEVELS.index(level) <= LEVELS.index(than)
