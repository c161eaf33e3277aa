"""Which isolation this machine allows, and the command that starts a sandboxed worker.

Levels, strongest first:

``bwrap``
    bubblewrap: new user, network, PID, IPC, UTS and cgroup namespaces; the filesystem is
    read-only system directories plus the Python installation, and a private size-capped
    ``/tmp``; home, the project, the run store and the harness's working directory do not
    exist inside; the environment is cleared.
``unshare``
    util-linux ``unshare``: new user, network and PID namespaces (no network, leftovers
    killed), but the filesystem is the host's, read-write as the current user.
``process``
    no namespaces: a plain worker process with the scrubbed environment and rlimits.

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
from pathlib import Path

from beyondpass.errors import ConfigError

LEVELS = ("bwrap", "unshare", "process")
HERE = Path(__file__).resolve().parent / "sandboxed"  # what runs inside a sandbox
INSIDE_DIR = "/opt/beyondpass"  # where the zygote and runner appear inside the sandbox
SCRATCH = "/tmp"

#: The only variables a sandboxed worker sees.
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


def _python_roots() -> list[str]:
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


#: The files a sandboxed worker runs: the whole sandboxed half, and nothing else of beyondpass
SANDBOX_FILES = tuple(
    sorted(p.name for p in HERE.iterdir() if p.suffix in (".py", ".java") and p.stem != "__init__")
)
#: What a JVM needs beyond /usr (Debian keeps the JDK's configuration under /etc)
JAVA_ETC = ("/etc/java-17-openjdk", "/etc/java-21-openjdk", "/etc/ssl/certs/java")
ROLES = {"judge": "judge.py", "candidate": "fork_server.py"}
#: Inside-the-sandbox identity when the harness runs as root: an unprivileged uid with no
#: capabilities, so the sandbox cannot remount its read-only binds or use root's powers.
SANDBOX_UID = 65534


def worker_command(level: str, role: str, fds: tuple[int, ...], scratch_mb: int) -> list[str]:
    """The command line of one sandboxed process (``judge`` or ``candidate``) at ``level``.

    ``fds`` are the inherited sockets the process serves (the candidate fork server: the one
    to the judge; the judge: that one, then the one to the harness), passed by number. Each
    sandbox gets its own namespaces, so the judge and the candidate cannot see each other.
    """
    script = ROLES[role]
    python = [sys.executable, "-s", "-P"]
    if level == "process":
        return [*python, str(HERE / script), *map(str, fds)]
    if level == "unshare":
        return [
            "unshare",
            "--user",
            "--map-root-user",
            "--net",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc",
            *python,
            str(HERE / script),
            *map(str, fds),
        ]
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
        str(scratch_mb << 20),
        "--tmpfs",
        SCRATCH,
    ]
    if os.getuid() == 0:  # root: enter a user namespace as an unprivileged uid, no capabilities
        uid = str(SANDBOX_UID)
        cmd[1:1] = ["--unshare-user", "--uid", uid, "--gid", uid, "--cap-drop", "ALL"]
    for path in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
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
    for root in _python_roots():
        if not root.startswith(("/usr/", "/bin/", "/lib")):
            cmd += ["--ro-bind", root, root]
    for name in SANDBOX_FILES:
        cmd += ["--ro-bind", str(HERE / name), f"{INSIDE_DIR}/{name}"]
    for key, value in SANDBOX_ENV.items():
        cmd += ["--setenv", key, value]
    cmd += ["--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", SCRATCH, "--chdir", SCRATCH]
    return [*cmd, *python, f"{INSIDE_DIR}/{script}", *map(str, fds)]


@functools.cache
def level_works(level: str) -> bool:
    """Try the level for real: start its command with a trivial Python and see it run."""
    if level == "process":
        return True
    tool = "bwrap" if level == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        return False
    cmd = worker_command(level, "candidate", (), 16)
    probe = [*cmd[:-1], "-c", "import socket; print('ok')"]
    try:
        out = subprocess.run(
            probe, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == "ok"


def choose_level(requested: str = "auto") -> tuple[str, str]:
    """The level to use and, when weaker than asked or than the best, why (for stderr)."""
    if requested != "auto":
        if requested not in LEVELS:
            raise ConfigError(
                f"unknown isolation level {requested!r} — choose auto, {', '.join(LEVELS)}"
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
