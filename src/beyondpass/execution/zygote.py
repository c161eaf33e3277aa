"""Fork server: one warm interpreter per worker that forks a fresh child per sample.

Runs inside the sandbox (``bwrap``: no network, read-only system, private ``/tmp``, its own
PID namespace) as ``python -s -P zygote.py``. It imports the standard modules candidates
commonly use once, then serves jobs from the harness over length-prefixed JSON frames on
its stdin/stdout. Per job it forks a child that: starts a new session, gets an empty stdin,
stdout/stderr into files, a private scratch directory, a clean environment, rlimits, every
other descriptor closed, a seeded ``random``; then runs :func:`python_runner.run_job`.

The zygote itself never runs candidate code. It enforces the wall-clock limit, kills the
child's process group when the sample ends, and — in its own PID namespace — every other
process left behind (daemonised grandchildren included), so nothing outlives its sample.

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import contextlib
import gc
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import python_runner  # noqa: E402 - after the path set-up, by design

PRELOAD = (
    "array",
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "math",
    "numbers",
    "operator",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
    "unicodedata",
)
MAX_RECORD_BYTES = 8 << 20
TAIL_BYTES = 4000
_HEADER = struct.Struct(">I")


def read_frame(fd: int):
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    body = _read_exactly(fd, _HEADER.unpack(header)[0])
    return None if body is None else json.loads(body)


def write_frame(fd: int, obj) -> None:
    body = json.dumps(obj).encode()
    data = _HEADER.pack(len(body)) + body
    while data:
        data = data[os.write(fd, data) :]


def _read_exactly(fd: int, n: int):
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def main() -> None:
    ctl_in, ctl_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    config = read_frame(ctl_in)
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    gc.collect()
    gc.freeze()  # children's collections then skip the preloaded objects: fewer copied pages
    own_ns = bool(config.get("own_pid_namespace")) and os.getpid() < 16
    write_frame(ctl_out, {"ready": True, "pid": os.getpid(), "own_pid_namespace": own_ns})
    seq = 0
    while True:
        job = read_frame(ctl_in)
        if job is None:
            return
        seq += 1
        write_frame(ctl_out, run_one(job, seq, config, own_ns, (ctl_in, ctl_out)))


def run_one(job: dict, seq: int, config: dict, own_ns: bool, ctl: tuple) -> dict:
    scratch = config["scratch"]
    work = os.path.join(scratch, f"s{seq}")
    logs = os.path.join(scratch, f"o{seq}")
    os.mkdir(work, 0o700)
    os.mkdir(logs, 0o700)
    out_path, err_path = os.path.join(logs, "stdout"), os.path.join(logs, "stderr")
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the sample's process
        try:
            _child(job, config, work, out_path, err_path, read_fd, write_fd, ctl)
        finally:
            os._exit(0)
    os.close(write_fd)
    records, timed_out = _collect(read_fd, job, start + job["limits"]["timeout_s"])
    os.close(read_fd)
    _kill(pid, own_ns)
    _, status = os.waitpid(pid, 0)
    wall = time.monotonic() - start
    stdout, out_size = _tail(out_path)
    stderr, err_size = _tail(err_path)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(logs, ignore_errors=True)
    return {
        "records": records,
        "returncode": -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status),
        "timed_out": timed_out,
        "stdout": stdout,
        "stderr": stderr,
        "output_bytes": out_size + err_size,
        "wall_s": wall,
    }


def _collect(fd: int, job: dict, deadline: float) -> tuple:
    """Read result lines until ``done`` (with the job's nonce), EOF, overflow or deadline."""
    done_marker = b'"event": "done"'
    nonce = job["nonce"].encode()
    buf, total, lines = b"", 0, []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return lines, True
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return lines, False
        total += len(chunk)
        if total > MAX_RECORD_BYTES:
            lines.append("<result records exceed the size limit>")
            return lines, False
        buf += chunk
        *complete, buf = buf.split(b"\n")
        for line in complete:
            lines.append(line.decode("utf-8", "replace"))
            if done_marker in line and nonce in line:
                return lines, False


def _kill(pid: int, own_ns: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if own_ns:  # everything else in this PID namespace but us (and its init) is left over
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)


def _tail(path: str) -> tuple:
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            if size > TAIL_BYTES:
                fh.seek(size - TAIL_BYTES)
            return fh.read().decode("utf-8", "replace"), size
    except OSError:
        return "", 0


def _child(job, config, work, out_path, err_path, read_fd, write_fd, ctl) -> None:
    os.setsid()
    for fd in (read_fd, *ctl):
        os.close(fd)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    out = os.open(out_path, flags, 0o600)
    err = os.open(err_path, flags, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    for fd in (null, out, err):
        if fd > 2 and fd != write_fd:
            os.close(fd)
    os.closerange(3, write_fd)
    os.closerange(write_fd + 1, 1 << 16)
    os.chdir(work)
    os.environ.clear()
    os.environ.update(config["env"])
    os.environ.update({"HOME": work, "TMPDIR": work})
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    limits = job["limits"]
    mem = limits["memory_mb"] << 20
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu = int(limits["timeout_s"]) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    fsize = max(limits["file_size_mb"] << 20, limits["output_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    streams = (sys.stdout, sys.stderr)
    try:
        python_runner.run_job(job, write_fd)
    finally:
        python_runner.flush_and_exit(streams, os._exit)


if __name__ == "__main__":
    main()
