"""A compiled language's process in the candidate sandbox: compile once, or start the
program (``languages.py`` says how).

The fork server's child runs :func:`serve` after its limits are set. A compile job
writes the program to the build directory and runs the compile step there, then answers
``["compiled"]`` or ``["compile_error", type, base, message]`` (the compiler's output,
clipped). Asked to (``keep``), it sends the build's files back with ``"compiled"``, before
the program ever runs; a job carrying a kept build (``built``) gets those files written
instead of a compile (the harness's cache, ``execution/builds.py``).

A launch job answers ``["ready"]`` and starts the launcher. A batch launch (the
Java runner) ``exec``s it with the channel as stdin and stdout; the runner takes its tests
over it. A one-test launch gets the test's input as stdin (an in-memory file): this
process forks the program without the channel, waits for it, and ends with its exit
status (a signal included), so the judge sees the channel close exactly when the program's
own process ends, whatever it left running (a daemon holding its output is killed after
the case, as for every language).

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import os
import signal
import time

import patient_fork
import wire

COMPILER_MESSAGE = 4000  # characters of the compiler's output kept (its last lines)
BUILD_LIMIT = 16 << 20  # bytes of a build sent back to be kept (builds.MAX_BUILD_BYTES)
FORK_RETRY_S = patient_fork.RETRY_S


def _fill(command: list, build: str, runner: str) -> list:
    return [str(part).replace("{build}", build).replace("{runner}", runner) for part in command]


def serve(job: dict, sock, build: str, runner: str, give_stdin) -> None:
    """Compile or launch; returns only when the launch itself failed."""
    if "compile" in job:
        wire.send_frame(sock, _compile(job, build, runner))
        os._exit(0)
    launch = job["launch"]
    argv = _fill(launch["command"], build, runner)
    if launch.get("batch"):
        wire.send_frame(sock, ["ready"])
        os.dup2(sock.fileno(), 0)
        os.dup2(sock.fileno(), 1)
        sock.close()
    else:
        give_stdin(job["stdin"])
        wire.send_frame(sock, ["ready"])
    os.chdir(os.environ.get("HOME", build))
    os.environ["MALLOC_ARENA_MAX"] = "2"  # few malloc arenas: less address space reserved
    for sig in (signal.SIGXFSZ, signal.SIGPIPE):  # Python ignores them; exec keeps that
        signal.signal(sig, signal.SIG_DFL)
    if launch.get("batch") or _fork() == 0:  # the program: without the channel (cloexec)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"cannot start {argv[0]}: {exc}\n".encode())
            os._exit(127)
    _end_as_program(sock)


def _fork() -> int:
    """Fork the program's process, waiting while the sandbox's process budget is full (the
    processes of the sample before can still be dying); a fork that never succeeds ends
    this process as a start that failed (status 127 and why, on stderr), never as the
    program's own end."""
    pid, refused = patient_fork.fork(time.monotonic() + FORK_RETRY_S)
    if pid < 0:
        os.write(2, f"cannot start the program: fork failed: {refused}\n".encode())
        os._exit(127)
    return pid


def _end_as_program(sock) -> None:
    """Wait for the program (this process's only child) and end the same way: its exit
    status, or the signal that killed it. The channel closes with this process."""
    while True:
        try:
            _, status = os.wait()
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(127)
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)  # a signal that does not end a process by default: never silent


def _compile(job: dict, build: str, runner: str) -> list:
    import shutil  # here, not at the top: every test's process loads this module
    import subprocess

    step = job["compile"]
    name = os.path.basename(str(step["source_name"]))
    shutil.rmtree(build, ignore_errors=True)  # nothing of an earlier program's build remains
    os.makedirs(build, 0o700, exist_ok=True)
    if "built" in step:  # the harness kept this program's build: its files, no compile
        return _place(step["built"], build)
    with open(os.path.join(build, name), "w", encoding="utf-8") as fh:
        fh.write(job["program"])
    try:
        done = subprocess.run(
            _fill(step["command"], build, runner),
            cwd=build,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=float(step["timeout_s"]),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ["compile_error", "CompileTimeout", "", f"no result in {step['timeout_s']} s"]
    except OSError as exc:
        return ["compile_error", "CompilerMissing", "", f"cannot run the compiler: {exc}"]
    text = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0:
        status = f"exit status {done.returncode}" if done.returncode > 0 else "killed"
        message = text[-COMPILER_MESSAGE:] or f"the compiler failed ({status})"
        return ["compile_error", "CompileError", "", message]
    if step.get("keep"):  # before the program ever runs here: the build as compiled
        files = _build_files(build)
        if files is not None:
            return ["compiled", files]
    return ["compiled"]


def _build_files(build: str):
    """Every regular file of the build: ``[relative path, base64]`` pairs (a frame's
    objects are tagged values, so a list), or None when it is too large."""
    import base64

    files, size = [], 0
    for folder, _, names in os.walk(build):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as fh:
                data = fh.read(BUILD_LIMIT + 1)
            size += len(data)
            if size > BUILD_LIMIT:
                return None
            files.append([os.path.relpath(path, build), base64.b64encode(data).decode("ascii")])
    return files


def _place(built, build: str) -> list:
    """Write a kept build's files (relative path -> base64) into the build directory."""
    import base64

    if not isinstance(built, dict):
        return ["compile_error", "BuildRefused", "", "a kept build that is not a file table"]
    for rel, text in built.items():
        parts = str(rel).split("/")
        if str(rel).startswith("/") or ".." in parts or "" in parts:
            return ["compile_error", "BuildRefused", "", f"a kept build names {rel!r}"]
        path = os.path.join(build, *parts)
        os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700)
        with os.fdopen(fd, "wb") as fh:
            fh.write(base64.b64decode(text))
    return ["compiled"]
