"""The judge: runs a task's tests against a candidate that lives in another process.

Runs inside its own sandbox as ``python -s -P judge.py CONTROL_FD HARNESS_FD``, serving
jobs from the harness over length-prefixed JSON frames (:mod:`wire`) on the harness socket.
Per job it takes the channel to a fresh process that the candidate fork server has ready
(over the control socket), sends it the program, and executes the benchmark's test code
*here*, with the
program's names bound to proxies: calling ``candidate(x)`` sends ``x`` over the channel and
gets back plain data (:mod:`wire`). Assertions, comparisons and exception matching all
happen in this process, on values the candidate cannot make lie. The candidate has no way
to reach the harness: the judge's report is the only verdict channel.

Why not run the tests inside the candidate's process, as most harnesses do? There the
code can return an object whose ``__eq__`` is always true, skip assertions with a trace
function, or find the result channel in memory. Here, the candidate process never holds a
test, an expected value or the verdict channel.

I/O tests (stdin in, stdout compared) run whole programs instead: :mod:`io_judge`.

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import builtins
import collections
import contextlib
import functools
import json
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compiled_judge  # noqa: E402 - after the path set-up, by design
import fork_client  # noqa: E402
import io_judge  # noqa: E402
import io_timing  # noqa: E402
import job as job_schema  # noqa: E402
import prefetch  # noqa: E402
import wire  # noqa: E402

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_MUTABLE = (list, dict, set, bytearray)


class SampleOver(BaseException):  # noqa: N818 - not an error of the test; ends the sample
    """The candidate is gone, out of time or broke the protocol: no further test runs.

    A ``BaseException`` so that ``except Exception`` in a benchmark's test code cannot
    swallow it; the channel also remembers it, so even a bare ``except:`` cannot.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "gone", "timeout" or "protocol"
        self.message = message


class CandidateChannel:
    """The judge's end of one sample's channel: requests, timing, handles."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.reader = wire.FrameReader(sock)
        self.sample_deadline = deadline
        self.deadline = deadline
        self.elapsed_ns = 0  # candidate-side time of calls since the last reset
        self.elapsed_ref = 0.0  # the same in reference units (call_timing.py)
        self.timing = False  # calls are timing repeats (the candidate times them carefully)
        self.over: SampleOver | None = None
        self._handles: dict[int, RemoteObject] = {}
        # calls sent ahead (prefetch.py) whose answers are still to be read, in order
        self.ahead: collections.deque = collections.deque()
        self.current_test = -1

    def receive(self) -> list:
        try:
            reply = wire.decode(self.reader.read(self.deadline), self._handle)
        except wire.DeadlineExceeded:
            raise self._end("timeout", "the sample ran out of time") from None
        except wire.PeerGone:
            raise self._end("gone", "the candidate's process ended") from None
        except wire.ProtocolError as exc:
            raise self._end("protocol", f"the candidate broke the protocol: {exc}") from None
        if not isinstance(reply, list) or not reply or not isinstance(reply[0], str):
            raise self._end("protocol", "the candidate sent a message that is not a reply")
        return reply

    def send(self, message: list) -> None:
        if self.over is not None:
            raise self.over
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self._end("timeout", "the sample ran out of time")
        try:
            encoded = [wire.encode(part, _export) for part in message]
        except wire.EncodeError as exc:
            raise TypeError(f"cannot pass this value to the candidate: {exc}") from None
        self.sock.settimeout(remaining)  # a program that stops reading cannot stall the judge
        try:
            wire.send_frame(self.sock, encoded)
        except TimeoutError:
            raise self._end("timeout", "the sample ran out of time") from None
        except wire.EncodeError as exc:
            raise TypeError(f"cannot pass this value to the candidate: {exc}") from None
        except OSError:
            raise self._end("gone", "the candidate's process ended") from None
        finally:
            self.sock.settimeout(None)

    def send_ahead(self, planned: list, quiet: bool = False) -> None:
        """Send ``(test key, name, args, kwargs, timed)`` calls at once; answers are read
        later, in order.

        ``quiet``: the candidate answers only after the last call (for timing runs).
        """
        calls = [[name, args, kwargs, timed] for _, name, args, kwargs, timed in planned]
        self.send(["batch", calls, quiet])
        self.ahead.extend(call[:4] for call in planned)

    def call(self, name: str, args: tuple, kwargs: dict) -> object:
        """Call the program's ``name``: from the answers sent ahead when this is the next
        planned call of the running test, else as a request of its own."""
        while self.ahead and self.ahead[0][0] < self.current_test:
            self.ahead.popleft()  # an earlier test stopped before using this answer
            self.receive()
        if self.ahead:
            test, planned_name, planned_args, planned_kwargs = self.ahead[0]
            if (
                test == self.current_test
                and planned_name == name
                and planned_args == list(args)
                and planned_kwargs == kwargs
            ):
                self.ahead.popleft()
                return self._answer(self.receive(), args)
            self.skip_ahead()  # the test went another way: back to one call at a time
        return self.request(["call", name, list(args), kwargs, self.timing], args)

    def skip_ahead(self) -> None:
        while self.ahead:
            self.ahead.popleft()
            self.receive()

    def request(self, message: list, mutable_args: tuple = ()) -> object:
        if self.ahead:
            self.skip_ahead()
        self.send(message)
        return self._answer(self.receive(), mutable_args)

    def _answer(self, reply: list, mutable_args: tuple) -> object:
        kind = reply[0]
        if kind == "ok" and len(reply) == 5 and isinstance(reply[3], list):
            _, value, ns, changed, in_reference_units = reply
            self._add_time(ns, in_reference_units)
            for item in changed:
                _copy_back(mutable_args, item)
            return value
        if kind == "err" and len(reply) == 5:
            _, type_name, base, message_text, ns = reply
            self._add_time(ns, 0)
            raise remote_exception(str(type_name), str(base), str(message_text)[:500])
        raise self._end("protocol", f"the candidate sent an unexpected {kind!r} reply")

    def _add_time(self, ns: object, in_reference_units: object) -> None:
        units = in_reference_units
        if (
            type(ns) is not int
            or ns < 0
            or type(units) not in (int, float)
            or not 0 <= units < 1e18
        ):
            raise self._end("protocol", "the candidate reported an invalid duration")
        self.elapsed_ns += ns
        self.elapsed_ref += units

    def _end(self, kind: str, message: str) -> SampleOver:
        if self.over is None:
            self.over = SampleOver(kind, message)
        return self.over

    def _handle(self, tag: dict) -> "RemoteObject":
        ident = tag.get("h")
        if type(ident) is not int:
            raise wire.ProtocolError("a handle without an integer id")
        if ident not in self._handles:
            self._handles[ident] = RemoteObject(self, ident, str(tag.get("type", "object"))[:100])
        return self._handles[ident]


def _export(obj: object) -> dict:
    if isinstance(obj, (RemoteObject, RemoteFunction)):
        return obj._tag()
    raise wire.EncodeError(f"an object of type {type(obj).__name__} is not plain data")


def _copy_back(args: tuple, item: object) -> None:
    """Apply an in-place change the candidate made to a mutable argument (call by copy-restore)."""
    if not isinstance(item, list) or len(item) != 2 or type(item[0]) is not int:
        return
    index, new = item
    if not 0 <= index < len(args):
        return
    old = args[index]
    if type(new) is not type(old) or type(old) not in _MUTABLE:
        return
    if isinstance(old, (list, bytearray)):
        old[:] = new
    else:
        old.clear()
        old.update(new)


def remote_exception(type_name: str, base: str, message: str) -> BaseException:
    """The candidate's exception, re-created here: builtin ones as themselves (so ``except
    ValueError`` in a test matches), others as a subclass of their nearest builtin base
    that carries the candidate's class name."""
    klass = _exception_class(type_name, base)
    try:
        return klass(message)
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError needs five arguments
        return _exception_class(type_name, "Exception")(message)


@functools.lru_cache(maxsize=256)
def _exception_class(type_name: str, base: str) -> type:
    builtin = getattr(builtins, base, None)
    if not (isinstance(builtin, type) and issubclass(builtin, BaseException)):
        builtin = Exception
    if type_name == base or not type_name.isidentifier():
        return builtin
    try:
        return type(type_name, (builtin,), {"__module__": "candidate"})
    except TypeError:
        return builtin


class RemoteFunction:
    """A top-level callable of the candidate, called through the channel."""

    __slots__ = ("_channel", "_name")

    def __init__(self, channel: CandidateChannel, name: str) -> None:
        self._channel = channel
        self._name = name

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._channel.call(self._name, args, kwargs)

    def __repr__(self) -> str:
        return f"<candidate function {self._name}>"

    def _tag(self) -> dict:
        raise wire.EncodeError("a candidate function cannot be passed back to the candidate")


class RemoteObject:
    """An object that stays in the candidate's process.

    Equality and hashing are by identity and decided here: a candidate object never
    compares equal to a plain value, whatever its class says.
    """

    __slots__ = ("_channel", "_id", "_type")

    def __init__(self, channel: CandidateChannel, ident: int, type_name: str) -> None:
        self._channel = channel
        self._id = ident
        self._type = type_name

    def _tag(self) -> dict:
        return {"h": self._id}

    def _ask(self, op: str, *args: object) -> object:
        return self._channel.request([op, self, *args])

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._channel.request(["call", self, list(args), kwargs], args)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ask("attr", name)

    def __iter__(self):
        return self._ask("iter")

    def __next__(self):
        return self._ask("next")

    def __len__(self) -> int:
        n = self._ask("len")
        if type(n) is not int:
            raise TypeError("len() of a candidate object is not an integer")
        return n

    def __bool__(self) -> bool:
        return self._ask("bool") is True

    def __str__(self) -> str:
        return str(self._ask("str"))

    def __repr__(self) -> str:
        return f"<candidate {self._type} object>"

    def __getitem__(self, key: object) -> object:
        return self._ask("getitem", key)

    def __contains__(self, item: object) -> bool:
        return self._ask("contains", item) is True


class TestGlobals(dict):
    """The test code's namespace: plain values of the program are fetched on first use."""

    __test__ = False

    def __init__(self, channel: CandidateChannel, lazy: frozenset) -> None:
        super().__init__()
        self._channel = channel
        self._lazy = lazy

    def __missing__(self, name: str) -> object:
        if name not in self._lazy:
            raise KeyError(name)
        value = self._channel.request(["get", name])
        self[name] = value
        return value


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, filename: str):
    return compile(source, filename, "exec")


def sample_budget_s(limits: dict, repeats: int) -> float:
    """Wall time a sample may take in all: its time limit for the first runs, and as much
    again for each timing run, so that a slow program that passes is timed, not cut off
    (the harness's ``ExecutionRequest.budget_s``)."""
    return float(limits["timeout_s"]) * (1 + repeats)


def judge(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of any kind (sandboxed/job.py): the dispatch table picks the handler;
    timing runs of I/O tests follow once the verdict is settled."""
    problem = job_schema.check(job)
    if problem:
        over = {"kind": "sandbox", "message": f"the judge cannot run this job: {problem}"}
        return {"tests": [], "load_error": None, "over": over, "exit": None, "wall_s": 0.0}
    report = HANDLERS[job["kind"]](job, ctl)
    if job["io"] and job.get("io_timing"):  # compiled programs: an error, said once
        io_timing.time_io(job, ctl, report)
    return report


def judge_calls(job: dict, ctl: socket.socket) -> dict:
    """Run one sample of call-style tests: start the candidate, run every test here, calling
    the candidate's functions through the channel, collect what happened."""
    limits = job["limits"]
    start = time.monotonic()
    deadline = start + float(limits["timeout_s"])
    report: dict = {"tests": [], "load_error": None, "over": None, "exit": None}
    sock, over, ctl_ok = fork_client.take_candidate(ctl, limits)
    if not ctl_ok:
        report["over"] = over
        report["wall_s"] = time.monotonic() - start
        return report
    try:
        if sock is None:
            report["over"] = over
        else:
            program = {
                "program": job["program"],
                "setup": job["setup"],
                # the candidate's CPU limit covers its timing runs too (_time_tests); its
                # first runs are held to the sample's own time by the deadline here
                "limits": {**limits, "timeout_s": sample_budget_s(limits, job["repeats"])},
                "seed": job.get("seed", 0),
            }
            with contextlib.suppress(OSError):  # if it died waiting, the channel says so
                wire.send_frame(sock, program)
            _run_tests(job, CandidateChannel(sock, deadline), report)
    finally:
        if sock is not None:
            sock.close()
        over = report.get("over") or {}
        report["exit"] = fork_client.end_candidate(ctl, over.get("kind") == "gone")
    report["wall_s"] = time.monotonic() - start
    return report


def _run_tests(job: dict, channel: CandidateChannel, report: dict) -> None:
    try:
        hello = channel.receive()
    except SampleOver as over:
        report["over"] = {"kind": over.kind, "message": over.message, "test": None}
        return
    if hello[0] == "load_error" and len(hello) == 4:
        report["load_error"] = {"error_type": str(hello[1]), "message": str(hello[3])[:500]}
        return
    if hello[0] != "ready" or len(hello) != 2 or not isinstance(hello[1], dict):
        report["over"] = {"kind": "protocol", "message": "no ready message", "test": None}
        return
    namespace = _namespace(hello[1], channel)
    random.seed(job.get("seed", 0))
    try:
        if job["setup"]:
            exec(_compiled(job["setup"], "<test setup>"), namespace)
        first_runs, timing_runs = _plan(job["tests"], namespace, job["repeats"])
        if first_runs:
            channel.send_ahead(first_runs)
        for index, test in enumerate(job["tests"]):
            channel.current_test = index
            result = _run_test(test, namespace, channel, job["limits"])
            report["tests"].append(result)
            if channel.over is not None:
                break
    except SampleOver:
        pass
    except BaseException as exc:  # noqa: BLE001 - broken setup code is the benchmark's fault
        report["over"] = {"kind": "setup", "message": f"{type(exc).__name__}: {exc}"[:500]}
        return
    if channel.over is not None:
        name = report["tests"][-1]["name"] if report["tests"] else None
        report["over"] = {"kind": channel.over.kind, "message": channel.over.message, "test": name}
    elif job["repeats"] and all(t["status"] == "passed" for t in report["tests"]):
        _time_tests(job, namespace, channel, report, timing_runs)


def _namespace(names: dict, channel: CandidateChannel) -> TestGlobals:
    lazy = []
    namespace = TestGlobals(channel, frozenset())
    for name, kind in names.items():
        if not isinstance(name, str) or not name.isidentifier():
            continue
        if kind == "callable":
            namespace[name] = RemoteFunction(channel, name)
        elif isinstance(kind, list) and len(kind) == 2 and kind[0] == "module":
            module = str(kind[1])
            if module.split(".")[0] in _STDLIB:
                with contextlib.suppress(ImportError):
                    namespace[name] = __import__(module, fromlist=["_"])
                    continue
            lazy.append(name)
        else:
            lazy.append(name)
    namespace._lazy = frozenset(lazy)
    namespace["__builtins__"] = builtins
    namespace["__name__"] = "__test__"
    return namespace


def _plan(tests: list, namespace: TestGlobals, repeats: int) -> tuple[list, list]:
    """The calls to send ahead: those of the longest run of leading tests whose calls the
    source fixes (prefetch.py) -> (every such test's first run in order, and when every
    test was planned, every test's timing runs), each test keyed by its place in the order
    first runs, then timing runs.

    Only where a planned call that the test ends up not making cannot hold up a later test:
    one call per test, or a single test.
    """
    callables = frozenset(n for n, v in namespace.items() if isinstance(v, RemoteFunction))
    program = callables | namespace._lazy
    per_test = []
    for test in tests:
        calls = prefetch.planned_calls(test["code"], callables, program)
        if calls is None:
            break
        per_test.append(calls)
    if len(tests) > 1 and any(len(calls) > 1 for calls in per_test):
        return [], []
    first_runs = [
        (index, name, args, kwargs, False)
        for index, calls in enumerate(per_test)
        for name, args, kwargs in calls
    ]
    if len(per_test) < len(tests):
        return first_runs, []
    return first_runs, [
        (len(tests) + index, name, args, kwargs, True)
        for index, calls in enumerate(per_test)
        for _ in range(repeats)
        for name, args, kwargs in calls
    ]


def _run_test(test: dict, namespace: dict, channel: CandidateChannel, limits: dict) -> dict:
    name = test["name"]
    _start_test_clock(channel, limits)
    try:
        code = _compiled(test["code"], f"<test {name}>")
    except BaseException as exc:  # noqa: BLE001 - a broken test is reported, not fatal
        return _outcome(name, "error", "TestSyntaxError", exc)
    status, error_type, failure = _exec(code, namespace, channel)
    if status != "passed":
        return _outcome(name, status, error_type, failure)
    return {"name": name, "status": "passed"}


def _start_test_clock(channel: CandidateChannel, limits: dict) -> None:
    per_test = limits.get("test_timeout_s")
    if per_test:  # a single test may not use up the whole sample's budget
        channel.deadline = min(channel.sample_deadline, time.monotonic() + float(per_test))


def _time_tests(
    job: dict, namespace: dict, channel: CandidateChannel, report: dict, planned: list
) -> None:
    """Run every test ``repeats`` more times, timed, once all have passed.

    Timing never changes a verdict: the verdict is the first run's. A timing run that
    fails (a program whose state changed, one that runs out of time) leaves every test
    without times and says why in ``report["timing_error"]``; a sample timed only in part
    would report a time for a subset of its tests.
    """
    tests, repeats = job["tests"], job["repeats"]
    timed: list = []
    channel.timing = True
    channel.sample_deadline = time.monotonic() + float(job["limits"]["timeout_s"]) * repeats
    channel.deadline = channel.sample_deadline
    try:
        if planned:
            # nothing else should run while the program is timed: the candidate answers
            # after the last timed call (a per-test time limit needs answers as they come)
            channel.send_ahead(planned, quiet=not job["limits"].get("test_timeout_s"))
        for index, test in enumerate(tests):
            channel.current_test = len(tests) + index  # after every first run (_plan)
            code = _compiled(test["code"], f"<test {test['name']}>")
            times, times_ref = [], []
            for _ in range(repeats):
                _start_test_clock(channel, job["limits"])  # a per-test limit, per timing run
                channel.elapsed_ns, channel.elapsed_ref = 0, 0.0
                status, error_type, failure = _exec(code, namespace, channel)
                if status != "passed":
                    message = _outcome(test["name"], status, error_type, failure)["message"]
                    report["timing_error"] = (
                        f"test {test['name']}: {status} on a timing run: {message}"[:500]
                    )
                    return
                times.append(channel.elapsed_ns)
                times_ref.append(round(channel.elapsed_ref, 6))
            timed.append((times, times_ref))
    except SampleOver as over:  # sending the timing runs found the candidate gone or late
        report["timing_error"] = f"the timing runs could not start: {over.message}"[:500]
        return
    finally:
        channel.timing = False
        channel.over = None  # the end of a timing run is not the end of the sample's verdict
    for result, (times, times_ref) in zip(report["tests"], timed, strict=True):
        result["times_ns"], result["times_ref"] = times, times_ref


def _exec(code, namespace: dict, channel: CandidateChannel) -> tuple:
    try:
        exec(code, namespace)
    except SampleOver as over:
        return ("timeout" if over.kind == "timeout" else "error"), over.kind, over
    except AssertionError as exc:
        status = "failed"
        failure: BaseException = exc
    except MemoryError as exc:
        return "memory", "MemoryError", exc
    except BaseException as exc:  # noqa: BLE001 - every exception of a test is a verdict
        return "error", type(exc).__name__, exc
    else:
        status, failure = "passed", None
    if channel.over is not None:  # the test code swallowed the end of the sample
        over = channel.over
        return ("timeout" if over.kind == "timeout" else "error"), over.kind, over
    return status, "AssertionError" if failure is not None else "", failure


def _outcome(name: str, status: str, error_type: str, exc, prefix: str = "") -> dict:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001
        message = "<unprintable>"
    return {
        "name": name,
        "status": status,
        "error_type": error_type,
        "message": (prefix + message)[:500],
    }


#: job kind -> the handler that runs a sample of that kind
HANDLERS = {
    job_schema.CALL: judge_calls,
    job_schema.IO: io_judge.judge_python_io,
    job_schema.LAUNCHED: compiled_judge.judge_compiled,
}


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))  # to the candidate fork server
    harness = socket.socket(fileno=int(sys.argv[2]))  # jobs in, reports out
    wire.send_frame(ctl, json.loads(wire.recv_frame(harness))["candidate"])
    hello = json.loads(wire.recv_frame(ctl, time.monotonic() + 60))
    wire.send_frame(harness, {"ready": True, "candidate": hello})
    while True:
        try:
            job = json.loads(wire.recv_frame(harness))
        except wire.PeerGone:
            return
        wire.send_frame(harness, judge(job, ctl))


if __name__ == "__main__":
    main()
