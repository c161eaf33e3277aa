"""What runs in a candidate's process: load the program, then answer the judge's requests.

The candidate's process holds the model's code and nothing else of value: no tests, no
expected values, no verdict channel. It answers requests from the judge (call this
function, read that name, iterate this object) with plain values encoded by
:mod:`wire`; objects that are not plain data stay here and travel as numbered handles.
Whatever the code does to this process — rebinding builtins, patching ``json``, exiting,
lying about results — changes only the answers it gives, never how the judge checks them.

``perf_counter_ns`` is taken around the call itself, so per-test times exclude the
channel. Everything used here is bound before the candidate's code runs, so a program that
patches modules for its own reasons does not break the protocol.

This file must import nothing from beyondpass: it runs inside the candidate sandbox.
"""

import builtins
import os
import resource
import time

import wire
from call_timing import TimedCall as _TimedCall

_MUTABLE = (list, dict, set, bytearray)


def host(job: dict, sock, streams: tuple = ()) -> None:
    """Load ``job["program"]`` and serve until the judge closes the channel.

    ``streams`` (stdout, stderr) are flushed before every answer, so what the program
    printed is on disk when the judge ends the sample (the process is killed, not exited).
    """
    send, recv, decode, encode = wire.send_frame, wire.recv_frame, wire.decode, wire.encode
    peer_gone, protocol_error = wire.PeerGone, wire.ProtocolError
    clock = time.perf_counter_ns
    base_exception, key_error = BaseException, KeyError
    handles: dict = {}

    def export(obj) -> dict:
        handles[len(handles) + 1] = obj
        return {"h": len(handles), "type": _type_name(obj)}

    def resolve(tag: dict):
        try:
            return handles[tag["h"]]
        except (key_error, TypeError):
            raise protocol_error(f"unknown handle {tag.get('h')!r}") from None

    namespace = {"__name__": "__candidate__", "__builtins__": builtins}
    # only this process answers the judge: a process the program forks does not hold the
    # channel, so what it does (fail, print, exit) is never taken for the program's answer
    channel = sock.fileno()
    os.register_at_fork(after_in_child=lambda: _close_quietly(channel))
    try:
        source = f"{job['setup']}\n{job['program']}" if job["setup"] else job["program"]
        exec(compile(source, "<candidate>", "exec"), namespace)
    except base_exception as exc:  # every failure of the program is an answer, not a crash
        _flush(streams)
        send(sock, ["load_error", *_describe(exc)])
    else:
        _flush(streams)
        send(sock, ["ready", encode(_names(namespace))])

    while True:
        try:
            message = decode(recv(sock), resolve)
        except (peer_gone, protocol_error):
            return
        # A batch is calls the judge sent ahead: one answer each, in order, as they finish;
        # a quiet batch (timing runs) keeps its answers until the last call is done, so that
        # nothing but the program runs here, and nothing runs in the judge, while it is timed.
        batch = message[1] if message and message[0] == "batch" else None
        quiet = batch is not None and len(message) > 2 and message[2] is True
        held: list = []
        for request in [["call", *call] for call in batch] if batch is not None else [message]:
            try:
                reply = _serve(request, namespace, export, encode, clock)
            except base_exception as exc:
                reply = ["err", *_describe(exc), 0]
            if quiet:
                held.append(reply)
            else:
                _answer(sock, send, reply, streams)
        for reply in held:
            _answer(sock, send, reply, streams)


def _answer(sock, send, reply: list, streams: tuple) -> None:
    _flush(streams)
    try:
        send(sock, reply)
    except BaseException as exc:  # noqa: BLE001 - the answer cannot be encoded (cycle, size)
        send(sock, ["err", "TransferError", "", f"the result cannot be sent: {_msg(exc)}", 0])


def _serve(message: list, namespace: dict, export, encode, clock) -> list:
    """One request -> ``["ok", value, ns, changed arguments, reference units]`` or
    ``["err", type, base, message, ns]``; for a timed call (call_timing.py) ns per call and
    its time in reference units, else the call's own duration and 0."""
    op = message[0]
    if op == "call":
        target, args, kwargs = message[1:4]
        timed = len(message) > 4 and message[4] is True
        fn = namespace[target] if isinstance(target, str) else target
        watched = [(i, encode(a, export)) for i, a in enumerate(args) if type(a) in _MUTABLE]
        timer = _TimedCall(fn, args, kwargs) if timed else None
        if timer is not None:
            timer.start()
        start = clock()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - the candidate's exception is its answer
            elapsed = clock() - start
            if timer is not None:
                timer.restore()
            return ["err", *_describe(exc), elapsed]
        elapsed = clock() - start
        in_reference_units = 0
        if timer is not None:
            timer.first_done()
            try:
                value = encode(result, export)  # before a repeat can change what it returned
            except BaseException:
                timer.restore()  # the answer is an error (e.g. a cycle): no repeats
                raise
            elapsed, in_reference_units = timer.finish()
        changed = []
        for i, before in watched:
            after = encode(args[i], export)
            if after != before:
                changed.append([i, after])
        if timer is None:
            value = encode(result, export)
        return ["ok", value, elapsed, changed, in_reference_units]
    if op == "get":
        return ["ok", encode(namespace[message[1]], export), 0, [], 0]
    action = _OBJECT_OPS.get(op)
    if action is None:
        raise ValueError(f"unknown request {op!r}")
    value = action(*message[1:])
    return ["ok", encode(value, export), 0, [], 0]


#: What the judge may ask of an object that stays here: (object[, argument]) -> value.
_OBJECT_OPS = {
    "attr": getattr,
    "iter": iter,
    "next": next,
    "len": len,
    "bool": bool,
    "str": str,
    "repr": repr,
    "getitem": lambda obj, key: obj[key],
    "contains": lambda obj, item: item in obj,
}

_BUILTIN_EXCEPTIONS = frozenset(
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
)


def _names(namespace: dict) -> dict:
    """What the program defines, by kind, so the judge can bind the names its tests use."""
    out = {}
    for name, value in list(namespace.items()):
        if name.startswith("__") and name.endswith("__"):
            continue
        if type(value).__name__ == "module":
            out[name] = ["module", str(getattr(value, "__name__", ""))]
        else:
            out[name] = "callable" if callable(value) else "value"
    return out


def _describe(exc: BaseException) -> list:
    """[type name, nearest builtin exception class in its MRO, message]."""
    base = "Exception"
    try:
        for klass in type(exc).__mro__:
            if klass.__module__ == "builtins" and klass.__name__ in _BUILTIN_EXCEPTIONS:
                base = klass.__name__
                break
    except BaseException:  # noqa: BLE001 - a hostile metaclass
        pass
    return [_type_name(exc), base, _msg(exc)]


def _type_name(obj: object) -> str:
    try:
        return str(type(obj).__name__)[:100]
    except BaseException:  # noqa: BLE001 - a hostile metaclass
        return "<unnamed>"


def _msg(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        text = "<unprintable>"
    return text[:500]


def _flush(streams: tuple) -> None:
    for stream in streams:
        try:  # noqa: SIM105 - keep the child's imports minimal
            stream.flush()
        except BaseException:  # noqa: BLE001 - output is best effort
            pass


def run_main(job: dict, sock, streams: tuple) -> int:
    """Run ``job["program"]`` as a script (an I/O test) -> its exit status.

    The compile step comes first and its outcome is the only message sent: ``["ready"]``
    or ``["compile_error", type, base, message]``, both before any of the program's code
    runs. The judge reads nothing after it; the program's verdict is its exit status and
    what it wrote to stdout, which the judge gets from the fork server.
    """
    import sys

    # a timing run (io_timing.py): the CPU time this process used to set itself up, before
    # the program's source is touched; sent with "ready", before any of the program runs
    setup = _cpu_ns() if job.get("cpu") is True else None
    try:
        code = compile(job["program"], "main.py", "exec")
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, ValueError (NUL), MemoryError
        wire.send_frame(sock, ["compile_error", *_describe(exc)])
        return 1
    wire.send_frame(sock, ["ready"] if setup is None else ["ready", setup])
    # the judge ends the test when this process ends: a process the program forks does not
    # keep the channel open (what it leaves running is killed after the test)
    channel = sock.fileno()
    os.register_at_fork(after_in_child=lambda: _close_quietly(channel))
    sys.argv = ["main.py"]
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    try:
        exec(code, namespace)
    except SystemExit as exc:
        return _exit_status(exc.code, streams)
    except BaseException:  # noqa: BLE001 - reported like the interpreter does: traceback, 1
        try:  # noqa: SIM105 - keep the child's imports minimal
            sys.__excepthook__(*sys.exc_info())
        except BaseException:  # noqa: BLE001 - a program that broke printing
            pass
        return 1
    finally:  # streams the program put in place of the standard ones (a faster writer)
        _flush((getattr(sys, "stdout", None), getattr(sys, "stderr", None)))
    return 0


def _cpu_ns() -> int:
    """This process's user plus system CPU time so far, in nanoseconds (as ``getrusage``
    counts it, the unit the fork server's accounting of the whole process uses)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round((usage.ru_utime + usage.ru_stime) * 1e9)


def _exit_status(code: object, streams: tuple) -> int:
    """``sys.exit(code)`` as the interpreter maps it: None -> 0, an int as such, anything
    else printed to stderr -> 1."""
    if code is None:
        return 0
    if type(code) is int:
        return code & 0xFF
    try:  # noqa: SIM105 - keep the child's imports minimal
        streams[1].write(f"{code}\n")
    except BaseException:  # noqa: BLE001 - a program that broke printing
        pass
    return 1


def flush_and_exit(streams: tuple, status: int = 0) -> None:
    """Flush what the candidate printed, then leave without running its atexit hooks."""
    _flush(streams)
    os._exit(status)


def _close_quietly(fd: int) -> None:
    try:  # noqa: SIM105 - keep the child's imports minimal
        os.close(fd)
    except OSError:
        pass
