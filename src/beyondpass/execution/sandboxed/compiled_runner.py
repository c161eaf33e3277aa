"""A compiled language's process in the candidate sandbox: compile once, or start the
program (``languages.py`` says how).

The fork server's child runs :func:`serve` after its limits are set. A compile job
writes the program to the build directory and runs the compile step there, then answers
``["compiled"]`` or ``["compile_error", type, base, message]`` (the compiler's output,
clipped). A launch job answers ``["ready"]`` and starts the launcher. A batch launch (the
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
    return ["compiled"]
