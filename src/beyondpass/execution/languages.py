"""Compiled languages: the compile step and the launcher of each, so callers never spell
out compiler flags.

``io_request(language, program, tests)`` builds the :class:`ExecutionRequest` of an I/O
sample in ``python``, ``cpp`` (``g++ -std=c++17 -O2``, one process per test) or ``java``
(``javac``; many tests per JVM through the trusted batch runner, ``BatchRunner.java``).
Placeholders in the commands are filled in the candidate sandbox: ``{build}`` is the
directory the compile step writes to and that the tests run from, ``{runner}`` the
directory holding the runner's source. See docs/sandbox.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution.base import CompileStep, ExecutionLimits, ExecutionRequest, Launcher

LANGUAGES = ("python", "cpp", "java")
#: tests per JVM launch in batch mode (a JVM that exits or hangs is replaced earlier)
JAVA_BATCH = 1000
#: cases per process of a C++ program that speaks the batch protocol itself (a generated
#: function-mode driver, marked by ``CPP_BATCH_MARK``; a crash or hang replaces it earlier)
CPP_BATCH = 5000
#: the first line of a generated C++ batch driver (methods/comparison/drivers_cpp.py)
CPP_BATCH_MARK = "// beyondpass: batched function-mode driver v1"
#: JVM settings that fit the sandbox's address-space limit and its process budget: a small
#: code cache and class space, a serial collector (few threads) and two JIT threads
_JVM_FLAGS = (
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


def compile_step(language: str, program: str = "") -> CompileStep | None:
    """The compile step of ``language`` (``None`` for Python)."""
    if language == "java" and java_function_call(program):
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
    language: str, program: str = "", limits: ExecutionLimits | None = None, batch: bool = False
) -> Launcher | None:
    """How ``language``'s program starts (``None`` for a Python program: the fork server's
    process runs it; a Python function-mode program, see below, gets the Python function
    runner). Java runs one JVM
    per test by default (nothing the JVM says is trusted); ``batch=True`` runs many tests per
    JVM through the batch runner, ~100x faster, but the program shares its process with the
    runner and could report a crash after the right output as a clean return (docs/sandbox.md):
    callers that choose it must record that they did. A C++ program that carries a generated
    batch driver (``CPP_BATCH_MARK``) runs ``CPP_BATCH`` cases per process: the driver
    speaks the runner's protocol itself (docs/sandbox.md, "C++: many cases per process")."""
    limits = limits or ExecutionLimits()
    if language == "java" and java_function_call(program):
        return java_function_launcher(program, limits)
    if language == "cpp":
        if CPP_BATCH_MARK in program:  # ``batch`` is Java's: a C++ program must speak it
            return Launcher(("{build}/main",), CPP_BATCH)
        return Launcher(("{build}/main",))
    if language == "java":
        command = _java(limits)
        if batch:
            return Launcher(
                (*command, "BatchRunner", java_main_class(program)), JAVA_BATCH, JVM_HEADROOM_MB
            )
        return Launcher((*command, java_main_class(program)), 1, JVM_HEADROOM_MB)
    if language == "python":
        return python_function_launcher(program) if python_function_call(program) else None
    raise ValueError(f"unknown language {language!r} — choose {', '.join(LANGUAGES)}")


def io_request(
    language: str,
    program: str,
    tests: Sequence[TestCase],
    limits: ExecutionLimits | None = None,
    batch: bool = False,
) -> ExecutionRequest:
    """The request that compiles ``program`` once and runs it on every I/O test."""
    limits = limits or ExecutionLimits()
    return ExecutionRequest(
        program=program,
        tests=tests,
        language=language,
        limits=limits,
        compile=compile_step(language, program),
        launcher=launcher(language, program, limits, batch),
    )


# ---- Java function mode: one JVM calls the program's function on many cases ----------

#: the last line of a Java function-mode program names the function the trusted
#: ``FunctionRunner.java`` calls and its typed I/O (comparison/drivers_java.py writes it)
JAVA_FUNCTION_TRAILER = "// beyondpass-java-function:"
#: cases per JVM in function mode: all of a sample's (a JVM that exits, hangs or leaves
#: threads running is replaced after that case)
JAVA_FUNCTION_BATCH = 1_000_000
_CALL = re.compile(r"([A-Za-z_$][\w$]*) ([a-z_,]+|-) -> ([a-z_,]+)")


def java_function_call(program: str) -> tuple[str, str, str] | None:
    """(method, input types, output types) from a function-mode program's trailer (its
    last line, which the harness appended), or ``None`` for any other program."""
    last = program.rstrip().rpartition("\n")[2].strip()
    if not last.startswith(JAVA_FUNCTION_TRAILER):
        return None
    found = _CALL.fullmatch(last[len(JAVA_FUNCTION_TRAILER) :].strip())
    return (found.group(1), found.group(2), found.group(3)) if found else None


def _javac(program: str, runner: str, jvm_extra: tuple[str, ...] = ()) -> CompileStep:
    """``javac`` of the program (its file named after its public class) with a runner."""
    source = f"{java_main_class(program)}.java"
    jvm = tuple(f"-J{flag}" for flag in (*_JVM_FLAGS, "-Xmx768m", *jvm_extra))
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
    """``javac`` of the program with the trusted function runner (not the batch runner);
    javac itself runs with the client compiler only (a third less CPU per compile)."""
    return _javac(program, "FunctionRunner.java", ("-XX:TieredStopAtLevel=1",))


def java_function_launcher(program: str, limits: ExecutionLimits) -> Launcher:
    """``java ... FunctionRunner METHOD INPUTS OUTPUTS``: every case of the sample in one
    JVM through the batch protocol of ``compiled_judge`` (docs/comparison.md)."""
    call = java_function_call(program)
    if call is None:
        raise ValueError("not a Java function-mode program (no trailer line)")
    return Launcher((*_java(limits), "FunctionRunner", *call), JAVA_FUNCTION_BATCH, JVM_HEADROOM_MB)


# ---- Python function mode: one process calls the answer's function on many cases -------

#: the last line of a Python function-mode program names the function the trusted
#: ``python_function_runner.py`` calls and its typed I/O (comparison/drivers.py writes it)
PYTHON_FUNCTION_TRAILER = "# beyondpass-python-function:"
#: the trusted runner's file (the judge recognises its launcher by it: compiled_judge.py)
PYTHON_FUNCTION_RUNNER = "python_function_runner.py"
#: cases per process: all of a sample's (a case that ends the process, hangs or leaves
#: threads, processes or files behind is followed by a fresh process)
PYTHON_FUNCTION_BATCH = 1_000_000


def python_function_call(program: str) -> tuple[str, str, str] | None:
    """(function, input types, output types) from a Python function-mode program's
    trailer (its last line, which the harness appended), or ``None`` for any other."""
    last = program.rstrip().rpartition("\n")[2].strip()
    if not last.startswith(PYTHON_FUNCTION_TRAILER):
        return None
    found = _CALL.fullmatch(last[len(PYTHON_FUNCTION_TRAILER) :].strip())
    return (found.group(1), found.group(2), found.group(3)) if found else None


def python_function_launcher(program: str) -> Launcher:
    """``python python_function_runner.py BUILD FUNCTION INPUTS OUTPUTS``: every case of
    the sample in one process through the batch protocol of ``compiled_judge`` (each
    answer bound to its case by a nonce; docs/sandbox.md, "Python function mode")."""
    call = python_function_call(program)
    if call is None:
        raise ValueError("not a Python function-mode program (no trailer line)")
    command = (sys.executable, "-s", "-P", f"{{runner}}/{PYTHON_FUNCTION_RUNNER}", "{build}")
    return Launcher((*command, *call), PYTHON_FUNCTION_BATCH)
