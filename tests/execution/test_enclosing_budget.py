"""A budget where beyondpass cannot make cgroups: the limits of the cgroup it runs in.

A default container gives root a read-only cgroup tree, and usually limits of its own
(``docker run --pids-limit N --memory M``): its cgroup's ``pids.max`` and ``memory.max``.
Those are accepted as the run's budget when the probe shows a sandbox's processes are in
that cgroup and both limits are set within their ceilings.

Two settings:

- **cgroup v1, for real** (these machines): as root, the test makes a ``pids`` cgroup with
  ``pids.max = 512`` and a ``memory`` cgroup with a 4 GiB limit, starts the CLI in them
  inside a private mount namespace whose cgroup mounts are remounted read-only — what a
  container's runtime does — and runs ``demo`` and ``evaluate`` there, a fork bomb among
  the answers.
- **cgroup v2, an imitation**: this kernel mounts v1, so the v2 files are a directory tree
  the test writes (``cgroup.controllers``, ``cgroup.subtree_control``, ``cgroup.procs``,
  ``pids.max``, ``pids.current``, ``memory.max``, ``cgroup.kill``) and points
  ``BEYONDPASS_CGROUP_ROOT`` at. It exercises how the v2 layout is read, chosen and written,
  not what the kernel does with it; docs/sandbox.md lists what stays unverified on a real
  v2 kernel.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from test_sandbox_budget import Sampler

from beyondpass.errors import ConfigError
from beyondpass.execution import ExecutionResult, Status, cgroups
from beyondpass.execution.budget import ENCLOSING_MAX_TASKS, choose_budget
from beyondpass.execution.launch import Sandboxes
from beyondpass.execution.sandbox import level_works
from beyondpass.execution.shared_budget import JUDGED_ALONE, SharedBudget
from beyondpass.store.run_store import RunStore

CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="module")
def level() -> str:
    if level_works("bwrap"):
        return "bwrap"
    if CI:
        pytest.fail("CI must run the bwrap sandbox: install bubblewrap")
    return "unshare" if level_works("unshare") else "process"


# -- cgroup v2: an imitation of the files ---------------------------------------------------

V2_FILES = {
    "cgroup.controllers": "cpuset cpu io memory hugetlb pids rdma misc\n",
    "cgroup.subtree_control": "\n",  # a container cannot enable controllers below itself
    "cgroup.procs": "",
    "cgroup.kill": "",
    "pids.max": "512\n",
    "pids.current": "9\n",  # what the kernel would count: the test process and a few more
    "memory.max": f"{2 << 30}\n",
}


@pytest.fixture
def v2(tmp_path, monkeypatch) -> Path:
    """An imitation of a container's v2 cgroup mount (this process's cgroup is its root,
    as under a private cgroup namespace, where ``/proc/self/cgroup`` says ``0::/``)."""
    root = tmp_path / "cgroup"
    root.mkdir()
    for name, text in V2_FILES.items():
        (root / name).write_text(text)
    (root / "cgroup.procs").write_text(f"{os.getpid()}\n")
    monkeypatch.setenv("BEYONDPASS_CGROUP_ROOT", str(root))
    assert cgroups.own_paths("self").get("") == "/", "this kernel lists no unified cgroup"
    return root


def test_a_v2_container_cgroup_with_both_limits_is_the_budget(v2, level):
    assert cgroups.layout() == "none"  # nothing can be created below it
    budget = choose_budget("auto", level, 1024)
    record = budget.describe()
    assert (record["mechanism"], record["layout"]) == ("enclosing", "v2")
    assert (record["run_tasks"], record["run_memory_mb"]) == (512, 2048)
    assert record["cgroups"] == {"": "/"}
    assert record["verified"].startswith("probe: all ") and "were inside it" in record["verified"]


def test_the_tightest_limit_on_the_way_up_is_the_one_that_holds(tmp_path):
    top = tmp_path / "top"
    leaf = top / "system.slice" / "job"
    leaf.mkdir(parents=True)
    (top / "pids.max").write_text("300\n")
    (top / "system.slice" / "pids.max").write_text("max\n")
    (leaf / "pids.max").write_text("1000\n")
    assert cgroups._tightest(cgroups._upward(leaf, top), "pids.max") == 300
    (top / "pids.max").write_text("max\n")
    assert cgroups._tightest(cgroups._upward(leaf, top), "pids.max") == 1000
    (leaf / "pids.max").write_text("max\n")
    assert cgroups._tightest(cgroups._upward(leaf, top), "pids.max") is None


@pytest.mark.parametrize(
    ("file", "text", "why"),
    [
        ("pids.max", "max\n", "sets no task limit"),
        ("pids.max", f"{ENCLOSING_MAX_TASKS + 1}\n", f"more than {ENCLOSING_MAX_TASKS}"),
        ("memory.max", "max\n", "no memory limit"),
        ("memory.max", f"{1 << 50}\n", "no memory limit below the machine's memory"),
    ],
)
def test_a_container_cgroup_without_a_binding_limit_is_refused_with_what_to_add(
    v2, level, file, text, why
):
    (v2 / file).write_text(text)
    if os.getuid() != 0:  # a non-root user: RLIMIT_NPROC binds, and is what auto takes
        assert choose_budget("auto", level, 1024).mechanism == "nproc"
        return
    with pytest.raises(ConfigError) as refused:
        choose_budget("auto", level, 1024)
    message = str(refused.value)
    assert why in message and "--pids-limit" in message and "--process-budget none" in message
    assert "\n" not in message
    with pytest.raises(ConfigError, match=f"^no enclosing budget here: .*{why}"):
        choose_budget("enclosing", level, 1024)


def _kernel_mkdir(made: list[Path]):
    """What the kernel does on ``mkdir`` in a v2 tree with pids and memory enabled: the new
    cgroup's interface files appear (the imitation's only stand-in for the kernel)."""
    real = Path.mkdir

    def mkdir(self: Path, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        if self.name.startswith(cgroups.PREFIX):
            for name in ("cgroup.procs", "cgroup.kill", "pids.current"):
                (self / name).write_text("")
            for name in ("pids.max", "memory.max", "memory.swap.max"):
                (self / name).write_text("max\n")
            made.append(self)

    return mkdir


def test_a_delegated_v2_tree_gets_a_cgroup_per_sandbox_written_as_v2_expects(
    v2, level, monkeypatch
):
    (v2 / "cgroup.subtree_control").write_text("memory pids\n")
    made: list[Path] = []
    monkeypatch.setattr(Path, "mkdir", _kernel_mkdir(made))
    assert cgroups.layout() == "v2"
    budget = cgroups.create_budget(128, 512)
    assert budget is not None and budget.layout == "v2" and made == budget.dirs
    cgroup = budget.dirs[0]
    assert cgroup.parent == v2
    written = {n: (cgroup / n).read_text() for n in ("pids.max", "memory.max", "memory.swap.max")}
    assert written == {"pids.max": "128", "memory.max": str(512 << 20), "memory.swap.max": "0"}
    # the launcher's shell writes its own pid into cgroup.procs, then becomes the command
    done = subprocess.run(budget.wrap(["/bin/sh", "-c", "echo $$"]), capture_output=True)
    assert done.returncode == 0
    assert (cgroup / "cgroup.procs").read_text().split() == done.stdout.decode().split()
    budget.kill()
    assert (cgroup / "cgroup.kill").read_text() == "1"


def test_an_imitation_that_holds_no_process_is_refused_by_the_probe(v2, level, monkeypatch):
    """The files say a cgroup was made and joined, but no process is really in it (the
    imitation's cgroup.procs lists only what was written to it): the probe, which looks at
    every process of the sandbox from outside, refuses it — a cgroup is never assumed."""
    (v2 / "cgroup.subtree_control").write_text("memory pids\n")
    monkeypatch.setattr(Path, "mkdir", _kernel_mkdir([]))
    monkeypatch.setattr(cgroups, "CLOSE_PATIENCE_S", 0.2)  # the imitation never empties
    with pytest.raises(ConfigError, match=r"the cgroup budget does not hold \(.* outside it\)"):
        choose_budget("cgroup", level, 1024)
    # auto then falls back to the container's own limits, still verified
    assert choose_budget("auto", level, 1024).mechanism in ("enclosing", "nproc")


# -- one budget for every sandbox: a neighbour's verdict is not the bomb's to decide ----------
# (on the v2 imitation: the test writes the counters the kernel would raise)


def _meet(cgroup: Path, events: str, counter: str) -> None:
    """What the kernel does when a fork is refused (``pids.events max``) or a process is
    killed at the memory limit (``memory.events oom_kill``) in the shared cgroup."""
    path = cgroup / events
    old = cgroups._event(path, counter) if path.exists() else 0
    path.write_text(f"{counter} {old + 1}\n")


def _result(status: Status, message: str = "") -> ExecutionResult:
    return ExecutionResult(status=status, message=message)


@pytest.mark.parametrize("events, counter", [("pids.events", "max"), ("memory.events", "oom_kill")])
def test_a_sample_that_fails_while_the_shared_limit_is_met_is_judged_again(v2, events, counter):
    enclosure = cgroups.enclosing()
    assert isinstance(enclosure, cgroups.Enclosing) and enclosure.pids_dirs == (v2,)
    shared = SharedBudget(enclosure)
    verdicts = iter([_result(Status.TIMEOUT, "exceeded 5 s"), _result(Status.PASSED)])

    def starved_once() -> ExecutionResult:
        _meet(v2, events, counter)  # a neighbour's fork bomb, while this sample ran
        return next(verdicts)

    assert shared.judge(starved_once).status is Status.PASSED
    # judged again and still failing: the message says why it ran twice
    again = shared.judge(lambda: (_meet(v2, events, counter), _result(Status.FAILED, "t0"))[1])
    assert (again.status, again.message) == (Status.FAILED, f"t0 ({JUDGED_ALONE})")


def test_a_pass_or_a_failure_with_the_limit_never_met_is_judged_once(v2):
    shared = SharedBudget(cgroups.enclosing())
    calls: list[Status] = []

    def once(status: Status, meet: bool) -> ExecutionResult:
        calls.append(status)
        if meet:
            _meet(v2, "pids.events", "max")
        return _result(status, "as it ran")

    assert shared.judge(lambda: once(Status.PASSED, True)).message == "as it ran"
    assert shared.judge(lambda: once(Status.FAILED, False)).message == "as it ran"
    assert calls == [Status.PASSED, Status.FAILED]


def test_a_sample_judged_again_runs_alone_and_first(v2):
    """A starved sample waits for the sample in flight beside it, and a sample that had not
    started yet waits for it: nothing runs beside the second judgement."""
    shared = SharedBudget(cgroups.enclosing())
    running: list[str] = []
    order: list[str] = []
    alone: list[bool] = []
    beside_started, release_beside = threading.Event(), threading.Event()
    attempts = iter(["first", "alone"])

    def run(name: str, body) -> threading.Thread:
        def judged() -> ExecutionResult:
            running.append(name)
            order.append(name)
            try:
                return body()
            finally:
                running.remove(name)

        thread = threading.Thread(target=shared.judge, args=(judged,))
        thread.start()
        return thread

    def starved() -> ExecutionResult:
        if next(attempts) == "first":
            _meet(v2, "pids.events", "max")
            return _result(Status.TIMEOUT)
        alone.append(running == ["starved"])
        return _result(Status.PASSED)

    def beside() -> ExecutionResult:
        beside_started.set()
        assert release_beside.wait(30)
        return _result(Status.PASSED)

    threads = [run("beside", beside)]
    assert beside_started.wait(30)
    threads.append(run("starved", starved))
    deadline = time.monotonic() + 30
    while shared.turns._waiting_alone == 0 and time.monotonic() < deadline:
        time.sleep(0.01)  # the starved sample now waits for its turn alone
    threads.append(run("later", lambda: _result(Status.PASSED)))
    release_beside.set()
    for thread in threads:
        thread.join(30)
    assert order == ["beside", "starved", "starved", "later"] and alone == [True]


# -- cgroup v1, for real: a container's limits, made by the test ----------------------------

ENCLOSED_TASKS = 512
ENCLOSED_MEMORY = 4 << 30
#: joins the two cgroups, makes every cgroup mount read-only in a private mount namespace
#: (a container's view), then runs the command
ENCLOSE = textwrap.dedent(
    """\
    echo $$ > "$1/cgroup.procs" && echo $$ > "$2/cgroup.procs" || exit 97
    for point in $(awk '/ - cgroup2? / { print $5 }' /proc/self/mountinfo); do
        mount -o remount,bind,ro "$point" || exit 98
    done
    shift 2
    exec "$@"
    """
)


@pytest.fixture(scope="module")
def enclosure():
    """A v1 ``pids`` cgroup with pids.max = 512 and a ``memory`` cgroup with a 4 GiB limit,
    made by the test (root), removed afterwards with whatever is left in them."""
    if os.getuid() != 0 or cgroups.layout() != "v1" or not Path("/usr/bin/unshare").exists():
        if CI:
            pytest.fail("CI runs as root on cgroup v1 with unshare: the enclosure is tested")
        pytest.skip("needs root, a writable cgroup v1 tree and unshare")
    name = f"bp-enclosure-{os.getpid()}"
    pids = cgroups.root() / "pids" / name
    memory = cgroups.root() / "memory" / name
    pids.mkdir()
    memory.mkdir()
    try:
        (pids / "pids.max").write_text(str(ENCLOSED_TASKS))
        (memory / "memory.limit_in_bytes").write_text(str(ENCLOSED_MEMORY))
        yield pids, memory
    finally:
        for path in (pids, memory):
            cgroups._kill_members(path)
            with contextlib.suppress(OSError):
                path.rmdir()


def enclosed(enclosure, args: list[str], cwd: Path, timeout: float = 300):
    """``python -m beyondpass ARGS`` inside the enclosure, its cgroup tree read-only."""
    pids, memory = enclosure
    env = {k: v for k, v in os.environ.items() if k != "BEYONDPASS_CGROUP_ROOT"}
    command = [sys.executable, "-m", "beyondpass", *args]
    script = ["unshare", "--mount", "--propagation", "private", "sh", "-c", ENCLOSE]
    return subprocess.run(
        [*script, "enclose", str(pids), str(memory), *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _budget_of(run_dir: Path) -> dict:
    with RunStore(run_dir, create=False) as store:
        return store.get_meta("executor")["process_budget"]


def _recorded_as_the_enclosure(budget: dict, enclosure) -> None:
    pids, memory = enclosure
    assert budget["mechanism"] == "enclosing" and budget["layout"] == "v1", budget
    assert budget["run_tasks"] == ENCLOSED_TASKS
    assert budget["run_memory_mb"] == ENCLOSED_MEMORY >> 20
    assert budget["cgroups"] == {"pids": f"/{pids.name}", "memory": f"/{memory.name}"}
    assert "were inside it" in budget["verified"]


#: a small study of every verdict (two replayed models on the demo tasks): what ``run``
#: records in an enclosure does not depend on the study's size
TWO_MODELS = Path(__file__).parents[1] / "data" / "two-models" / "study.toml"


def test_a_run_in_a_container_with_limits_records_them(enclosure, tmp_path):
    out = tmp_path / "run"
    done = enclosed(enclosure, ["run", str(TWO_MODELS), "--out", str(out), "--json"], tmp_path)
    assert done.returncode in (0, 1), done.stderr[-2000:]  # its sloppy model fails tests
    assert "Traceback" not in done.stderr
    _recorded_as_the_enclosure(_budget_of(out), enclosure)
    summary = json.loads(done.stdout)
    assert summary["complete"] and summary["samples_scored"] == summary["samples_expected"]


FORK_BOMB = """\
    import os
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""
ANSWERS = {
    "right": "    return a + b\n",
    "wrong": "    return a - b\n",
    "raises": "    raise ValueError(a)\n",
    "bomb": FORK_BOMB,
}
ORDINARY = ("right", "wrong", "raises")


def _answers(path: Path) -> list[str]:
    """A fork bomb between ordinary answers, each ordinary one twice (before and after)."""
    order = ["right", "wrong", "raises", "bomb", "right", "wrong", "raises"]
    rows = [{"task_id": "demo/add", "completion": ANSWERS[k]} for k in order]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return order


def _statuses(out: Path) -> list[str]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return [r["status"] for r in rows]


class PeakTasks(Sampler):
    """The enclosure's ``pids.current``, sampled from outside: the most tasks it held."""

    def __init__(self, pids: Path) -> None:
        super().__init__()
        self.file = pids / "pids.current"
        self.peak = 0

    def sample(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.peak = max(self.peak, int(self.file.read_text()))


def test_a_fork_bomb_is_contained_by_the_enclosure_and_ordinary_verdicts_hold(enclosure, tmp_path):
    pids, _ = enclosure
    samples = tmp_path / "answers.jsonl"
    order = _answers(samples)
    args = ["evaluate", "--benchmark", "demo", "--samples", str(samples), "--timeout", "5"]
    # what the ordinary answers get wherever they run, the bomb beside them or not: the demo
    # task's own verdicts (one starved by the bomb is judged again alone)
    expected = {"right": "passed", "wrong": "failed", "raises": "error"}
    events_before = int((pids / "pids.events").read_text().split()[1])
    with PeakTasks(pids) as peak:
        done = enclosed(enclosure, [*args, "--out", str(tmp_path / "enclosed")], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    _recorded_as_the_enclosure(_budget_of(tmp_path / "enclosed"), enclosure)
    statuses = _statuses(tmp_path / "enclosed")
    assert len(statuses) == len(order), statuses
    for kind, got in zip(order, statuses, strict=True):
        if kind in ORDINARY:
            assert got == expected[kind], (kind, statuses)
        else:
            assert got in ("timeout", "killed", "error"), statuses
    # the bomb met the enclosure's limit (the kernel refused forks there), and nothing of
    # the run runs on in it: what is left has exited (a sandbox's namespace init, orphaned
    # when its bubblewrap was killed, waits for the machine's init to collect it)
    assert int((pids / "pids.events").read_text().split()[1]) > events_before
    assert peak.peak <= ENCLOSED_TASKS
    left = [int(p) for p in (pids / "cgroup.procs").read_text().split()]
    assert [pid for pid in left if _state(pid) not in ("Z", "gone")] == []
    deadline = time.monotonic() + 60  # the machine's init collects them: none stays
    while (pids / "pids.current").read_text().strip() != "0" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (pids / "pids.current").read_text().strip() == "0"


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat[stat.rindex(")") + 2]


def test_sandboxes_in_the_enclosure_run_only_inside_it(enclosure, tmp_path):
    """In-process check of the same: a Sandboxes object made inside the enclosure (here,
    by a child process placed there) reports the enclosing budget and runs a sample."""
    script = textwrap.dedent(
        """
        import json
        from beyondpass.benchmarks.task import TestCase
        from beyondpass.execution import ExecutionLimits, ExecutionRequest, create_executor
        ex = create_executor("sandbox", workers=1)
        req = ExecutionRequest("def add(a, b):\\n    return a + b\\n",
                               (TestCase("a", "assert add(1, 2) == 3"),),
                               limits=ExecutionLimits(timeout_s=10))
        print(json.dumps([ex.run(req).status.value, ex.metadata()["process_budget"]]))
        ex.close()
        """
    )
    pids, memory = enclosure
    done = subprocess.run(
        ["unshare", "--mount", "sh", "-c", ENCLOSE, "x", str(pids), str(memory)]
        + [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, budget = json.loads(done.stdout.splitlines()[-1])
    assert status == "passed"
    _recorded_as_the_enclosure(budget, enclosure)


def test_outside_the_enclosure_the_same_machine_keeps_its_own_cgroups(level):
    """The enclosing cgroup is taken only where none can be made: here (root, writable v1)
    auto still makes a cgroup per sandbox."""
    if os.getuid() != 0 or cgroups.layout() == "none":
        pytest.skip("no writable cgroup tree here")
    assert Sandboxes(level, announce=False).budget.mechanism == "cgroup"
