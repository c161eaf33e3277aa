"""Scratch copies of a project and commands run in them inside the sandbox.

The user's checkout (or sdist) is only ever read: it is copied (or unpacked) once into a
pristine scratch tree, and every task works on a fresh copy of that tree. Commands — the
install/build step, the test runs — run in the one sandbox every caller uses
(:class:`beyondpass.execution.Sandboxes`, the run's isolation level and process budget)
with only the copy writable: no network, no home, no environment of the harness.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from beyondpass.errors import ConfigError
from beyondpass.execution import SANDBOX_ENV, SCRATCH, Bind, Sandboxes, SandboxSpec, Started
from beyondpass.methods.obfuseval.project.spec import ProjectSpec

#: where the copy appears inside a bwrap sandbox
INSIDE_ROOT = f"{SCRATCH}/project"
#: a folder in each copy for beyondpass's files (outcome plugin, coverage data)
PLUGIN_DIR = ".beyondpass"
_SCRATCH_MB = 512
#: tasks (processes and threads) in one project sandbox: pytest or the answer's worker,
#: and what they start
_TASKS = 128
_TAIL = 4000  # characters of a command's output kept with its result
_KEEP_BYTES = 64 << 10  # bytes of each stream read into memory (the rest is counted, not kept)


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path, mode and bytes (symlinks by their target)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            digest.update(f"L {rel} {os.readlink(path)}\n".encode())
        elif path.is_file():
            digest.update(f"F {rel} {path.stat().st_mode & 0o777:o}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        elif path.is_dir():
            digest.update(f"D {rel}\n".encode())
    return digest.hexdigest()


def materialise(spec: ProjectSpec, scratch: Path) -> Path:
    """The pristine project tree under ``scratch``: a copy of the checkout, or the unpacked
    sdist's single top directory."""
    target = scratch / "pristine"
    if target.exists():
        shutil.rmtree(target)
    if spec.checkout is not None:
        shutil.copytree(spec.checkout, target, symlinks=True)
        return target
    assert spec.sdist is not None
    unpack = scratch / "unpack"
    shutil.rmtree(unpack, ignore_errors=True)
    try:
        if spec.sdist.name.endswith(".zip"):
            with zipfile.ZipFile(spec.sdist) as archive:
                archive.extractall(unpack)
        else:
            with tarfile.open(spec.sdist) as archive:
                archive.extractall(unpack, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as exc:
        raise ConfigError(f"{spec.sdist}: cannot unpack the sdist ({exc})") from None
    tops = list(unpack.iterdir())
    root = tops[0] if len(tops) == 1 and tops[0].is_dir() else unpack
    root.rename(target)
    shutil.rmtree(unpack, ignore_errors=True)
    return target


def fresh_copy(pristine: Path, target: Path) -> Path:
    """A new working copy of the pristine tree (an old one at ``target`` is removed)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(pristine, target, symlinks=True)
    return target


@dataclass(frozen=True)
class Completed:
    """One sandboxed command's end: exit status (None: killed at the time limit) and tails."""

    returncode: int | None
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


class ProjectSandbox:
    """Runs commands in a project copy, each in a sandbox of its own, at the run's isolation
    level and inside its process budget (the executor choice every command shares).

    Project mode needs the ``bwrap`` level: at the others the filesystem is not confined,
    so the model's code could rewrite the tests' copy.
    """

    def __init__(self, spec: ProjectSpec, sandboxes: Sandboxes, where: str = "") -> None:
        if sandboxes.level != "bwrap":
            raise ConfigError(
                f"{spec.name}: project mode needs the bwrap sandbox (level "
                f"{sandboxes.level!r} does not confine the filesystem, so the model's code "
                f"could rewrite the tests' copy){where}"
            )
        self.spec = spec
        self.sandboxes = sandboxes

    @property
    def level(self) -> str:
        return self.sandboxes.level

    @staticmethod
    def _bind(copy: Path) -> Bind:
        return Bind(str(copy.resolve()), INSIDE_ROOT, writable=True)

    def root_inside(self, copy: Path) -> str:
        """The copy's path as the sandboxed command sees it."""
        return self._bind(copy).at(self.level)

    def argv(self, words: tuple[str, ...] | list[str]) -> list[str]:
        """``python`` as the first word means the harness's interpreter (pytest and coverage
        come from its environment)."""
        words = list(words)
        if words and words[0] in ("python", "python3"):
            words[0] = sys.executable
        return words

    def start(
        self,
        copy: Path,
        words: list[str],
        env: dict[str, str] | None = None,
        pass_fds: tuple[int, ...] = (),
        capture: bool = True,
    ) -> Started:
        """Start ``words`` with the copy as working directory; only the copy is writable.
        ``pass_fds`` are inherited under the same numbers (bwrap keeps them open)."""
        inside = self.root_inside(copy)
        # the copy's import roots, then the folder of beyondpass's own files
        roots = [os.path.normpath(f"{inside}/{p}") for p in self.spec.pythonpath]
        roots.append(f"{inside}/{PLUGIN_DIR}")
        variables = {
            # ``python`` in an install command is the harness's interpreter too
            "PATH": f"{Path(sys.executable).parent}:{SANDBOX_ENV['PATH']}",
            "PYTHONPATH": os.pathsep.join(roots),
            **(env or {}),
        }
        spec = SandboxSpec(
            tuple(self.argv(words)),
            env=variables,
            workdir=self._bind(copy),
            scratch_mb=_SCRATCH_MB,
        )
        out = subprocess.PIPE if capture else subprocess.DEVNULL
        return self.sandboxes.start(
            spec,
            tasks=_TASKS,
            memory_mb=self.sandboxes.memory_mb,
            stdout=out,
            stderr=out,
            pass_fds=pass_fds,
        )

    @staticmethod
    def wait(started: Started, timeout_s: float) -> Completed:
        """Wait for a started command (killed with its sandbox at ``timeout_s``); its
        sandbox is gone afterwards, budget included. Only the output's tails are kept."""
        done = started.communicate(timeout_s, _KEEP_BYTES)
        return Completed(
            done.returncode,
            done.stdout.decode("utf-8", "replace")[-_TAIL:],
            done.stderr.decode("utf-8", "replace")[-_TAIL:],
        )

    def run(
        self,
        copy: Path,
        words: list[str],
        timeout_s: float,
        env: dict[str, str] | None = None,
    ) -> Completed:
        """Run ``words`` with the copy as working directory; only the copy is writable."""
        return self.wait(self.start(copy, words, env), timeout_s)

    def install(self, copy: Path) -> Completed | None:
        """The description's install/build command in the copy (None when there is none)."""
        if not self.spec.install:
            return None
        return self.run(copy, ["sh", "-c", self.spec.install], self.spec.timeout_s)
