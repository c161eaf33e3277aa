"""One analyser process: found or named as missing, bounded, versioned, recorded.

Every method runs its static analysers (ruff, bandit, cppcheck, clang-tidy, checkstyle,
the compilers' syntax check) through :class:`Analyser` or :func:`run_process`, so each run
has the same guarantees: no stdin, output captured, a wall-clock limit, an address-space
limit (``ulimit -v`` in a wrapper shell, which is safe from threads, unlike a
``preexec_fn``), optional confinement (the sandbox every caller uses, at the strongest
level this machine allows: :mod:`beyondpass.execution.sandbox`), and one line of error for a
missing tool (naming what to install), a timeout or a crash. ``Analyser.record()`` is what
a run stores about it: the tool's version and the exact arguments and limits used.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from beyondpass.errors import BeyondpassError, ConfigError
from beyondpass.execution.launch import Sandboxes
from beyondpass.execution.sandbox import Bind, SandboxSpec

#: how to install each analyser (the end of the one-line error when it is missing)
INSTALL = {
    "pylint": "pip install pylint",
    "ruff": "pip install ruff",
    "bandit": "pip install bandit",
    "cppcheck": "apt-get install cppcheck",
    "clang-tidy": "apt-get install clang-tidy",
    "checkstyle": "apt-get install checkstyle",
    "gcc": "apt-get install gcc",
    "g++": "apt-get install g++",
}
#: analysers that are Python packages, run as ``python -m <tool>`` of this interpreter
PYTHON_MODULES = frozenset({"pylint", "bandit"})
DEFAULT_MEMORY_MB = 4096
#: the environment of a run with ``clean_env``: nothing of the caller's leaks in
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


class AnalyserMissing(ConfigError):
    """An analyser a method needs is not installed."""


class AnalyserFailed(BeyondpassError):
    """An analyser ran but gave no usable answer: timed out, crashed or wrote garbage."""


def require(tool: str, purpose: str, install: str | None = None) -> list[str]:
    """The command that runs ``tool``; a one-line :class:`AnalyserMissing` naming what to
    install when there is none (a missing analyser must never read as zero findings)."""
    hint = install or INSTALL.get(tool, f"install {tool}")
    if tool in PYTHON_MODULES:
        if importlib.util.find_spec(tool) is None:
            raise AnalyserMissing(f"{purpose}: {tool} is not installed — {hint}")
        return [sys.executable, "-m", tool]
    if tool == "ruff":
        try:
            from ruff.__main__ import find_ruff_bin

            return [str(find_ruff_bin())]
        except (ImportError, FileNotFoundError):
            pass
    path = shutil.which(tool)
    if path is None:
        raise AnalyserMissing(f"{purpose}: {tool} is not installed — {hint}")
    return [path]


def version(tool: str) -> str:
    """The installed version of ``tool``, or ``"not installed"``."""
    if tool in PYTHON_MODULES:
        try:
            return metadata.version(tool)
        except metadata.PackageNotFoundError:
            return "not installed"
    try:
        command = require(tool, "version")
    except AnalyserMissing:
        return "not installed"
    return _version_of(tuple(command))


@functools.cache
def _version_of(command: tuple[str, ...]) -> str:
    try:
        proc = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = [ln.strip() for ln in (proc.stdout or proc.stderr).splitlines() if ln.strip()]
    numbered = [ln for ln in lines if re.search(r"\d+\.\d+", ln)]
    first = (numbered or lines or ["unknown"])[0]
    return first.removeprefix("ruff ")


#: where a confined analyser's working directory appears at the ``bwrap`` level
CONFINED_WORKDIR = "/work"
#: tasks (processes and threads) of one confined analyser run and what it starts
CONFINED_TASKS = 64
#: output of a confined run read into memory at most, per stream (more is a failure)
CONFINED_OUTPUT_BYTES = 64 << 20


@functools.cache
def analyser_sandboxes(level: str = "auto") -> Sandboxes:
    """Where confined analysers run: the one sandbox at ``level`` (``auto``: the strongest
    that works here), each run inside a process budget where one binds. Analysers are
    trusted tools reading untrusted files, so where no budget binds they still run (the
    run's record says so), bounded per process by their memory limit and time."""
    try:
        return Sandboxes(level, "auto", announce=False)
    except ConfigError:
        return Sandboxes(level, "none", announce=False)


def confinement() -> str:
    """The isolation level a ``confine=True`` run gets here: the strongest that works
    (``bwrap``: a read-only system, the working directory as ``/work``, no network, an
    unprivileged uid and a cleared environment)."""
    return analyser_sandboxes().level


@dataclass(frozen=True)
class Completed:
    """What one analyser process returned."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_process(
    tool: str,
    argv: Sequence[str],
    cwd: Path,
    *,
    timeout_s: float,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    confine: bool = False,
    env: Mapping[str, str] | None = None,
    level: str = "auto",
) -> Completed:
    """Run ``argv`` in ``cwd``: no stdin, output captured, within ``timeout_s`` and
    ``memory_mb``; confined to ``cwd`` when ``confine`` (read-only system, no network,
    cleared environment, a process budget, bounded output: the one sandbox at ``level``,
    by default the strongest that works here). A timeout or a death by signal is an
    :class:`AnalyserFailed`."""
    cmd = list(argv)
    if memory_mb:
        cmd = ["/bin/sh", "-c", 'ulimit -v "$0" && exec "$@"', str(memory_mb * 1024), *cmd]
    if confine:
        return _run_confined(tool, cmd, cwd, timeout_s, memory_mb, env, level)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
            env=dict(env) if env is not None else None,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AnalyserFailed(f"{tool} did not finish within {timeout_s:g} s") from None
    except OSError as exc:
        raise AnalyserFailed(f"{tool} could not start: {exc}") from None
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        raise AnalyserFailed(f"{tool} was killed by {name}: {proc.stderr.strip()[:200]}")
    return Completed(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def _run_confined(
    tool: str,
    cmd: list[str],
    cwd: Path,
    timeout_s: float,
    memory_mb: int | None,
    env: Mapping[str, str] | None,
    level: str,
) -> Completed:
    workdir = Bind(str(Path(cwd).resolve()), CONFINED_WORKDIR, writable=True)
    spec = SandboxSpec(tuple(cmd), env=dict(env or {}), workdir=workdir)
    start = time.monotonic()
    try:
        started = analyser_sandboxes(level).start(
            spec,
            tasks=CONFINED_TASKS,
            memory_mb=memory_mb or DEFAULT_MEMORY_MB,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        raise AnalyserFailed(f"{tool} could not start: {exc}") from None
    done = started.communicate(timeout_s, CONFINED_OUTPUT_BYTES)
    if done.returncode is None:
        raise AnalyserFailed(f"{tool} did not finish within {timeout_s:g} s")
    if max(done.stdout_bytes, done.stderr_bytes) > CONFINED_OUTPUT_BYTES:
        raise AnalyserFailed(f"{tool} wrote more than {CONFINED_OUTPUT_BYTES >> 20} MB of output")
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        raise AnalyserFailed(f"{tool} was killed by {name}: {stderr.strip()[:200]}")
    return Completed(done.returncode, stdout, stderr, time.monotonic() - start)


@dataclass(frozen=True)
class Analyser:
    """One way of running a tool: fixed arguments before and after the files, and limits.

    ``purpose`` names who needs the tool in the missing-tool line; ``install`` overrides
    the default install hint.
    """

    tool: str
    args: tuple[str, ...] = ()
    after_files: tuple[str, ...] = ()
    timeout_s: float = 300.0
    memory_mb: int | None = DEFAULT_MEMORY_MB
    confine: bool = False
    clean_env: bool = False
    purpose: str = "this analysis"
    install: str | None = None

    def command(self) -> list[str]:
        """The executable part of the command line (raises :class:`AnalyserMissing`)."""
        return require(self.tool, self.purpose, self.install)

    def run(self, files: Sequence[str], cwd: Path) -> Completed:
        """The tool on ``files`` (names relative to ``cwd``), with this configuration."""
        argv = [*self.command(), *self.args, *files, *self.after_files]
        return run_process(
            self.tool,
            argv,
            cwd,
            timeout_s=self.timeout_s,
            memory_mb=self.memory_mb,
            confine=self.confine,
            env=CLEAN_ENV if self.clean_env else None,
        )

    def failed(self, proc: Completed) -> AnalyserFailed:
        """The one-line error for output this tool should not have given."""
        return AnalyserFailed(f"{self.tool} failed: {(proc.stderr or proc.stdout).strip()[:200]}")

    def record(self) -> dict[str, Any]:
        """What a run stores about this analyser: version, arguments and limits."""
        return {
            "tool": self.tool,
            "version": version(self.tool),
            "args": [*self.args, "<files>", *self.after_files],
            "timeout_s": self.timeout_s,
            "memory_mb": self.memory_mb,
            "confinement": confinement() if self.confine else "none",
            "process_budget": (analyser_sandboxes().budget.mechanism if self.confine else "none"),
            "environment": "cleared" if self.clean_env else "inherited",
        }
