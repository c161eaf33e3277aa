"""Candidate fork server: one warm interpreter per worker that forks a process per sample.

Runs inside the candidate sandbox (``bwrap``: no network, read-only system, private
``/tmp``, its own PID namespace) as ``python -s -P fork_server.py CONTROL_FD``. It
never sees a test, nor even a program: ahead of each sample it forks a child that starts a
new session, gets an empty stdin, stdout/stderr into files, a private scratch directory,
every other descriptor closed, and then waits on a fresh socket pair whose other end goes
to the judge over the control socket. The judge sends the child its program, limits and
seed directly; the child sets its rlimits and a seeded ``random`` and serves the judge
(:mod:`candidate_host`).

When the judge ends the sample, the zygote kills the child's process group and — in its
own PID namespace — every other process left behind (daemonised grandchildren included),
so nothing outlives its sample, and reports the child's exit status and output tails.

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import base64
import contextlib
import ctypes
import gc
import json
import os
import random
import resource
import shutil
import signal
import socket
import stat
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import candidate_host  # noqa: E402 - after the path set-up, by design
import compiled_runner  # noqa: E402
import patient_fork  # noqa: E402
import wire  # noqa: E402

#: Modules most candidates import, loaded once here instead of once per sample. Kept short:
#: every page this process holds makes each fork slower (a heavy, rarely used module such
#: as hashlib or statistics costs more in forks than its import costs the few that use it).
PRELOAD = (
    "bisect",
    "collections",
    "copy",
    "functools",
    "heapq",
    "itertools",
    "math",
    "operator",
    "re",
    "string",
    "typing",
)
TAIL_BYTES = 4000
EXIT_WAIT_S = 2.0  # a process whose channel closed is exiting: time to collect its status
CLEAR_PATIENCE_S = 30.0  # a killed sample's processes are gone long before, even under load
HARNESS_FAILED = 125  # the exit status of a sample's process whose own set-up failed


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    set_not_dumpable()
    # a sample's orphaned descendants come to this process, not to the namespace's init:
    # it reaps them, so the CPU time they used is accounted to the sample (io_timing.py)
    _LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    config = json.loads(wire.recv_frame(ctl))
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    gc.collect()
    gc.freeze()  # children's collections then skip the preloaded objects: fewer copied pages
    own_ns = bool(config.get("own_pid_namespace")) and os.getpid() < 16
    os.environ.clear()
    os.environ.update(config["env"])
    scratch = Scratch(config["scratch"])
    wire.send_frame(ctl, {"ready": True, "pid": os.getpid(), "own_pid_namespace": own_ns})
    while True:
        # The next sample's process is forked, set up and handed to the judge while the
        # judge is between samples: a sample starts with a process that already waits for
        # its program, which the judge sends it directly.
        if not serve_sample(ctl, _spare(ctl, config, scratch), own_ns, scratch):
            return


class Scratch:
    """Where samples may write: a working directory and two output files under ``root``.

    Everything under ``root`` that the sandbox did not put there is the sample's to write
    (same user), so after each sample it is checked: anything but the working directory,
    ``logs`` and the two output files is removed, and a directory the sample made
    undeletable is abandoned for a fresh one. No sample ever sees another's files.

    What the sandbox put under ``root`` before any sample ran — read-only binds, such as
    a Python installation under ``/tmp``, and the directories holding them — is left as
    it is: clean-up never walks into another file system (a sample cannot write there),
    and looks only for strays in those directories.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self.seq = 0
        self.logs = os.path.join(root, "logs")
        self.stdout = os.path.join(self.logs, "stdout")
        self.stderr = os.path.join(self.logs, "stderr")
        # directory -> the names it held at start, for every directory on root's file system
        self.fixed = _skeleton(root, os.stat(root).st_dev)
        os.mkdir(self.logs, 0o700)
        # a compiled program's build (made by its compile step), kept across its tests'
        # processes while the judge says so, else removed as a stray
        self.build = os.path.join(root, "build")
        self.work = self._fresh()
        self.known = frozenset({os.path.basename(self.work), "logs"})

    def _fresh(self) -> str:
        self.seq += 1
        path = os.path.join(self.root, f"w{self.seq}")
        os.mkdir(path, 0o700)
        # set once here, inherited by every sample's process (cheaper than per fork)
        os.environ.update({"HOME": path, "TMPDIR": path})
        return path

    def clean(self, keep_build: bool = False) -> None:
        keep = self.known | {"build"} if keep_build else self.known
        if set(_entries(self.root)) != keep | self.fixed[self.root]:
            self._remove_strays(keep)
        for directory, names in self.fixed.items():
            if directory != self.root and set(_entries(directory)) != names:
                _remove(directory, names)
        if _entries(self.work):
            shutil.rmtree(self.work, ignore_errors=True)
            if os.path.lexists(self.work):
                self.work = self._fresh()  # made undeletable: abandon it
                self.known = frozenset({os.path.basename(self.work), "logs"})
            else:
                os.mkdir(self.work, 0o700)
        if set(_entries(self.logs)) - {"stdout", "stderr"} or os.path.islink(self.stdout):
            shutil.rmtree(self.logs, ignore_errors=True)
            os.makedirs(self.logs, 0o700, exist_ok=True)

    def _remove_strays(self, keep: frozenset) -> None:
        _remove(self.root, keep | self.fixed[self.root])
        for name in self.known:  # replaced by a file or a link: start over
            path = os.path.join(self.root, name)
            if os.path.islink(path) or not os.path.isdir(path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
                os.makedirs(path, 0o700, exist_ok=True)


def _skeleton(root: str, dev: int) -> dict:
    """Every directory under ``root`` on file system ``dev`` -> the names it holds now."""
    fixed = {}
    pending = [root]
    while pending:
        directory = pending.pop()
        names = _entries(directory)
        fixed[directory] = frozenset(names)
        for name in names:
            path = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode) and st.st_dev == dev:
                    pending.append(path)
    return fixed


def _remove(directory: str, keep: frozenset) -> None:
    """Remove every entry of ``directory`` not in ``keep``."""
    for name in _entries(directory):
        if name in keep:
            continue
        path = os.path.join(directory, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _entries(path: str) -> list:
    try:
        return os.listdir(path)
    except OSError:
        return []


_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 4, 24, 36, 38
_CAPABILITY_VERSION_3 = 0x20080522


def set_not_dumpable() -> None:
    """PR_SET_DUMPABLE 0: a process without CAP_SYS_PTRACE cannot trace this one or read
    its memory."""
    _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def drop_capabilities() -> None:
    """Give up every capability (and the right to regain any through exec).

    Needed where the sandbox runs as root of its own user namespace (``unshare`` level):
    there the program would otherwise hold CAP_SYS_PTRACE, CAP_KILL and friends over the
    fork server and every other process of the namespace.
    """
    for cap in range(64):
        _LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    _LIBC.capset(header, (ctypes.c_uint32 * 6)())
    _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _spare(ctl: socket.socket, config: dict, scratch: Scratch) -> tuple:
    """Fork the next sample's process: set up, waiting for its program on its socket."""
    ours, theirs = socket.socketpair()
    pid, _ = patient_fork.fork(time.monotonic() + patient_fork.RETRY_S)
    if pid == 0:  # the sample's process
        status = 0
        try:
            ours.close()
            _child(config, scratch, theirs, ctl)
        except BaseException as exc:  # the harness's own code failed here, not the program:
            # never a silent status 0, which an I/O test would judge by its (empty) output
            status = HARNESS_FAILED
            with contextlib.suppress(OSError):
                os.write(2, f"\nthe sample's process failed: {exc!r}\n".encode())
        finally:
            os._exit(status)
    theirs.close()
    return pid, ours


def serve_sample(ctl: socket.socket, spare: tuple, own_ns: bool, scratch: Scratch) -> bool:
    """Hand the spare process's channel to the judge; when the judge ends the sample, kill
    what is left of it and report. False when the judge is gone."""
    pid, ours = spare
    _reap()  # what an earlier sample left dying is not this sample's CPU time
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)  # reaped processes only
    if pid < 0:
        socket.send_fds(ctl, [b"E"], [])
    else:
        socket.send_fds(ctl, [b"F"], [ours.fileno()])
        ours.close()
    try:
        end = json.loads(wire.recv_frame(ctl))
    except (wire.PeerGone, ValueError):
        end = {}
    returncode, still_running = None, False
    if pid > 0:
        # the judge saw the channel close: the process is exiting, give it time to finish
        done, status = _wait_briefly(pid, EXIT_WAIT_S if end.get("closed") else 0.0)
        still_running = done == 0
        if not still_running:  # ended on its own: its exit status explains an early end
            returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        _kill(pid, own_ns)  # nothing of the sample runs on once it has ended
    cpu_ns = None
    if end.get("cpu") is True:  # a timing run: reap all of the sample first, then account
        if pid > 0 and still_running:
            os.waitpid(pid, 0)
            still_running = False
        if _reap_all(time.monotonic() + EXIT_WAIT_S):
            cpu_ns = _cpu_ns(resource.getrusage(resource.RUSAGE_CHILDREN)) - _cpu_ns(cpu_before)
    stdout, out_size = _tail(scratch.stdout)
    stderr, err_size = _tail(scratch.stderr)
    if end.get("op") == "end":  # answer, then reap and clean up while the judge reports
        exit_info = {
            "returncode": returncode,
            "killed_at_end": still_running,
            "fork_failed": pid < 0,
            "stdout": stdout,
            "stderr": stderr,
            "output_bytes": out_size + err_size,
        }
        wanted = end.get("stdout_bytes")
        if type(wanted) is int and wanted > 0:  # an I/O test: the judge compares all of it
            exit_info["stdout_b64"] = _head_b64(scratch.stdout, wanted)
        if end.get("cpu") is True:  # None: a process of the sample could not be reaped
            exit_info["cpu_ns"] = cpu_ns
        wire.send_frame(ctl, exit_info)
    if pid > 0 and still_running:
        os.waitpid(pid, 0)
    if own_ns:
        # A killed process counts against the sandbox's process budget until it is reaped:
        # without this wait a fork bomb's hundred dying processes fill the budget when the
        # next sample starts, and its forks fail — a verdict decided by its neighbour.
        _reap_all(time.monotonic() + CLEAR_PATIENCE_S, kill=True)
    else:
        _reap()
    scratch.clean(end.get("keep_build") is True)
    return end.get("op") == "end"


def _reap_all(deadline: float, kill: bool = False) -> bool:
    """Reap every child (the sample's process and its orphans, killed) -> whether all were
    reaped by ``deadline``: their CPU time is then in ``RUSAGE_CHILDREN``. ``kill``: in
    the sandbox's own PID namespace, kill everything else again on each round, which
    catches a process forked while an earlier kill went through the namespace."""
    while True:
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.0005)


def _cpu_ns(usage) -> int:
    """User plus system CPU time of a ``getrusage`` result, in nanoseconds."""
    return round((usage.ru_utime + usage.ru_stime) * 1e9)


def _wait_briefly(pid: int, patience_s: float) -> tuple:
    """``waitpid(pid, WNOHANG)``, retried for up to ``patience_s``."""
    deadline = time.monotonic() + patience_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() >= deadline:
            return done, status
        time.sleep(0.001)


def _kill(pid: int, own_ns: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if own_ns:  # everything else in this PID namespace but us (and its init) is left over
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)


def _reap() -> None:
    """As PID 1 of a namespace (``unshare`` level) orphans are ours to reap."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _open_output(path: str):
    """The sample's output file for reading, or None: never through a link and never
    anything but a regular file (a sample may have replaced it with a FIFO that blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return open(fd, "rb")  # noqa: SIM115 - closed by the callers' with


def _tail(path: str) -> tuple:
    fh = _open_output(path)
    if fh is None:
        return "", 0
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size > TAIL_BYTES:
            fh.seek(size - TAIL_BYTES)
        return fh.read().decode("utf-8", "replace"), size


def _head_b64(path: str, limit: int) -> str:
    """The first ``limit`` bytes of the file, base64-encoded (bytes, exactly as written)."""
    fh = _open_output(path)
    if fh is None:
        return ""
    with fh:
        return base64.b64encode(fh.read(limit)).decode("ascii")


def _child(config: dict, scratch: Scratch, sock: socket.socket, ctl: socket.socket) -> None:
    """Set up the sample's process, wait for its program, then serve the judge."""
    os.setsid()
    ctl.close()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    out = os.open(scratch.stdout, flags, 0o600)
    err = os.open(scratch.stderr, flags, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    keep = sock.fileno()
    for fd in (null, out, err):
        if fd > 2 and fd != keep:
            os.close(fd)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)
    os.chdir(scratch.work)  # the environment was set by the fork server: nothing to copy here
    if config.get("drop_capabilities"):
        drop_capabilities()
    # sys.stdin/stdout/stderr already wrap descriptors 0-2 (the fork server never wrote to
    # them, so their buffers are empty): after the dup2 above they read /dev/null and write
    # to the sample's files, and no new objects (pages) are needed in this process
    streams = (sys.stdout, sys.stderr)
    try:
        job = json.loads(wire.recv_frame(sock))
    except (wire.PeerGone, ValueError):
        os._exit(0)
    limits = job["limits"]
    mem = limits["memory_mb"] << 20
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu = int(limits["timeout_s"]) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    fsize = max(limits["file_size_mb"] << 20, limits["output_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    random.seed(job.get("seed", 0))  # programs that draw random numbers are reproducible
    if "compile" in job or "launch" in job:  # a compiled language (languages.py)
        compiled_runner.serve(job, sock, scratch.build, os.path.dirname(__file__), _give_stdin)
        candidate_host.flush_and_exit(streams, 1)
    if "stdin" in job:  # an I/O test: the whole program runs once, on this input
        _give_stdin(job["stdin"])
        code = 1
        try:
            code = candidate_host.run_main(job, sock, streams)
        finally:
            candidate_host.flush_and_exit(streams, code)
    try:
        candidate_host.host(job, sock, streams)
    finally:
        candidate_host.flush_and_exit(streams)


def _give_stdin(text: str) -> None:
    """Make ``text`` the process's standard input: an anonymous in-memory file, so that
    the input is complete before the program starts and reading past it is end of file."""
    fd = os.memfd_create("stdin")
    data = text.encode("utf-8")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    os.dup2(fd, 0)
    os.close(fd)


if __name__ == "__main__":
    main()
