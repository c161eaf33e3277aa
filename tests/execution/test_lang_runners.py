"""C++ and Java programs on I/O tests in the sandbox: compile once, run every test.

Real compilers (g++, javac from Debian) and the real bwrap sandbox (CI installs them all:
the suite fails there if one is missing). No test depends on timing.
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import OutputComparison, TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor
from beyondpass.execution.languages import (
    compile_step,
    io_request,
    java_main_class,
    launcher,
)


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must install {', '.join(missing)} (.ci/run)")
        pytest.skip(f"{', '.join(missing)} not installed")


@pytest.fixture(scope="module")
def executor():
    _need("g++", "javac", "java")
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


def sums(count: int) -> list[TestCase]:
    return [
        TestCase(f"t{i}", stdin=f"{i} {2 * i}\n", expected_stdout=f"{3 * i}\n")
        for i in range(count)
    ]


LIMITS = ExecutionLimits(timeout_s=60, test_timeout_s=10)
CPP_SUM = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }
"""
JAVA_SUM = """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(a + b);
    }
}
"""
PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


@pytest.mark.parametrize(
    ("language", "program"), [("cpp", CPP_SUM), ("java", JAVA_SUM), ("python", PY_SUM)]
)
def test_a_correct_program_passes_every_test(executor, language, program):
    result = executor.run(io_request(language, program, sums(12), LIMITS))
    assert result.status is Status.PASSED, result.message
    assert [t.name for t in result.tests] == [f"t{i}" for i in range(12)]
    assert all(t.status is Status.PASSED and t.exit_code == 0 for t in result.tests)


@pytest.mark.parametrize(
    ("language", "program"),
    [
        ("cpp", "#include <iostream>\nint main() { std::cout << 7 << std::endl; }\n"),
        (
            "java",
            "public class Main {\n"
            "  public static void main(String[] a) { System.out.println(7); }\n}\n",
        ),
    ],
)
def test_wrong_output_is_failed_with_the_first_differing_line(executor, language, program):
    result = executor.run(io_request(language, program, sums(3), LIMITS))
    assert result.status is Status.FAILED
    assert [t.status for t in result.tests] == [Status.FAILED, Status.FAILED, Status.FAILED]
    assert result.tests[1].error_type == "WrongOutput"
    assert "'3'" in result.tests[1].message and "'7'" in result.tests[1].message


@pytest.mark.parametrize(
    ("language", "program", "quoted"),
    [
        ("cpp", "int main() { return undeclared_name; }\n", "undeclared_name"),
        (
            "java",
            'public class Main { public static void main(String[] a) { int x = "s"; } }\n',
            "incompatible types",
        ),
    ],
)
def test_a_compile_error_keeps_the_compilers_message(executor, language, program, quoted):
    result = executor.run(io_request(language, program, sums(3), LIMITS))
    assert result.status is Status.COMPILE_ERROR
    assert quoted in result.message
    assert result.tests == []  # no test ran


def test_the_compiler_message_is_clipped(executor):
    program = "int main() {\n" + "  undeclared_a = undeclared_b;\n" * 400 + "}\n"
    result = executor.run(io_request("cpp", program, sums(1), LIMITS))
    assert result.status is Status.COMPILE_ERROR
    assert 0 < len(result.message) < 4200


def test_java_static_state_does_not_carry_over_between_tests(executor):
    program = """import java.util.Scanner;
public class Counter {
    static int calls = 0;
    public static void main(String[] args) {
        calls++;
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong() + calls - 1);
    }
}
"""
    result = executor.run(io_request("java", program, sums(6), LIMITS, batch=True))
    assert result.status is Status.PASSED, result.message


def test_java_batches_are_split_across_several_jvms(executor):
    base = io_request("java", JAVA_SUM, sums(7), LIMITS, batch=True)
    small = ExecutionRequest(
        program=base.program,
        tests=base.tests,
        language="java",
        limits=LIMITS,
        compile=base.compile,
        launcher=type(base.launcher)(base.launcher.command, 3),
    )
    result = executor.run(small)
    assert result.status is Status.PASSED, result.message
    assert len(result.tests) == 7


def test_java_one_jvm_per_test_fallback(executor):
    result = executor.run(io_request("java", JAVA_SUM, sums(3), LIMITS, batch=False))
    assert result.status is Status.PASSED, result.message
    assert launcher("java", JAVA_SUM, batch=False).cases_per_process == 1


def test_runtime_errors_are_charged_to_their_test_and_the_rest_run(executor):
    java = """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        if (a == 1) { int[] x = new int[1]; x[5] = 0; }
        System.out.println(a + b);
    }
}
"""
    cpp = """#include <iostream>
#include <stdexcept>
int main() { long long a, b; std::cin >> a >> b;
  if (a == 1) throw std::runtime_error("boom");
  if (a == 2) return 4;
  std::cout << a + b << "\\n"; }
"""
    java_result = executor.run(io_request("java", java, sums(4), LIMITS))
    statuses = [t.status for t in java_result.tests]
    assert statuses == [Status.PASSED, Status.ERROR, Status.PASSED, Status.PASSED]
    assert "ArrayIndexOutOfBoundsException" in java_result.tests[1].message
    assert java_result.status is Status.ERROR
    cpp_result = executor.run(io_request("cpp", cpp, sums(4), LIMITS))
    assert [t.status for t in cpp_result.tests] == [
        Status.PASSED,
        Status.KILLED,
        Status.ERROR,
        Status.PASSED,
    ]
    assert cpp_result.tests[1].error_type == "SIGABRT"
    assert cpp_result.tests[2].exit_code == 4


def test_out_of_memory_is_memory(executor):
    java = """public class Main { public static void main(String[] a) {
        java.util.List<long[]> hog = new java.util.ArrayList<>();
        while (true) hog.add(new long[1 << 20]); } }
"""
    cpp = """#include <vector>
int main() { std::vector<std::vector<char>> hog; while (true) hog.emplace_back(1 << 24, 1); }
"""
    for language, program in (("java", java), ("cpp", cpp)):
        limits = ExecutionLimits(timeout_s=60, test_timeout_s=10, memory_mb=512)
        result = executor.run(io_request(language, program, sums(2), limits))
        assert [t.status for t in result.tests] == [Status.MEMORY, Status.MEMORY], (
            language,
            result.message,
        )


def test_numeric_comparison_with_a_tolerance(executor):
    program = '#include <cstdio>\nint main() { printf("%.7f\\n", 1.0 / 3.0); }\n'
    tests = [
        TestCase(
            "eps",
            stdin="",
            expected_stdout="0.333333\n",
            compare=OutputComparison("numeric", abs_tol=1e-5),
        ),
        TestCase("exact", stdin="", expected_stdout="0.333333\n"),
    ]
    result = executor.run(io_request("cpp", program, tests, LIMITS))
    assert [t.status for t in result.tests] == [Status.PASSED, Status.FAILED]


def test_helpers_spell_out_the_compilers():
    assert compile_step("cpp").command[:3] == ("g++", "-std=c++17", "-O2")
    assert compile_step("java", JAVA_SUM).source_name == "Main.java"
    assert compile_step("python") is None
    assert java_main_class("final class Helper {}\npublic final class Solver { }") == "Solver"
    assert java_main_class("class A {}\nclass B { public static void main(String[] a) {} }") == "B"
    with pytest.raises(ValueError, match="unknown language"):
        compile_step("rust")


def test_requests_the_runners_cannot_run_are_errors(executor):
    cpp_without_launcher = ExecutionRequest(program=CPP_SUM, tests=sums(1), language="cpp")
    rust = ExecutionRequest(program="fn main() {}", tests=sums(1), language="rust")
    for request in (cpp_without_launcher, rust):
        result = executor.run(request)
        assert result.status is Status.ERROR and result.message


def test_evaluate_compiles_cpp_and_java_answers_of_a_file_benchmark(run_cli, tmp_path):
    """`beyondpass evaluate` on `file:` tasks in C++ and Java: the functional evaluator asks
    for the compile step and launcher of the task's language (a right answer passes, a wrong
    one fails with the first differing line, one that does not compile is compile_error)."""
    import json

    tests = [
        {"name": "a", "stdin": "2 3\n", "expected_stdout": "5\n"},
        {"name": "b", "stdin": "10 -4\n", "expected_stdout": "6\n"},
    ]
    tasks = [
        {"task_id": t, "language": lang, "prompt": "Print the sum of two integers.",
         "reference_solution": "", "tests": tests}
        for t, lang in (("sum-cpp", "cpp"), ("sum-java", "java"))
    ]  # fmt: skip
    cpp = "```cpp\n#include <iostream>\nint main(){{long a,b;std::cin>>a>>b;std::cout<<{};}}\n```"
    java = (
        "```java\nimport java.util.*;\npublic class Sum { public static void main(String[] x)"
        " { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() OP s.nextLong());"
        " } }\n```"
    )
    answers = [
        ("sum-cpp", cpp.format('a+b<<"\\n"'), "passed"),
        ("sum-cpp", cpp.format('a-b<<"\\n"'), "failed"),
        ("sum-cpp", "```cpp\nint main(){ return missing; }\n```", "compile_error"),
        ("sum-java", java.replace("OP", "+"), "passed"),
        ("sum-java", java.replace("OP", "*"), "failed"),
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps({"task_id": t, "completion": a}) + "\n" for t, a, _ in answers)
    )
    proc = run_cli(
        ["evaluate", "--benchmark", f"file:{tmp_path / 'tasks.jsonl'}",
         "--samples", "answers.jsonl", "--out", "OUT", "--json"],
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in (tmp_path / "OUT" / "results.jsonl").read_text().splitlines()]
    assert [x["status"] for x in lines] == [s for _, _, s in answers]
    assert lines[1]["message"] == "test a: WrongOutput line 1: expected '5', got '-1'"
    assert lines[4]["message"] == "test a: WrongOutput line 1: expected '5', got '6'"


def test_a_jvm_beside_another_sandboxes_jvm_still_starts(tmp_path):
    """At the ``unshare`` level sandboxes share the host's /tmp, and every PID namespace
    numbers its processes from 1: two JVMs with the same pid used to meet at
    ``/tmp/hsperfdata_root/<pid>``, the second found it locked, warned on stdout — the
    runner's channel — and a correct program was an error ("the runner did not start").
    Here every such file is held locked, as another sandbox's JVM holds it: the JVM keeps
    no such file and writes its warnings to stderr, so the program passes."""
    import fcntl

    from beyondpass.execution.sandbox import level_works

    _need("javac", "java")
    if not level_works("unshare"):
        pytest.skip("the unshare level does not work here")
    folder = Path("/tmp") / f"hsperfdata_{pwd.getpwuid(os.getuid()).pw_name}"
    folder.mkdir(exist_ok=True)
    held = []
    try:
        for pid in range(1, 2049):
            path = folder / str(pid)
            if path.exists():
                continue  # a JVM of this machine's own
            handle = path.open("wb")
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append((path, handle))
        ex = create_executor("sandbox", workers=1, isolation="unshare")
        try:
            result = ex.run(io_request("java", JAVA_SUM, sums(3), LIMITS))
        finally:
            ex.close()
    finally:
        for path, handle in held:
            handle.close()
            path.unlink(missing_ok=True)
    assert result.status is Status.PASSED, result.message
