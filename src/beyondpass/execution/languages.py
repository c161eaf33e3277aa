"""Compiled languages: the compile step and the launcher of each, so callers never spell
out compiler flags.

``io_request(language, program, tests)`` builds the :class:`ExecutionRequest` of an I/O
sample in ``python``, ``cpp`` (``g++ -std=c++17 -O2``, one process per test) or ``java``
(``javac``; many tests per JVM through the trusted batch runner, ``BatchRunner.java``).
With ``function`` (a :class:`FunctionCall`), the sample is in function mode: a trusted
runner calls the program's function on every case in one process (Python's
``python_function_runner.py``, Java's ``FunctionRunner.java``; a C++ program carries its
generated batch driver and runs ``CPP_BATCH`` cases per process).
Placeholders in the commands are filled in the candidate sandbox: ``{build}`` is the
directory the compile step writes to and that the tests run from, ``{runner}`` the
directory holding the runner's source. See docs/sandbox.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from beyondpass.benchmarks.task import FunctionCall, TestCase
from beyondpass.execution.base import CompileStep, ExecutionLimits, ExecutionRequest, Launcher
from beyondpass.execution.sandboxed.job import PYTHON_FUNCTION

LANGUAGES = ("python", "cpp", "java")
#: tests per JVM launch in batch mode (a JVM that exits or hangs is replaced earlier)
JAVA_BATCH = 1000
#: cases per process of a C++ program in function mode, whose generated driver speaks the
#: batch protocol itself (methods/psb2/drivers_cpp.py; a crash or hang replaces it)
CPP_BATCH = 5000
#: JVM settings that fit the sandbox's address-space limit and its process budget: a small
#: code cache and class space, a serial collector (few threads) and two JIT threads. The
#: JVM's own warnings go to stderr, never to stdout, which is the runner's channel to the
#: judge; and it keeps no performance-data file in /tmp (``hsperfdata``), which sandboxes
#: without a private /tmp (the ``unshare`` level) shared: two JVMs with the same pid in
#: their PID namespaces found each other's file locked and warned on stdout, so under load
#: a correct program's runner was taken not to have started.
_JVM_FLAGS = (
    "-XX:-UsePerfData",
    "-Xlog:disable",
    "-Xlog:all=warning:stderr",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=256m",
    "-XX:+UseSerialGC",
    "-XX:CICompilerCount=2",
    "-Xshare:auto",
)
_PUBLIC_CLASS = re.compile(
    r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*class\s+([A-Za-z_$][\w$]*)"
)
_ANY_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][\w$]*)")
_MAIN = re.compile(r"\bstatic\s+(?:final\s+)?void\s+main\s*\(")


def java_main_class(program: str) -> str:
    """The class whose ``main`` runs: the public class (javac requires the file to be named
    after it), else the class declared before the first ``main``, else ``Main``."""
    public = _PUBLIC_CLASS.search(program)
    if public:
        return public.group(1)
    main = _MAIN.search(program)
    before = _ANY_CLASS.findall(program[: main.start()] if main else program)
    return before[-1] if before else "Main"


#: address space a JVM reserves beyond its heap (code cache, class space, metaspace,
#: thread stacks, malloc arenas): added to the memory limit for a JVM's process
JVM_HEADROOM_MB = 1024


def java_heap_mb(limits: ExecutionLimits) -> int:
    """The JVM's heap: half the memory limit (the program's objects live there; the JVM's
    own reservations get ``JVM_HEADROOM_MB`` on top of the limit)."""
    return max(64, limits.memory_mb // 2)


def compile_step(
    language: str, program: str = "", function: FunctionCall | None = None
) -> CompileStep | None:
    """The compile step of ``language`` (``None`` for Python)."""
    if language == "java" and function is not None:
        return java_function_compile_step(program)
    if language == "cpp":
        return CompileStep(
            ("g++", "-std=c++17", "-O2", "-pipe", "-o", "{build}/main", "{build}/main.cpp"),
            "main.cpp",
        )
    if language == "java":
        return _javac(program, "BatchRunner.java")
    if language == "python":
        return None
    raise ValueError(f"unknown language {language!r} — choose {', '.join(LANGUAGES)}")


def launcher(
    language: str,
    program: str = "",
    limits: ExecutionLimits | None = None,
    batch: bool = False,
    function: FunctionCall | None = None,
) -> Launcher | None:
    """How ``language``'s program starts (``None`` for a Python program: the fork server's
    process runs it; in function mode, the Python function runner). Java runs one JVM
    per test by default (nothing the JVM says is trusted); ``batch=True`` runs many tests per
    JVM through the batch runner, ~100x faster, but the program shares its process with the
    runner and could report a crash after the right output as a clean return (docs/sandbox.md):
    callers that choose it must record that they did. A C++ program in function mode runs
    ``CPP_BATCH`` cases per process: its generated driver speaks the runner's protocol
    itself (docs/sandbox.md, "C++: many cases per process")."""
    limits = limits or ExecutionLimits()
    if language == "java" and function is not None:
        return java_function_launcher(function, limits)
    if language == "cpp":
        return Launcher(("{build}/main",), CPP_BATCH if function is not None else 1)
    if language == "java":
        command = _java(limits)
        if batch:
            return Launcher(
                (*command, "BatchRunner", java_main_class(program)), JAVA_BATCH, JVM_HEADROOM_MB
            )
        return Launcher((*command, java_main_class(program)), 1, JVM_HEADROOM_MB)
    if language == "python":
        return python_function_launcher(function) if function is not None else None
    raise ValueError(f"unknown language {language!r} — choose {', '.join(LANGUAGES)}")


def io_request(
    language: str,
    program: str,
    tests: Sequence[TestCase],
    limits: ExecutionLimits | None = None,
    batch: bool = False,
    function: FunctionCall | None = None,
) -> ExecutionRequest:
    """The request that compiles ``program`` once and runs it on every I/O test (in
    function mode with ``function``)."""
    limits = limits or ExecutionLimits()
    return ExecutionRequest(
        program=program,
        tests=tests,
        language=language,
        limits=limits,
        compile=compile_step(language, program, function),
        launcher=launcher(language, program, limits, batch, function),
        function=function,
    )


# ---- Java function mode: one JVM calls the program's function on many cases ----------

#: cases per JVM in function mode: all of a sample's (a JVM that exits, hangs or leaves
#: threads running is replaced after that case)
JAVA_FUNCTION_BATCH = 1_000_000


def _javac(program: str, runner: str) -> CompileStep:
    """``javac`` of the program (its file named after its public class) with a runner.
    javac itself runs with the client compiler only: the classes it writes are the same,
    and a compile takes some 40 % less CPU (0.6 s instead of 1.0 s for a small program)."""
    source = f"{java_main_class(program)}.java"
    jvm = tuple(f"-J{flag}" for flag in (*_JVM_FLAGS, "-Xmx768m", "-XX:TieredStopAtLevel=1"))
    return CompileStep(
        (
            "javac",
            *jvm,
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-Xlint:-removal",
            "-d",
            "{build}",
            f"{{build}}/{source}",
            f"{{runner}}/{runner}",
        ),
        source,
    )


def _java(limits: ExecutionLimits) -> tuple[str, ...]:
    """``java`` with the sandbox's JVM settings, up to the class to run."""
    return (
        "java",
        *_JVM_FLAGS,
        f"-Xmx{java_heap_mb(limits)}m",
        "-Xss8m",
        "-Djava.security.manager=allow",
        "-cp",
        "{build}",
    )


def java_function_compile_step(program: str) -> CompileStep:
    """``javac`` of the program with the trusted function runner (not the batch runner)."""
    return _javac(program, "FunctionRunner.java")


def java_function_launcher(function: FunctionCall, limits: ExecutionLimits) -> Launcher:
    """``java ... FunctionRunner METHOD INPUTS OUTPUTS``: every case of the sample in one
    JVM through the batch protocol of ``compiled_judge`` (docs/psb2.md)."""
    command = (*_java(limits), "FunctionRunner", *function.argv())
    return Launcher(command, JAVA_FUNCTION_BATCH, JVM_HEADROOM_MB)


# ---- Python function mode: one process calls the answer's function on many cases -------

#: the trusted runner's file (its name in the launcher, ``PYTHON_FUNCTION``, is the job's)
PYTHON_FUNCTION_RUNNER = "python_function_runner.py"
#: cases per process: all of a sample's (a case that ends the process, hangs or leaves
#: threads, processes or files behind is followed by a fresh process)
PYTHON_FUNCTION_BATCH = 1_000_000


def python_function_launcher(function: FunctionCall) -> Launcher:
    """``python python_function_runner.py BUILD FUNCTION INPUTS OUTPUTS``: every case of
    the sample in one process through the batch protocol of ``compiled_judge`` (each
    answer bound to its case by a nonce; docs/sandbox.md, "Python function mode")."""
    command = (sys.executable, "-s", "-P", f"{{runner}}/{PYTHON_FUNCTION_RUNNER}", "{build}")
    return Launcher((*command, *function.argv()), PYTHON_FUNCTION_BATCH, runner=PYTHON_FUNCTION)
