"""Python function mode: one process calls the answer's function on many cases.

Started by the candidate fork server's child (``compiled_runner``, a batch launch) as
``python -s -P python_function_runner.py BUILD NAME INPUTS OUTPUTS``, with the judge's
channel as its stdin and stdout. It speaks the batch protocol of ``compiled_judge.py``
with two additions: the program arrives over the channel (there is no compile step), and
every case carries a nonce the answer must not be able to predict. Protocol:

- runner: ``H``; judge: output cap (int32), seed (int64), program (int32 size, bytes);
- runner: ``P`` (compiled) or ``E`` + int32 size + "type\\nmessage" (``compile()`` failed);
- per case, judge: input (int32 size, bytes) + 8 random bytes; runner: ``C`` + those 8
  bytes + exit status (int32) + flags (bit 0: go on, bit 1: output limit) + stdout
  (int32 size, bytes, at most cap + 1) + stderr tail (int32 size, bytes).

What a case does is what the generated driver (``methods/psb2/drivers.py``) does
in a process of its own: the case's lines are parsed by the signature's types, the
function is called, its results are written in the textio format after whatever the
function printed; an exception is exit status 1 with its traceback on stderr,
``sys.exit(n)`` is status ``n``, a function that is missing or cannot take the arguments
is status 97 with the driver's marker line. The program is loaded once, at the first
case (inside that case's time), as module ``__candidate__``: its ``if __name__ ==
"__main__":`` block never runs; what it printed while loading precedes every case's output.
A crash, ``os._exit`` or hang ends the process: the judge charges that case from the fork
server's exit status (or its deadline) and starts a fresh process for the rest.

Trust: the function runs in this process and can do anything this code can, so for its own
case it can choose the reply (no more than choosing its return value). It cannot write a
later case's reply in advance (that case's nonce does not exist yet), never sees an
expected output (the judge compares), and a case after which threads or child processes
or timers are left running, or files were added to the working, scratch or logs
directory, ends the process after its reply, so what a case leaves behind does not reach
later cases (a hostile function could rewrite these checks too: it would then affect only
its own later cases, never another answer's, and could make one pass only by computing
its answer from its input).

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import _thread
import builtins
import os
import random
import signal
import struct
import sys
import traceback

#: recursion depth used under the function when the driver calls it in a process of its
#: own (the fork server's module, main, _spare, _child, run_main, the program's module,
#: _bp_main, and one more for the ``exec`` that enters the program): the runner sets the
#: recursion limit so that the function has as much depth left (a test compares them)
DRIVER_DEPTH = 8
#: job.NOT_CALLABLE_EXIT and job.NOT_CALLABLE_MARK: this runner starts with ``-P`` and
#: imports no file of its directory, so it repeats them (tests/execution/test_wire.py
#: checks they agree)
NOT_CALLABLE_EXIT = 97
NOT_CALLABLE_MARK = "beyondpass: function not callable:"
STDERR_TAIL = 4000
_INT = struct.Struct(">i")
_HEAD = struct.Struct(">iBi")


class _Channel:
    """Exact reads and whole writes on the judge's channel (descriptors out of 0-2)."""

    def __init__(self, fd_in: int, fd_out: int) -> None:
        self.fd_in, self.fd_out = fd_in, fd_out
        self.read_fd, self.write_fd = os.read, os.write

    def read(self, size: int) -> bytes:
        parts, left = [], size
        while left > 0:
            chunk = self.read_fd(self.fd_in, min(left, 1 << 20))
            if not chunk:
                raise EOFError
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def number(self) -> int:
        return _INT.unpack(self.read(4))[0]

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self.write_fd(self.fd_out, view) :]


def _output_file(path: str, fd: int) -> None:
    """Point ``fd`` at the fork server's output file (read back after a crash), or at an
    anonymous file when it cannot be opened."""
    try:
        opened = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_TRUNC)
    except OSError:
        opened = os.memfd_create("output")
    os.dup2(opened, fd)
    os.close(opened)


def _parse(types: list, text: str) -> list:
    """The driver's parsing: one value per line, in the signature's order."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    args = []
    for i, kind in enumerate(types):
        line = lines[i] if i < len(lines) else ""
        if kind == "int":
            args.append(int(line))
        elif kind == "float":
            args.append(float(line))
        elif kind == "str":
            args.append(line)
        else:
            conv = int if kind == "vec_int" else float
            args.append([conv(x) for x in line.split()])
    return args


def _render(outputs: list, result: object) -> str:
    """The driver's printing: one line per output, floats as ``repr``, Booleans as
    ``true``/``false``, vectors space-separated."""
    values = (result,) if len(outputs) == 1 else result
    lines = []
    # as the driver: values beyond the outputs are ignored, missing ones give fewer lines
    for kind, value in zip(outputs, tuple(values), strict=False):
        if kind == "bool":
            lines.append("true" if value else "false")
        elif kind == "float":
            lines.append(repr(float(value)))
        elif kind in ("vec_int", "vec_float"):
            lines.append(" ".join(repr(float(x)) if kind == "vec_float" else str(x) for x in value))
        else:
            lines.append(str(value))
    return "".join(line + "\n" for line in lines)


def _exit_status(code: object) -> tuple:
    """``sys.exit(code)`` as the interpreter maps it -> (status, text for stderr)."""
    if code is None:
        return 0, ""
    if type(code) is int:
        return code & 0xFF, ""
    try:
        return 1, f"{code}\n"
    except BaseException:  # noqa: BLE001 - a hostile __str__
        return 1, ""


def _traceback(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(exc))
    except BaseException:  # noqa: BLE001 - a hostile exception (its __str__ raised)
        return "Exception: <unprintable>\n"


class Runner:
    """The program's namespace and one case at a time."""

    def __init__(self, argv: list, channel: _Channel) -> None:
        build, self.name, inputs, outputs = argv[:4]
        self.inputs = [] if inputs == "-" else inputs.split(",")
        self.outputs = outputs.split(",")
        self.channel = channel
        self.home = os.environ.get("HOME", ".")
        self.root = os.path.dirname(build.rstrip("/")) or "/"
        self.namespace: dict = {"__name__": "__candidate__", "__builtins__": builtins}
        self.code = None
        self.loaded = False
        self.load_failure: tuple = ()  # (status, stderr) when loading the program failed
        self.load_out = b""
        self.load_err = b""
        self.threads = 0
        self.dirs: tuple = ()
        # bound before any of the program runs: patching these modules changes nothing here
        self.streams = (sys.stdout, sys.stderr)
        self.count_threads = _thread._count
        self.fstat, self.pread, self.truncate = os.fstat, os.pread, os.ftruncate
        self.lseek, self.waitpid, self.stat = os.lseek, os.waitpid, os.stat
        self.seed_random, self.seed = random.seed, 0
        self.timer = signal.getitimer
        self.cap = 0
        self.depth_set = False

    # -- the program ----------------------------------------------------------------------
    def start(self) -> bool:
        """Hello, cap, seed, program, compile -> whether cases can run."""
        channel = self.channel
        channel.write(b"H")
        self.cap = channel.number()
        self.seed = struct.unpack(">q", channel.read(8))[0]
        source = channel.read(channel.number()).decode("utf-8", "surrogatepass")
        try:
            self.code = compile(source, "main.py", "exec")
        except BaseException as exc:  # noqa: BLE001 - SyntaxError, ValueError (NUL), MemoryError
            text = f"{type(exc).__name__}\n{exc}".encode("utf-8", "backslashreplace")
            channel.write(b"E" + _INT.pack(len(text)) + text)
            return False
        channel.write(b"P")
        return True

    def _load(self) -> None:
        """Run the program's top level once (inside the first case's time)."""
        self.loaded = True
        self._clear()
        self.seed_random(self.seed)
        try:
            exec(self.code, self.namespace)
        except SystemExit as exc:
            status, text = _exit_status(exc.code)
            self.load_failure = (status, text)
        except BaseException as exc:  # noqa: BLE001 - the program's failure, every case's
            self.load_failure = (1, _traceback(exc))
        self._flush()
        self.load_out = self._read(1, self.cap + 1)
        self.load_err = self._read(2, STDERR_TAIL, tail=True)
        self.threads = self.count_threads()
        self.dirs = self._dirs()

    # -- one case -------------------------------------------------------------------------
    def case(self, data: bytes) -> tuple:
        """-> (exit status, flags, stdout, stderr tail)."""
        if not self.loaded:
            self._load()
        self._clear()
        status, rendered, err_text = self._call(data)
        self._flush()
        cap = self.cap
        out = self.load_out + self._read(1, cap + 1) + rendered.encode("utf-8", "backslashreplace")
        err = self.load_err + self._read(2, STDERR_TAIL, tail=True)
        err += err_text.encode("utf-8", "backslashreplace")
        total = len(self.load_out) + len(self.load_err) + self._size(1) + self._size(2)
        total += len(rendered) + len(err_text)
        flags = 2 if total >= cap else 0
        if self._clean():
            flags |= 1
        return status & 0xFF, flags, out[: cap + 1], err[-STDERR_TAIL:]

    def _call(self, data: bytes) -> tuple:
        """The driver's call -> (status, rendered results, stderr text)."""
        if self.load_failure:
            return self.load_failure[0], "", self.load_failure[1]
        if not self.depth_set:
            self._same_depth()
        self.seed_random(self.seed)
        try:
            args = _parse(self.inputs, data.decode("utf-8", "backslashreplace"))
            fn = self.namespace.get(self.name)
            if not callable(fn):
                return NOT_CALLABLE_EXIT, "", f"{NOT_CALLABLE_MARK} {self.name} is not defined\n"
            try:
                result = fn(*args)
            except TypeError as exc:
                text = str(exc)
                if "positional argument" in text or "takes" in text:
                    return NOT_CALLABLE_EXIT, "", f"{NOT_CALLABLE_MARK} {text}\n"
                raise
            return 0, _render(self.outputs, result), ""
        except SystemExit as exc:
            status, text = _exit_status(exc.code)
            return status, "", text
        except BaseException as exc:  # noqa: BLE001 - the function's exception is its answer
            return 1, "", _traceback(exc)

    def _same_depth(self) -> None:
        """The recursion limit that leaves the function as deep a stack as the driver's."""
        self.depth_set = True
        frame, depth = sys._getframe(1), 0  # from the caller: the function replaces _call
        while frame is not None:
            depth, frame = depth + 1, frame.f_back
        sys.setrecursionlimit(max(100, sys.getrecursionlimit() - DRIVER_DEPTH + depth))

    # -- what a case leaves behind --------------------------------------------------------
    def _clean(self) -> bool:
        """Whether nothing of the case runs on or was added: no new thread, no child
        process alive, no timer pending, no entry added to the working or scratch
        directory."""
        if self.count_threads() > self.threads:
            return False
        for which in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
            if self.timer(which)[0] > 0:
                return False
        while True:
            try:
                pid, _ = self.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            except BaseException:  # noqa: BLE001
                return False
            if pid == 0:
                return False  # a child process is still running
        return self._dirs() == self.dirs

    def _dirs(self) -> tuple:
        out = []
        for path in (self.home, self.root, os.path.join(self.root, "logs")):
            try:
                st = self.stat(path)
                out.append((st.st_mtime_ns, st.st_nlink))
            except OSError:
                out.append(None)
        return tuple(out)

    def _flush(self) -> None:
        for stream in (*self.streams, getattr(sys, "stdout", None), getattr(sys, "stderr", None)):
            try:  # noqa: SIM105 - output is best effort
                stream.flush()
            except BaseException:  # noqa: BLE001 - a program that broke printing
                pass

    def _size(self, fd: int) -> int:
        try:
            return self.fstat(fd).st_size
        except OSError:
            return 0

    def _read(self, fd: int, limit: int, tail: bool = False) -> bytes:
        size = self._size(fd)
        start = max(0, size - limit) if tail else 0
        try:
            return self.pread(fd, min(size, limit), start)
        except OSError:
            return b""

    def _clear(self) -> None:
        """Empty the output files, so a crash in the next case leaves only its output."""
        for fd in (1, 2):
            if self._size(fd):
                try:
                    self.truncate(fd, 0)
                    self.lseek(fd, 0, os.SEEK_SET)
                except OSError:
                    pass


def main() -> None:
    # the channel moves off stdin/stdout (close-on-exec duplicates): what the program
    # reads is empty, what it prints goes to the output files
    channel = _Channel(os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    build = sys.argv[1]
    logs = os.path.join(os.path.dirname(build.rstrip("/")), "logs")
    _output_file(os.path.join(logs, "stdout"), 1)
    _output_file(os.path.join(logs, "stderr"), 2)
    runner = Runner(sys.argv[1:], channel)
    try:
        if not runner.start():
            os._exit(0)
        while True:
            size = channel.number()
            data = channel.read(size)
            nonce = channel.read(8)
            status, flags, out, err = runner.case(data)
            frame = b"C" + nonce + _HEAD.pack(status, flags, len(out)) + out
            channel.write(frame + _INT.pack(len(err)) + err)
    except (EOFError, OSError):  # the judge closed the channel: the batch is over
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
