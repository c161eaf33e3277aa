"""The default executor: per worker, a sandboxed judge and a sandboxed candidate fork server.

Each worker is two warm interpreters, started once, each in its own sandbox
(:mod:`beyondpass.execution.sandbox`): the *judge* (``judge.py``) runs the benchmark's tests,
the *candidate fork server* (``sandboxed/fork_server.py``) forks a fresh process per sample for
the model's code. A sample costs one ``fork`` instead of an interpreter start-up, while
every sample still gets its own process, scratch directory, limits and clean-up, and the
tests run where the candidate's code cannot reach them (see ``judge.py`` for why).

A worker that dies or hangs (a sample took it down, or the sandbox broke) is replaced; the
sample in it is reported ``killed`` and no other sample is affected. ``fresh_workers=True``
starts a new worker for every sample instead (the process-per-sample baseline).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import queue
import shutil
import socket
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import builds
from beyondpass.execution.base import ExecutionRequest, ExecutionResult, Executor, Status
from beyondpass.execution.launch import Sandboxes, Started
from beyondpass.execution.sandbox import SANDBOX_ENV, SCRATCH, Bind, SandboxSpec
from beyondpass.execution.sandboxed import job as job_schema
from beyondpass.execution.sandboxed import wire
from beyondpass.execution.shared_budget import SharedBudget
from beyondpass.execution.verdict import verdict

WATCHDOG_GRACE_S = 20.0  # beyond a sample's own timeout, before the worker is presumed hung
START_TIMEOUT_S = 60.0
COMPILED = ("cpp", "java")  # languages with a runner (execution/languages.py)
IO_TIMING_UNSUPPORTED = "timing runs of I/O tests are not supported yet: no times"


class WorkerDied(Exception):
    """The sandboxed worker stopped answering; it is replaced."""


#: what runs inside a worker's sandboxes: the whole sandboxed half, and nothing else of beyondpass
HERE = Path(__file__).resolve().parent / "sandboxed"
INSIDE_DIR = "/opt/beyondpass"  # where the sandboxed half appears inside a bwrap sandbox
SANDBOX_FILES = tuple(
    sorted(p.name for p in HERE.iterdir() if p.suffix in (".py", ".java") and p.stem != "__init__")
)
ROLES = {"judge": "judge.py", "candidate": "fork_server.py"}


def worker_spec(
    level: str, role: str, fds: tuple[int, ...], scratch_mb: int, scratch: str | None = None
) -> SandboxSpec:
    """One sandboxed half of a worker (``judge`` or ``candidate``) at ``level``.

    ``fds`` are the inherited sockets the process serves (the candidate fork server: the one
    to the judge; the judge: that one, then the one to the harness), passed by number. Each
    sandbox gets its own namespaces, so the judge and the candidate cannot see each other.
    ``scratch``: the host directory both use as scratch where the level has no private
    ``/tmp``.
    """
    binds = tuple(Bind(str(HERE / name), f"{INSIDE_DIR}/{name}") for name in SANDBOX_FILES)
    script = next(b for b in binds if b.host.endswith("/" + ROLES[role]))
    argv = (sys.executable, "-s", "-P", script.at(level), *map(str, fds))
    return SandboxSpec(argv, binds=binds, scratch=scratch, scratch_mb=scratch_mb)


class _Worker:
    """One judge and one candidate fork server, connected by a socket pair."""

    def __init__(self, sandboxes: Sandboxes, scratch_mb: int) -> None:
        level = sandboxes.level
        self.level = level
        judge_end, candidate_end = socket.socketpair()
        self.harness, harness_end = socket.socketpair()  # jobs in, reports out
        self.private_tmp = level == "bwrap"  # bwrap gives each sandbox its own /tmp
        self.scratch = SCRATCH if self.private_tmp else tempfile.mkdtemp(prefix="bp-worker-")
        self.started: list[Started] = []
        budget = sandboxes.budget
        try:
            with contextlib.ExitStack() as stack:
                for end in (judge_end, candidate_end, harness_end):
                    stack.callback(end.close)
                for role, ends, tasks, memory_mb in (
                    ("candidate", (candidate_end,), budget.candidate_tasks, budget.memory_mb),
                    ("judge", (judge_end, harness_end), budget.judge_tasks, budget.judge_memory_mb),
                ):
                    fds = tuple(end.fileno() for end in ends)
                    scratch = None if self.private_tmp else self.scratch
                    spec = worker_spec(level, role, fds, scratch_mb, scratch)
                    # inside its budget before its first instruction
                    self.started.append(
                        sandboxes.start(spec, tasks=tasks, memory_mb=memory_mb, pass_fds=fds)
                    )
            self.candidate, self.judge = (s.proc for s in self.started)
            candidate_config = {
                "scratch": self.scratch,
                "own_pid_namespace": sandboxes.own_pid_namespace,
                "env": {**SANDBOX_ENV, "HOME": self.scratch, "TMPDIR": self.scratch},
                # bwrap already drops them; unshare leaves the sample root of its namespace
                "drop_capabilities": level == "unshare",
            }
            self._send({"candidate": candidate_config})
            hello = self._receive(START_TIMEOUT_S)
            self.own_pid_namespace = bool(hello.get("candidate", {}).get("own_pid_namespace"))
            self._check_budgets()
        except OSError as exc:
            self.close()
            raise WorkerDied(f"the sandboxed worker could not start ({exc})") from exc
        except BaseException:
            self.close()
            raise

    def _check_budgets(self) -> None:
        """Every process of each sandbox, up and serving, is inside its budget."""
        for role, started in zip(("candidate", "judge"), self.started, strict=True):
            outside = started.outside_budget()
            if outside:
                raise WorkerDied(
                    f"{len(outside)} process(es) of the {role} sandbox are outside its budget"
                )

    def run(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self._send(job)
        return self._receive(timeout_s + WATCHDOG_GRACE_S)

    def alive(self) -> bool:
        return all(s.proc.poll() is None for s in self.started)

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            wire.send_frame(self.harness, obj)
        except OSError as exc:
            raise WorkerDied(f"the sandboxed worker is gone ({exc})") from exc

    def _receive(self, timeout_s: float) -> dict[str, Any]:
        try:
            return json.loads(wire.recv_frame(self.harness, time.monotonic() + timeout_s))
        except wire.DeadlineExceeded:
            raise WorkerDied("the sandboxed worker stopped answering") from None
        except (wire.PeerGone, wire.ProtocolError) as exc:
            code = self.judge.poll()
            raise WorkerDied(f"the sandboxed worker exited (code {code}): {exc}") from None

    def close(self) -> None:
        for started in self.started:
            started.close()  # also kills anything of the sandbox that escaped its session
        self.harness.close()
        if not self.private_tmp:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _unsupported(request: ExecutionRequest) -> str:
    """Why this executor cannot run the request (empty: it can)."""
    if request.language == "python":
        if request.compile is not None:
            return "python programs have no compile step: the request's compile step cannot run"
        runner = request.launcher is None or request.launcher.runner == job_schema.PYTHON_FUNCTION
        if not runner:
            return "a python launcher must start the Python function runner (languages.py)"
        if request.launcher is not None and request.tests and not request.io:
            return "the Python function runner runs I/O tests only (stdin in, stdout compared)"
        return ""
    if request.language not in COMPILED:
        return f"the sandbox executor runs python, cpp and java programs, not {request.language}"
    if request.launcher is None:
        return f"a {request.language} request needs a launcher (execution.languages.io_request)"
    if request.tests and not request.io:
        return f"{request.language} programs run I/O tests only (stdin in, stdout compared)"
    return ""


def _job(
    request: ExecutionRequest, timed: bool, seed: int, built: dict[str, str] | None, keep: bool
) -> job_schema.Job:
    """The judge's job for ``request`` (sandboxed/job.py: one schema for both halves);
    ``built``: the program's kept build, written instead of compiling; ``keep``: send the
    build back to be kept."""
    launch = compile_step = None
    kind = job_schema.IO if request.io else job_schema.CALL
    if request.launcher is not None:  # started by a runner: compiled_judge.py
        kind = job_schema.LAUNCHED
        launch = job_schema.Launch(
            command=list(request.launcher.command),
            cases_per_process=request.launcher.cases_per_process,
            memory_headroom_mb=request.launcher.memory_headroom_mb,
            runner=request.launcher.runner,
        )
    if request.compile is not None:
        step = request.compile
        compile_step = job_schema.Compile(
            command=list(step.command),
            source_name=step.source_name,
            timeout_s=step.timeout_s,
            memory_mb=step.memory_mb,
        )
        if built is not None:
            compile_step["built"] = built
        elif keep:
            compile_step["keep"] = True
    limits = request.limits
    return job_schema.make_job(
        kind,
        program=request.program,
        setup=request.test_setup,
        tests=[_test_job(t) for t in request.tests],
        limits=job_schema.Limits(
            timeout_s=limits.timeout_s,
            memory_mb=limits.memory_mb,
            output_bytes=limits.output_bytes,
            file_size_mb=limits.file_size_mb,
            test_timeout_s=limits.test_timeout_s,
        ),
        seed=seed,
        repeats=request.timing_repeats if timed or not request.io else 0,
        io_timing=timed,
        launch=launch,
        compile_step=compile_step,
    )


def _test_job(test: TestCase) -> job_schema.Test:
    """What the judge needs of a test (it never reaches the candidate's sandbox)."""
    if test.is_io:
        return job_schema.Test(
            name=test.name,
            stdin=test.stdin or "",
            expected_stdout=test.expected_stdout or "",
            compare=test.compare.as_dict(),
        )
    return job_schema.Test(name=test.name, code=test.code)


class SandboxExecutor(Executor):
    """Fast and isolated: see the module docstring and docs/sandbox.md."""

    name = "sandbox"

    def __init__(
        self,
        workers: int | None = None,
        isolation: str = "auto",
        scratch_mb: int = 256,
        seed: int = 0,
        budget_mb: int = 4096,
        fresh_workers: bool = False,
        process_budget: str = "auto",
        compile_cache: bool = True,
    ) -> None:
        self._workers = workers or os.cpu_count() or 1
        # decided (and the budget probed) before any sample runs: a budget that does not
        # bind refuses; a weaker level than bwrap is said on stderr
        self.sandboxes = Sandboxes(isolation, process_budget, budget_mb)
        self.level = self.sandboxes.level
        self.level_note = self.sandboxes.note
        self.budget = self.sandboxes.budget
        enclosure = self.budget.enclosure
        # one budget for every sandbox: a sample starved by a neighbour is judged again
        self._shared = SharedBudget(enclosure) if enclosure is not None else None
        self.seed = seed
        self.scratch_mb = scratch_mb
        self.budget_mb = budget_mb
        self.fresh_workers = fresh_workers
        # a program compiled once per process (execution/builds.py); off for benchmarks
        # that measure the compile itself
        self.compile_cache = compile_cache
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        for _ in range(self._workers):
            self._idle.put(None)  # started lazily, on first use
        self._lock = threading.Lock()
        self._all: list[_Worker] = []
        # Workers are started from one long-lived thread: bwrap's --die-with-parent is a
        # parent-death signal bound to the *thread* that started it, so a worker started
        # from a short-lived pool thread would be killed when that thread ends.
        self._spawner = concurrent.futures.ThreadPoolExecutor(1, "beyondpass-spawner")
        self._finalizer = weakref.finalize(self, _shutdown, self._all, self._lock, self._spawner)

    @property
    def workers(self) -> int:
        return self._workers

    def metadata(self) -> dict[str, Any]:
        return {
            "executor": "subprocess" if self.fresh_workers else self.name,
            **self.sandboxes.metadata(),
            "tests_run_in": "a separate judge process; the candidate's process holds no tests",
            "python": sys.version.split()[0],
            "workers": self._workers,
            "fresh_worker_per_sample": self.fresh_workers,
            "compile_cache": self.compile_cache,
            "random_seed": self.seed,
        }

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        unsupported = _unsupported(request)
        if unsupported:  # a check that cannot run is an error, never a pass
            return ExecutionResult(status=Status.ERROR, message=unsupported)
        if self._shared is not None:
            return self._shared.judge(lambda: self._judge(request))
        return self._judge(request)

    def _judge(self, request: ExecutionRequest) -> ExecutionResult:
        timed = request.io and request.io_timing and request.timing_repeats > 0
        key = built = None
        if request.compile is not None and self.compile_cache:
            key = builds.key(request.program, request.compile, HERE)
            built = builds.BUILDS.get(key) if key is not None else None
        job = _job(request, timed, self.seed, built, keep=key is not None and built is None)
        worker = self._idle.get()
        report: dict[str, Any] | None = None
        try:
            if worker is not None and not worker.alive():
                self._retire(worker)  # died after its last sample (e.g. its sandbox broke)
                worker = None
            if worker is None:
                worker = self._start()
            budget = request.budget_s  # a compile step has its own time, before the tests'
            if request.compile is not None:
                budget += request.compile.timeout_s + 5.0
            report = worker.run(job, budget)
        except WorkerDied as exc:
            if worker is not None:
                self._retire(worker)
            worker = None
            return ExecutionResult(
                status=Status.KILLED, message=f"{exc}: the sample took its worker down"
            )
        finally:
            # a fork server that did not report back is broken: the next sample starts anew
            broken = report is not None and report.get("exit") is None
            if worker is not None and (self.fresh_workers or broken or not worker.alive()):
                self._retire(worker)
                worker = None
            self._idle.put(worker)
        kept = report.pop("build", None) if report is not None else None
        compiled = kept is not None and report.get("compile_error") is None
        if key is not None and built is None and compiled:
            builds.BUILDS.put(key, kept)
        result = verdict(report, request)
        if request.io and request.timing_repeats and result.passed and not timed:
            result.timing_error = IO_TIMING_UNSUPPORTED
        return result

    def _start(self) -> _Worker:
        started = self._spawner.submit(_Worker, self.sandboxes, self.scratch_mb)
        worker = started.result()
        with self._lock:
            self._all.append(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        worker.close()

    def close(self) -> None:
        self._finalizer()


def _shutdown(workers: list[_Worker], lock: threading.Lock, spawner: Any) -> None:
    """Stop every worker; also run at interpreter exit for an executor nobody closed
    (``weakref.finalize``, which runs before modules are torn down, unlike ``__del__``)."""
    with lock:
        stopping = list(workers)
        workers.clear()
    for worker in stopping:
        worker.close()
    spawner.shutdown(wait=False)
