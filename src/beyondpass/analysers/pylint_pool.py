"""Worker processes that run :mod:`.pylint_batch` on batches, supervised: the pylint runner
every method uses.

pylint runs in-process on whole batches, but not in the harness process: generated code is
hostile, and although pylint only parses it, a pathological program can make astroid's
inference run for minutes, exhaust memory, or (in C code such as a regular expression)
hang where no Python signal reaches. A worker is a long-lived ``spawn``-ed process (no
inherited threads or state) with an address-space limit; it reports each file as pylint
starts on it, so the supervisor knows which file a stuck or dead worker was on. That
file gets an error instead of messages (the reason, one line), and the rest of the batch
goes to a fresh worker. Several workers use several cores.

Batches: messages that relate several modules (``duplicate-code``, ``cyclic-import``) depend
on which files share a batch; a configuration that keeps them enabled wants one batch
(:func:`lint`), one that disables them may split the work freely.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from beyondpass.analysers.pylint_batch import STEM, PylintMessage, describe, versions


@dataclass(frozen=True)
class PylintResult:
    """pylint's messages for one program, or why there are none."""

    messages: list[PylintMessage] | None = None
    error: str = ""


OnResult = Callable[[str, PylintResult], None]

STARTUP_TIMEOUT_S = 120.0  # spawn + importing pylint on a loaded machine


def _worker_main(
    conn: Connection, scratch: Path, memory_mb: int, parent_cwd: str, rc_text: str
) -> None:
    """Child process: set limits, then lint every batch sent until told to stop.

    ``scratch`` belongs to the supervisor, which removes it even when the worker is killed;
    a worker whose supervisor died (its pipe closed) removes it itself on the way out.
    """
    # pylint reads PYLINTHOME at import time (crash reports, stats): keep it private.
    os.environ["PYLINTHOME"] = str(scratch)
    os.chdir(scratch)
    # Like the pylint command (pylint.modify_sys_path), do not resolve a sample's imports
    # against whatever directory the harness was started in.
    sys.path[:] = [p for p in sys.path if p not in ("", ".", parent_cwd)]
    # Nothing a worker prints may reach the harness's stdout (``--json``) or clutter its
    # stderr (astroid's SyntaxWarnings about generated code); failures go through ``conn``.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if memory_mb > 0:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        from beyondpass.analysers import pylint_batch

        rcfile = pylint_batch.write_rcfile(scratch, rc_text)
        workdir = scratch / "files"
        workdir.mkdir()
        conn.send(("ready", None))
        while True:
            job = conn.recv()
            if job is None:
                return
            sources: dict[str, str] = job
            results = pylint_batch.lint_sources(
                sources, workdir, rcfile, on_file=lambda key: conn.send(("file", key))
            )
            conn.send(("done", results))
    except (EOFError, BrokenPipeError):
        shutil.rmtree(scratch, ignore_errors=True)
        return
    except KeyboardInterrupt:
        return
    except BaseException as exc:  # noqa: BLE001 - reported to the supervisor, then exit
        with contextlib.suppress(OSError, ValueError):
            conn.send(("failed", f"{type(exc).__name__}: {exc}"[:500]))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    scratch: Path
    batch: list[str] = field(default_factory=list)
    current: str | None = None
    deadline: float = 0.0
    ready: bool = False


class PylintPool:
    """Lint ``key -> program`` maps with ``workers`` supervised pylint processes.

    ``pylintrc`` is the configuration (:func:`.pylint_batch.pylintrc`); each program is
    written as ``<module_prefix><key>.py``, so the prefix and key choose its module name.
    """

    def __init__(
        self,
        pylintrc: str,
        workers: int = 1,
        *,
        batch_size: int = 512,
        file_timeout_s: float = 60.0,
        memory_mb: int = 4096,
        module_prefix: str = "",
    ) -> None:
        self.pylintrc = pylintrc
        self.module_prefix = module_prefix
        self.workers = max(1, workers)
        self.batch_size = max(1, batch_size)
        self.file_timeout_s = file_timeout_s
        self.memory_mb = memory_mb
        self._ctx = multiprocessing.get_context("spawn")
        self._keys: dict[str, str] = {}

    def record(self) -> dict[str, Any]:
        """What a run stores about this runner: versions, configuration and limits."""
        found = versions()
        return {
            "tool": "pylint",
            "version": found["pylint"],
            "astroid": found["astroid"],
            "mode": "in-process pylint.lint.Run on batches, in supervised worker processes",
            "pylintrc": self.pylintrc,
            "workers": self.workers,
            "batch_size": self.batch_size,
            "file_timeout_s": self.file_timeout_s,
            "memory_mb": self.memory_mb,
            "caches": "astroid and pylint caches cleared after every batch",
        }

    def describe(self) -> dict[str, Any]:
        """This configuration as pylint sees it (:func:`.pylint_batch.describe`)."""
        with tempfile.TemporaryDirectory(prefix="beyondpass-pylint-config-") as tmp:
            return describe(self.pylintrc, Path(tmp))

    def run(self, sources: Mapping[str, str], on_result: OnResult) -> None:
        """Lint every program; ``on_result(key, result)`` fires as each is known."""
        keys = list(sources)
        if not keys:
            return
        stems = {key: f"{self.module_prefix}{key}" for key in keys}
        bad = [stem for stem in stems.values() if not STEM.fullmatch(stem)]
        if bad:
            raise ValueError(f"not a module name: {bad[0]!r}")
        texts = {stems[key]: source for key, source in sources.items()}
        self._keys = {stem: key for key, stem in stems.items()}

        def on_stem(stem: str, result: PylintResult) -> None:
            on_result(self._keys[stem], result)

        self._run(texts, on_stem)

    def _run(self, sources: Mapping[str, str], on_analysis: OnResult) -> None:
        """The supervision loop, on ``stem -> program``."""
        keys = list(sources)
        # As few batches as the size allows (each batch re-parses the standard-library modules
        # its samples import), rounded up to a multiple of the workers so they finish together.
        batches = -(-len(keys) // self.batch_size)
        batches = -(-batches // self.workers) * self.workers
        size = -(-len(keys) // batches)
        queue: deque[list[str]] = deque(keys[i : i + size] for i in range(0, len(keys), size))
        retried: set[tuple[str, ...]] = set()
        workers: list[_Worker] = []
        try:
            while queue or any(w.batch for w in workers):
                while queue and (idle := self._idle(workers)) is not None:
                    idle.batch = queue.popleft()
                    idle.current = None
                    if idle.ready:
                        self._dispatch(idle, sources)
                busy = [w for w in workers if w.batch]
                timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
                for conn in wait([w.conn for w in busy], timeout=timeout):
                    worker = next(w for w in busy if w.conn is conn)
                    self._receive(worker, sources, on_analysis, queue, retried)
                now = time.monotonic()
                for worker in [w for w in workers if w.batch and w.deadline < now]:
                    where = f" on {self._keys[worker.current]}" if worker.current else ""
                    limit = self.file_timeout_s if worker.ready else STARTUP_TIMEOUT_S
                    self._fail(
                        worker,
                        f"pylint did not finish{where} within {limit:g} s",
                        sources,
                        on_analysis,
                        queue,
                        retried,
                    )
                workers = [w for w in workers if w.process is not None]
        finally:
            for worker in workers:
                self._stop(worker)

    # -- supervision --------------------------------------------------------------------------
    def _idle(self, workers: list[_Worker]) -> _Worker | None:
        for worker in workers:
            if not worker.batch:
                return worker
        if len(workers) < self.workers:
            parent, child = self._ctx.Pipe()
            scratch = Path(tempfile.mkdtemp(prefix="beyondpass-pylint-"))
            process = self._ctx.Process(
                target=_worker_main,
                args=(child, scratch, self.memory_mb, os.getcwd(), self.pylintrc),
                daemon=True,
            )
            process.start()
            child.close()
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            worker = _Worker(process, parent, scratch, deadline=deadline)
            workers.append(worker)
            return worker
        return None

    def _dispatch(self, worker: _Worker, sources: Mapping[str, str]) -> None:
        worker.conn.send({key: sources[key] for key in worker.batch})
        worker.deadline = time.monotonic() + self.file_timeout_s

    def _receive(
        self,
        worker: _Worker,
        sources: Mapping[str, str],
        on_analysis: OnResult,
        queue: deque[list[str]],
        retried: set[tuple[str, ...]],
    ) -> None:
        try:
            kind, payload = worker.conn.recv()
        except (EOFError, OSError):
            code = worker.process.exitcode if worker.process else None
            worker.process.join(timeout=5)
            code = worker.process.exitcode if code is None else code
            reason = f"the pylint worker died (exit code {code})"
            self._fail(worker, reason, sources, on_analysis, queue, retried)
            return
        if kind == "ready":
            worker.ready = True
            if worker.batch:
                self._dispatch(worker, sources)
        elif kind == "file":
            worker.current = payload
            worker.deadline = time.monotonic() + self.file_timeout_s
        elif kind == "done":
            results: dict[str, list[PylintMessage]] = payload
            for key in worker.batch:
                found = results.get(key)
                on_analysis(key, PylintResult(found) if found is not None else _failed("no result"))
            worker.batch, worker.current = [], None
        else:  # "failed": an exception escaped pylint in the worker
            self._fail(worker, f"pylint failed: {payload}", sources, on_analysis, queue, retried)

    def _fail(
        self,
        worker: _Worker,
        reason: str,
        sources: Mapping[str, str],
        on_analysis: OnResult,
        queue: deque[list[str]],
        retried: set[tuple[str, ...]],
    ) -> None:
        """Blame the file the worker was on; the rest of its batch goes to a new worker."""
        batch, current = worker.batch, worker.current
        worker.batch, worker.current = [], None
        self._stop(worker, kill=True)
        worker.process = None
        if current is not None:
            on_analysis(current, _failed(reason))
            rest = [k for k in batch if k != current]
        elif tuple(batch) not in retried:  # failed before its first file: try once more
            retried.add(tuple(batch))
            rest = batch
        else:
            for key in batch:
                on_analysis(key, _failed(reason))
            rest = []
        if rest:
            queue.appendleft(rest)

    def _stop(self, worker: _Worker, kill: bool = False) -> None:
        process = worker.process
        if process is None:
            return
        if not kill and process.is_alive():
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                kill = True
            process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join(timeout=10)
        worker.conn.close()
        shutil.rmtree(worker.scratch, ignore_errors=True)


def _failed(reason: str) -> PylintResult:
    return PylintResult(None, reason)


def lint(
    sources: Mapping[str, str],
    pylintrc: str,
    *,
    timeout_s: float = 300.0,
    memory_mb: int = 4096,
) -> dict[str, PylintResult]:
    """Every ``stem -> program`` in one batch of one supervised worker (so messages that
    relate modules see the whole batch), each file within ``timeout_s``."""
    out: dict[str, PylintResult] = {}
    pool = PylintPool(
        pylintrc, 1, batch_size=max(1, len(sources)), file_timeout_s=timeout_s, memory_mb=memory_mb
    )
    pool.run(sources, out.__setitem__)
    return out


def lint_record(pylintrc: str, *, timeout_s: float = 300.0, memory_mb: int = 4096) -> dict:
    """What :func:`lint` runs with, recorded beside its results."""
    record = PylintPool(pylintrc, 1, file_timeout_s=timeout_s, memory_mb=memory_mb).record()
    record["batch_size"] = "all files in one batch"
    return record
