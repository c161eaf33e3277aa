"""A compiled language's process in the candidate sandbox: compile once, or start the
program (``languages.py`` says how).

The fork server's child runs :func:`serve` after its limits are set. A compile job
writes the program to the build directory and runs the compile step there, then answers
``["compiled"]`` or ``["compile_error", type, base, message]`` (the compiler's output,
clipped). A launch job answers ``["ready"]`` and ``exec``s the launcher: the process *is*
the program from then on, so its exit status comes from the kernel as for Python. A
one-test launch gets the test's input as stdin (an in-memory file) and keeps the channel
only so that the judge sees it close when the program ends; a batch launch (the Java
runner) gets the channel as stdin and stdout and takes its tests over it.

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import os
import signal

import wire

COMPILER_MESSAGE = 4000  # characters of the compiler's output kept (its last lines)


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
        sock.set_inheritable(True)  # closes when the program ends: the judge waits for that
    os.chdir(os.environ.get("HOME", build))
    os.environ["MALLOC_ARENA_MAX"] = "2"  # few malloc arenas: less address space reserved
    for sig in (signal.SIGXFSZ, signal.SIGPIPE):  # Python ignores them; exec keeps that
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot start {argv[0]}: {exc}\n".encode())
        os._exit(127)


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
