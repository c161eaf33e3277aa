"""Compiled programs kept by content: the same program is compiled once per process.

A compile step's output depends only on its inputs: the program, the step (command, source
name, time and memory), the trusted runner sources the command names, and the compiler
binary. A build is kept under the sha256 of all of them. Its files are the build
directory as the compile left it, read by the candidate sandbox's compile process and
sent back before the program first runs there, so nothing the program does when it runs
reaches a kept build. A later sample with the same key gets those files written into its
fresh build directory instead of a compile: the same files a compile would have made.

The cache lives in the harness's memory only (no file the sandbox or another user could
write), bounded in bytes, least recently used out first. Models asked several times at
temperature 0 and test suites that judge one program at two isolation levels pay one
compile instead of several (a javac is about a second of CPU).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import posixpath
import shutil
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from beyondpass.execution.base import CompileStep

#: the most bytes of builds kept (a C++ program is some 20-100 KB, Java classes less)
BUDGET_BYTES = 256 << 20
#: a build larger than this is not kept (and not sent back)
MAX_BUILD_BYTES = 16 << 20
_RUNNER = "{runner}/"


class Builds:
    """Builds by key, least recently used out first when over ``budget`` bytes."""

    def __init__(self, budget: int = BUDGET_BYTES) -> None:
        self.budget = budget
        self._kept: OrderedDict[str, tuple[dict[str, str], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.kept = 0

    def get(self, key: str) -> dict[str, str] | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return dict(found[0])

    def put(self, key: str, files: object) -> bool:
        """Keep ``files`` (relative path -> base64) if they are a well-formed build."""
        size = build_size(files)
        if size is None or size > MAX_BUILD_BYTES:
            return False
        assert isinstance(files, dict)
        with self._lock:
            if key in self._kept:
                self._bytes -= self._kept.pop(key)[1]
            self._kept[key] = (dict(files), size)
            self._bytes += size
            self.kept += 1
            while self._bytes > self.budget and self._kept:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped
        return True


#: the process's builds, shared by its sandbox executors
BUILDS = Builds()


def build_size(files: object) -> int | None:
    """The bytes of a build sent back by the sandbox, or None if it is not one: a dict of
    normalised relative paths (no ``..``, no absolute path) to base64 text."""
    if not isinstance(files, dict) or not files:
        return None
    size = 0
    for name, text in files.items():
        if not (isinstance(name, str) and isinstance(text, str)) or not safe_name(name):
            return None
        size += len(text) * 3 // 4
    return size


def safe_name(name: str) -> bool:
    """A path inside the build directory: relative, normalised, without ``..``."""
    return (
        bool(name)
        and not name.startswith("/")
        and "\\" not in name
        and "\0" not in name
        and posixpath.normpath(name) == name
        and ".." not in name.split("/")
    )


def key(program: str, step: CompileStep, runners: Path) -> str | None:
    """The content key of compiling ``program`` with ``step``, whose ``{runner}/NAME``
    files are read from ``runners``; None when the compiler cannot be found (the compile
    then fails on its own, and nothing is kept)."""
    compiler = _compiler(step.command[0])
    if compiler is None:
        return None
    named = sorted({p[len(_RUNNER) :] for p in step.command if p.startswith(_RUNNER)})
    runner_digests = [_digest(runners / name) for name in named]
    parts = [
        list(step.command),
        step.source_name,
        step.timeout_s,
        step.memory_mb,
        named,
        runner_digests,
        compiler,
        hashlib.sha256(program.encode("utf-8", "surrogatepass")).hexdigest(),
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _digest(path: Path) -> str | None:
    """sha256 of a runner source (None: no such file), read again only when it changed."""
    try:
        info = path.stat()
    except OSError:
        return None
    return _digest_of(str(path), info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _digest_of(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _compiler(command: str) -> list[Any] | None:
    """Which compiler binary ``command`` is: its real path, size and modification time."""
    found = shutil.which(command)
    if found is None:
        return None
    real = os.path.realpath(found)
    try:
        info = os.stat(real)
    except OSError:
        return None
    return [real, info.st_size, info.st_mtime_ns]
