"""The job the host sends the judge for one sample: one definition for both halves.

The host (``sandbox_executor.py``) builds every job with :func:`make_job`; the judge
(``judge.py``) accepts only a job that :func:`check` finds whole and of this
:data:`VERSION`, and dispatches on its :data:`kind <KINDS>`. A harness and sandbox files out
of step (an older installation bound into the sandbox) are a clear error, not a guess.

Constants both halves must agree on live here too (the exit status of a function-mode
runner whose entry point cannot be called as declared; the Java runner repeats it, as Java
cannot import this file).

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

from typing import NotRequired, TypedDict

VERSION = 3
#: call-style tests run by the judge against the candidate's functions; I/O tests of a
#: Python program; I/O tests of a program started by a launcher (C++ and Java, compiled
#: first; Python function mode's runner)
CALL, IO, LAUNCHED = "call", "io", "launched"
KINDS = (CALL, IO, LAUNCHED)
#: exit status of a function-mode runner or driver: the entry point is not callable as
#: declared (FunctionRunner.java's NOT_CALLABLE has the same value)
NOT_CALLABLE_EXIT = 97
NOT_CALLABLE_MARK = "beyondpass: function not callable:"
#: the launcher's runner: Python function mode's trusted runner (python_function_runner.py)
PYTHON_FUNCTION = "python-function"


class Limits(TypedDict):
    timeout_s: float
    memory_mb: int
    output_bytes: int
    file_size_mb: int
    test_timeout_s: float | None


class Test(TypedDict, total=False):
    name: str
    code: str  # a call-style test
    stdin: str  # an I/O test: its input, expected output and comparison
    expected_stdout: str
    compare: dict


class Launch(TypedDict):
    command: list[str]
    cases_per_process: int
    memory_headroom_mb: int
    runner: str  # the trusted runner whose protocol the judge speaks ("": a program)


class Compile(TypedDict):
    command: list[str]
    source_name: str
    timeout_s: float
    memory_mb: int
    #: a build the harness kept for this very program and step (relative path -> base64):
    #: written into the build directory instead of compiling (execution/builds.py)
    built: NotRequired[dict[str, str]]
    #: send the build's files back after a compile that succeeded, for the harness to keep
    keep: NotRequired[bool]


class Job(TypedDict):
    version: int
    kind: str
    program: str
    setup: str
    tests: list[Test]
    repeats: int  # timing runs after the verdict (0: none)
    io_timing: bool
    limits: Limits
    seed: int
    io: bool  # kind is IO or LAUNCHED
    launch: NotRequired[Launch]
    compile: NotRequired[Compile]


def make_job(
    kind: str,
    program: str,
    setup: str,
    tests: list,
    limits: Limits,
    seed: int,
    repeats: int = 0,
    io_timing: bool = False,
    launch: "Launch | None" = None,
    compile_step: "Compile | None" = None,
) -> Job:
    """A whole job of this version (the host's one way to make one)."""
    job: Job = {
        "version": VERSION,
        "kind": kind,
        "program": program,
        "setup": setup,
        "tests": tests,
        "repeats": repeats,
        "io_timing": io_timing,
        "limits": limits,
        "seed": seed,
        "io": kind != CALL,
    }
    if launch is not None:
        job["launch"] = launch
    if compile_step is not None:
        job["compile"] = compile_step
    problem = check(job)
    if problem:
        raise ValueError(problem)
    return job


def check(job: object) -> str:
    """Why the judge cannot run ``job`` (empty: it can)."""
    if not isinstance(job, dict):
        return "the job is not an object"
    if job.get("version") != VERSION:
        return f"job version {job.get('version')!r}, the judge speaks {VERSION}"
    if job.get("kind") not in KINDS:
        return f"unknown job kind {job.get('kind')!r}"
    missing = [key for key in Job.__required_keys__ if key not in job]
    if missing:
        return f"the job lacks {', '.join(sorted(missing))}"
    if (job["kind"] == LAUNCHED) != ("launch" in job):
        return "a launched job, and only a launched job, has a launch"
    return ""
