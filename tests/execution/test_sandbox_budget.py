"""Sandbox budgets, measured from outside: what a hostile sample may cost the machine.

The hostile tests in test_sandbox_hostile.py check that a hostile sample ends and that
nothing escapes. These check *how much* the machine gave it while it ran — processes and
memory of the executor's whole process tree, sampled from ``/proc`` by a thread of the
test — and that the samples beside it get exactly the verdicts they get alone.

Real sandboxes (bubblewrap on CI), real cgroups where the machine has a writable tree
(root on CI), real C++ and Java toolchains.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.errors import ConfigError
from beyondpass.execution import (
    ExecutionLimits,
    ExecutionRequest,
    ExecutorChoice,
    Status,
    cgroups,
    create_executor,
    languages,
)
from beyondpass.execution.budget import (
    CANDIDATE_TASKS,
    JUDGE_TASKS,
    ProcessLimit,
    choose_budget,
    descendants,
)
from beyondpass.execution.sandbox import level_works
from beyondpass.execution.verdict import verdict

WORKERS = 2
#: processes of one worker beside what its two budgets count: none (the launchers' shells
#: exec into the sandboxes), plus a margin for a worker being replaced while sampled
PER_WORKER_CONSTANT = 8
PROCESS_CEILING = WORKERS * (CANDIDATE_TASKS + JUDGE_TASKS + PER_WORKER_CONSTANT)
HOG_BUDGET_MB = 512
#: memory of one worker beside its candidate sandbox's budget: the judge and fork server
#: interpreters, bwrap, and page-cache noise in the proportional sizes
PER_WORKER_MEMORY_MB = 200

TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))
GOOD = "def inc(x):\n    return x + 1\n"
WRONG = "def inc(x):\n    return 0\n"
LOOP = "def inc(x):\n    while True:\n        pass\n"
IO_TESTS = (
    TestCase("io1", stdin="2 3\n", expected_stdout="5\n"),
    TestCase("io2", stdin="40 2\n", expected_stdout="42\n"),
)

PY_FORK_BOMB = """
import os
def inc(x):
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""
CPP_FORK_BOMB = """
#include <unistd.h>
int main() { while (true) fork(); }
"""
JAVA_FORK_BOMB = """
import java.util.ArrayList;
public class Main {
    public static void main(String[] args) throws Exception {
        ArrayList<Process> kids = new ArrayList<>();
        while (true) {
            try { kids.add(new ProcessBuilder("/bin/sh", "-c", "while :; do :; done").start()); }
            catch (Exception e) { }
            try { new Thread(() -> { while (true) { } }).start(); }
            catch (Throwable e) { }
        }
    }
}
"""
PY_MEMORY_HOG = """
import os, time
def inc(x):
    for _ in range(30):
        if os.fork() == 0:
            hog = b"x" * (200 << 20)
            time.sleep(30)
            os._exit(0)
    time.sleep(30)
"""
PY_CPU_BURNER = """
import os
def inc(x):
    for _ in range(6):
        if os.fork() == 0:
            break
    while True:
        pass
"""


@pytest.fixture(scope="module")
def level() -> str:
    if level_works("bwrap"):
        return "bwrap"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI must run the bwrap sandbox: install bubblewrap")
    return "unshare" if level_works("unshare") else "process"


@pytest.fixture(scope="module")
def cgroup_layout() -> str:
    found = cgroups.layout()
    if found == "none":
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI runs as root with a writable cgroup tree: the cgroup path is tested")
        pytest.skip("no writable cgroup tree here (the fallback tests below still run)")
    return found


def call_request(program: str, timeout_s: float = 10.0) -> ExecutionRequest:
    return ExecutionRequest(
        program=textwrap.dedent(program),
        tests=TESTS,
        limits=ExecutionLimits(timeout_s=timeout_s),
    )


def compiled_request(language: str, program: str, timeout_s: float = 30.0) -> ExecutionRequest:
    limits = ExecutionLimits(timeout_s=timeout_s, test_timeout_s=timeout_s / 2)
    return languages.io_request(language, textwrap.dedent(program), IO_TESTS, limits)


class Sampler:
    """Calls :meth:`sample` every 20 ms on a thread of its own, from entry until exit."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            time.sleep(0.02)

    def sample(self) -> None:
        raise NotImplementedError


class TreeSampler(Sampler):
    """Samples the test process's descendants from /proc: the most processes seen at once,
    and the most proportional memory (PSS, MB) they held at once."""

    def __init__(self, memory: bool = False) -> None:
        super().__init__()
        self.memory = memory
        self.baseline = descendants(os.getpid())
        self.most_processes = 0
        self.most_memory_mb = 0.0

    def sample(self) -> None:
        tree = descendants(os.getpid()) - self.baseline
        self.most_processes = max(self.most_processes, len(tree))
        if self.memory:
            self.most_memory_mb = max(self.most_memory_mb, _pss_mb(tree))


def _pss_mb(pids: set[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        total_kb += int(line.split()[1])
                        break
        except (OSError, ValueError):
            continue
    return total_kb / 1024


def _statuses(results) -> list[tuple[Status, tuple[Status, ...]]]:
    return [(r.status, tuple(t.status for t in r.tests)) for r in results]


# -- the budget is probed, recorded, and every process of a sandbox is inside it ----------


def test_the_budget_is_probed_and_recorded(level, cgroup_layout):
    ex = create_executor("sandbox", workers=1, isolation=level)
    try:
        budget = ex.metadata()["process_budget"]
        assert budget["mechanism"] == "cgroup"
        assert budget["layout"] == cgroup_layout
        assert budget["candidate_tasks"] == CANDIDATE_TASKS
        assert {"pids", "memory"} <= set(budget["controllers"])
        assert budget["verified"].startswith("probe: all")
    finally:
        ex.close()


def test_every_process_of_both_sandboxes_is_inside_its_budget(level, cgroup_layout):
    """While a sample with children runs, every process below each sandbox's launcher is a
    member of that sandbox's cgroup, and the cgroup counts them."""
    ex = create_executor("sandbox", workers=1, isolation=level)
    sleeper = """
        import os, time
        def inc(x):
            for _ in range(3):
                if os.fork() == 0:
                    time.sleep(12)
                    os._exit(0)
            time.sleep(6)
            return x + 1
    """
    try:
        done: list = []
        request = call_request(sleeper, timeout_s=30)
        runner = threading.Thread(target=lambda: done.append(ex.run(request)))
        runner.start()
        deadline = time.monotonic() + 6  # until the sample and its three children are up
        candidate_tree: set[int] = set()
        while time.monotonic() < deadline and len(candidate_tree) < 6:
            workers = list(ex._all)
            if workers:
                worker = workers[0]
                candidate_tree = {worker.candidate.pid} | descendants(worker.candidate.pid)
            time.sleep(0.05)
        # bwrap (outer and inner), the fork server, the sample and its three children
        assert len(candidate_tree) >= 6, candidate_tree
        for role, started in zip(("candidate", "judge"), worker.started, strict=True):
            budget = started.budget
            tree = {started.pid} | descendants(started.pid)
            assert tree <= budget.members(), role
            assert budget.tasks() >= len(tree)
        runner.join()
        assert done[0].status is Status.PASSED, done[0].message
    finally:
        ex.close()


# -- hostile samples, measured from outside ----------------------------------------------

BOMBS = {
    "python": lambda: call_request(PY_FORK_BOMB, timeout_s=4),
    "cpp": lambda: compiled_request("cpp", CPP_FORK_BOMB, timeout_s=8.0),
    "java": lambda: compiled_request("java", JAVA_FORK_BOMB, timeout_s=8.0),
}


@pytest.mark.parametrize("language", sorted(BOMBS))
def test_a_fork_bomb_stays_within_its_budget(level, cgroup_layout, language):
    ex = create_executor("sandbox", workers=WORKERS, isolation=level)
    try:
        with TreeSampler() as sampler:
            results = ex.run_many([BOMBS[language](), call_request(GOOD)])
        assert results[0].status is not Status.PASSED
        assert results[1].status is Status.PASSED, results[1].message
        assert 0 < sampler.most_processes <= PROCESS_CEILING, sampler.most_processes
    finally:
        ex.close()
    assert descendants(os.getpid()) - sampler.baseline == set()  # nothing of the run is left


def test_a_memory_hog_stays_within_its_budget(level, cgroup_layout):
    """Thirty children of 200 MB each (6 GB) against a 512 MB sandbox budget."""
    ex = create_executor("sandbox", workers=WORKERS, isolation=level, budget_mb=HOG_BUDGET_MB)
    try:
        with TreeSampler(memory=True) as sampler:
            results = ex.run_many([call_request(PY_MEMORY_HOG, timeout_s=8), call_request(GOOD)])
        assert results[0].status is not Status.PASSED
        assert results[1].status is Status.PASSED, results[1].message
        ceiling = WORKERS * (HOG_BUDGET_MB + PER_WORKER_MEMORY_MB)
        assert 0 < sampler.most_memory_mb <= ceiling, sampler.most_memory_mb
    finally:
        ex.close()
    assert descendants(os.getpid()) - sampler.baseline == set()


def _ordinary() -> list[ExecutionRequest]:
    """30 ordinary answers: passing, failing, raising, timing out, in three languages."""
    batch: list[ExecutionRequest] = []
    for i in range(24):
        program = (GOOD, WRONG, "def inc(x):\n    raise ValueError(x)\n", GOOD)[i % 4]
        batch.append(call_request(program))
    for _ in range(2):  # timeouts: each costs its whole limit, so few of them
        batch.append(call_request(LOOP, timeout_s=2))
    cpp_good = '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n'
    cpp_wrong = '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a-b<<"\\n";}\n'
    batch += [compiled_request("cpp", cpp_good), compiled_request("cpp", cpp_wrong)]
    java_loop = """
        public class Main {
            static volatile long spin;
            public static void main(String[] args) { while (true) { spin++; } }
        }
        """
    java_good = """
        import java.util.Scanner;
        public class Main {
            public static void main(String[] args) {
                Scanner in = new Scanner(System.in);
                System.out.println(in.nextLong() + in.nextLong());
            }
        }
        """
    java_loop_request = compiled_request("java", java_loop, timeout_s=4.0)
    batch += [java_loop_request, compiled_request("java", java_good)]
    return batch


def test_hostile_samples_leave_their_neighbours_verdicts_as_they_are(level, cgroup_layout):
    """30 ordinary samples alone, then interleaved (one in every six samples) with fork
    bombs in three languages, a memory hog and a CPU burner: the ordinary samples' verdicts
    are identical, and the machine never gave the run more processes than the budgets
    allow."""
    if shutil.which("g++") is None or shutil.which("javac") is None:
        pytest.fail("the neighbour test needs g++ and a JDK (.ci/run installs them)")
    ordinary = _ordinary()
    assert len(ordinary) == 30
    ex = create_executor("sandbox", workers=WORKERS, isolation=level, budget_mb=1024)
    try:
        alone = _statuses(ex.run_many(ordinary))
        hostile = [BOMBS["python"](), BOMBS["cpp"](), BOMBS["java"]()]
        hostile += [call_request(PY_MEMORY_HOG, timeout_s=6), call_request(PY_CPU_BURNER, 4)]
        mixed: list[ExecutionRequest] = []
        for i, req in enumerate(ordinary):
            if i % 6 == 0:
                mixed.append(hostile[i // 6])
            mixed.append(req)
        with TreeSampler() as sampler:
            results = ex.run_many(mixed)
        beside = _statuses([r for r, req in zip(results, mixed, strict=True) if req in ordinary])
        assert beside == alone
        assert all(
            r.status is not Status.PASSED
            for r, req in zip(results, mixed, strict=True)
            if req not in ordinary
        )
        assert sampler.most_processes <= PROCESS_CEILING, sampler.most_processes
        counts = {s for s, _ in alone}
        assert {Status.PASSED, Status.FAILED, Status.ERROR, Status.TIMEOUT} <= counts
    finally:
        ex.close()
    assert descendants(os.getpid()) - sampler.baseline == set()  # nothing of the run is left


# -- where no cgroup can be made: the fallback, forced ------------------------------------


@pytest.fixture
def no_cgroups(tmp_path, monkeypatch):
    """A cgroup mount with nothing in it: this process can create no cgroup."""
    monkeypatch.setenv("BEYONDPASS_CGROUP_ROOT", str(tmp_path))
    assert cgroups.layout() == "none"


def test_without_cgroups_root_is_refused_unless_the_user_accepts(level, no_cgroups):
    if os.getuid() != 0:  # a non-root user: RLIMIT_NPROC binds, and is what is used
        budget = choose_budget("auto", level, 1024)
        assert budget.mechanism == "nproc"
        return
    with pytest.raises(ConfigError, match="--process-budget none"):
        choose_budget("auto", level, 1024)
    with pytest.raises(ConfigError, match="RLIMIT_NPROC does not bind for root"):
        create_executor("sandbox", workers=1, isolation=level, process_budget="nproc")
    with pytest.raises(ConfigError, match="no cgroup budget here"):
        choose_budget("cgroup", level, 1024)


def test_an_accepted_unbounded_run_says_so_and_still_runs(level, no_cgroups):
    ex = ExecutorChoice(isolation=level, process_budget="none").build(workers=1)
    try:
        budget = ex.metadata()["process_budget"]
        assert budget["mechanism"] == "none" and budget["accepted_by_user"] is True
        assert ex.run(call_request(GOOD)).status is Status.PASSED
        assert ex.run(call_request(WRONG)).status is Status.FAILED
    finally:
        ex.close()


def test_the_cli_refuses_before_running_anything(run_cli, tmp_path, level, no_cgroups):
    if os.getuid() != 0:
        pytest.skip("a non-root user has RLIMIT_NPROC: nothing to refuse")
    samples = tmp_path / "answers.jsonl"
    samples.write_text('{"task_id": "demo/add", "completion": "    return 1\\n"}\n')
    out = tmp_path / "out"
    done = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", samples, "--out", out],
        cwd=tmp_path,
        env={"BEYONDPASS_CGROUP_ROOT": os.environ["BEYONDPASS_CGROUP_ROOT"]},
    )
    assert done.returncode == 2, done.stderr
    assert "no process budget binds here" in done.stderr
    assert "Traceback" not in done.stderr


# -- one end-of-case rule for every language -----------------------------------------------

DAEMONS = {
    "python": (
        "python",
        """
        import os, time
        a, b = map(int, input().split())
        print(a + b, flush=True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(30)
            os._exit(0)
        """,
    ),
    "cpp": (
        "cpp",
        """
        #include <iostream>
        #include <unistd.h>
        int main() { long a, b; std::cin >> a >> b; std::cout << a + b << std::endl;
          if (fork() == 0) { setsid(); if (fork() == 0) sleep(30); _exit(0); }
          return 0; }
        """,
    ),
    "java": (
        "java",
        """
        import java.util.Scanner;
        public class Main {
            public static void main(String[] args) throws Exception {
                Scanner in = new Scanner(System.in);
                System.out.println(in.nextLong() + in.nextLong());
                System.out.flush();
                new ProcessBuilder("/bin/sleep", "30").inheritIO().start();
            }
        }
        """,
    ),
}


@pytest.mark.parametrize("name", sorted(DAEMONS))
def test_a_case_ends_when_the_program_ends_whatever_it_leaves(level, name):
    """The right answer, then a daemon that holds the output open for 30 s: the case ends
    with the program's own process and passes, in every language; the daemon is killed."""
    language, program = DAEMONS[name]
    if language == "python":
        req = ExecutionRequest(
            program=textwrap.dedent(program),
            tests=IO_TESTS,
            limits=ExecutionLimits(timeout_s=20, test_timeout_s=10),
        )
    else:
        limits = ExecutionLimits(timeout_s=20, test_timeout_s=10)
        req = languages.io_request(language, textwrap.dedent(program), IO_TESTS, limits)
    ex = create_executor("sandbox", workers=1, isolation=level)
    try:
        result = ex.run(req)
    finally:
        ex.close()
    assert result.status is Status.PASSED, (result.status, result.message)


# -- one status rule for a sample whose budget ran out part-way ----------------------------


def test_an_earlier_failure_decides_when_the_budget_runs_out_later(level):
    program = "def inc(x):\n    if x == 1:\n        return 0\n    while True:\n        pass\n"
    ex = create_executor("sandbox", workers=1, isolation=level)
    try:
        result = ex.run(call_request(program, timeout_s=2))
    finally:
        ex.close()
    assert [t.status for t in result.tests][:1] == [Status.FAILED]
    assert result.status is Status.FAILED, result.message
    assert result.message.startswith("test a:")


def test_the_first_non_passing_test_decides_for_every_early_end():
    req = call_request(GOOD)
    first_failed = [{"name": "a", "status": "failed", "error_type": "AssertionError"}]
    for kind in ("timeout", "gone", "protocol"):
        report = {"tests": first_failed, "over": {"kind": kind, "test": "b"}, "exit": {}}
        assert verdict(report, req).status is Status.FAILED, kind
    timed_out_first = {"tests": [], "over": {"kind": "timeout", "test": "a"}, "exit": {}}
    assert verdict(timed_out_first, req).status is Status.TIMEOUT


# -- a launch that meets a full budget ---------------------------------------------------------

#: the compiled runner's launch in a process of its own: ``serve`` as the fork server's child
#: runs it, for a one-test launch of ``/bin/sh -c 'echo ran'``
LAUNCH = """
import socket, sys
sys.path.insert(0, sys.argv[1])
import compiled_runner
compiled_runner.FORK_RETRY_S = float(sys.argv[2])
ours, judge = socket.socketpair()
job = {"launch": {"command": ["/bin/sh", "-c", "echo ran"]}, "stdin": ""}
compiled_runner.serve(job, ours, "/tmp", "/tmp", lambda text: None)
"""


def _launch_in(budget, retry_s: float) -> subprocess.Popen[str]:
    from beyondpass.execution.sandbox_executor import HERE

    command = budget.wrap([sys.executable, "-I", "-c", LAUNCH, str(HERE), str(retry_s)])
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/tmp"
    )


def test_a_launch_that_meets_a_full_budget_waits_and_never_speaks_for_the_program(
    cgroup_layout,
):
    """A compiled program's process is forked by the runner after it said ``ready``: a fork
    the budget refuses (the processes of the sample before can still be dying) used to
    raise, and the process ended with status 0 and no output — judged as the program's
    wrong answer. Now the fork is retried while the budget is full, and a fork that never
    frees up ends as a start that failed (127, and why), never as the program."""
    budget = cgroups.create_budget(1, 256)  # room for the runner's process alone
    assert budget is not None
    try:
        stuck = _launch_in(budget, 0.5)
        out, err = stuck.communicate(timeout=60)
        assert (stuck.returncode, out) == (127, "")
        assert "cannot start the program: fork failed" in err
        # the budget frees up while the runner waits: the program runs, its status is its own
        waiting = _launch_in(budget, 30)
        time.sleep(1.0)  # the runner is retrying its fork meanwhile (not a timing assertion)
        (budget.counter / "pids.max").write_text("8")
        out, err = waiting.communicate(timeout=60)
        assert (waiting.returncode, out) == (0, "ran\n"), err
    finally:
        budget.close()


def _processes_of(uid: int) -> int:
    """How many processes ``uid`` runs now; one that ends while we look is not counted."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            count += entry.stat().st_uid == uid
        except FileNotFoundError:
            continue
    return count


def test_the_nproc_budget_is_set_before_the_sandbox_starts_and_binds_for_its_user():
    """The ``nproc`` mechanism (a non-root user's budget) wraps each sandbox in a launcher
    that sets ``RLIMIT_NPROC`` and then becomes the sandbox: every process it starts keeps
    the limit. Here the launcher runs a program as an unprivileged uid (util-linux
    ``setpriv``; the limit does not bind for root) that forks until refused."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if os.getuid() != 0 or shutil.which("setpriv") is None or python is None:
        pytest.skip("needs root, setpriv and a system python3 to switch to an unprivileged uid")
    forks = (
        "import os, time\n"
        "kids = []\n"
        "while len(kids) < 200:\n"
        "    try:\n"
        "        kid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if kid == 0:\n"
        "        time.sleep(5)\n"
        "        os._exit(0)\n"
        "    kids.append(kid)\n"
        "print(len(kids), flush=True)\n"
        "for kid in kids:\n"
        "    os.kill(kid, 9)\n"
    )
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    limit = _processes_of(65534) + 12  # the uid may already run sandboxes of other tests
    assert limit < 200

    def forked(limit: int) -> int:
        command = ProcessLimit(limit).wrap([*as_nobody, python, "-c", forks])
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=60, start_new_session=True
        )
        return int(done.stdout.split()[0])

    # refused at the limit: the uid's processes, this one included, never exceed it
    assert forked(limit) < limit
    assert forked(1 << 30) == 200  # a limit above the hard one: the hard one, not an error
