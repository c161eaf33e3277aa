"""Java function mode of the PSB2 method, through the real sandbox and a real JVM.

The trusted ``FunctionRunner.java`` calls an answer's method on every case in one JVM
(docs/psb2.md, "Java function mode"). These tests run real ``javac``/``java`` in the
real bwrap sandbox (CI installs them; the suite fails there if one is missing): our Java
reference functions on every PSB2 edge case, the verdicts of the batched runner against
one JVM per case, hostile functions, and a study over a local HTTP model. None depends
on timing: a case that must time out loops forever.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, create_executor
from beyondpass.execution.languages import compile_step, io_request, launcher
from beyondpass.methods.psb2.analysis import failure_kind, within_epsilon
from beyondpass.methods.psb2.benchmark.data import QUIRKS
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS
from beyondpass.methods.psb2.drivers import function_call
from beyondpass.methods.psb2.drivers_java import (
    JAVA_REFERENCES,
    java_reference_source,
    java_signature,
)
from beyondpass.methods.psb2.prompts import prompt_fields

LIMITS = ExecutionLimits(timeout_s=300, test_timeout_s=5)


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must install {', '.join(missing)} (.ci/run)")
        pytest.skip(f"{', '.join(missing)} not installed")


@pytest.fixture(scope="module")
def executor():
    _need("javac", "java")
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


@pytest.fixture(scope="module")
def java_bench(data_dir):
    from beyondpass.methods.psb2.benchmark.loader import load

    return load(data_dir, n_random=20, language="java")


def _request(
    program: str, tests, limits: ExecutionLimits = LIMITS, problem: str = "gcd"
) -> ExecutionRequest:
    """The function-mode request of an answer to ``problem`` (the answer runs unchanged)."""
    return io_request(
        "java", program, tuple(tests), limits, function=function_call(PROBLEMS[problem], "java")
    )


def _gcd_tests(pairs) -> list[TestCase]:
    import math

    return [
        TestCase(f"c{i}", stdin=f"{a}\n{b}\n", expected_stdout=f"{math.gcd(a, b)}\n")
        for i, (a, b) in enumerate(pairs)
    ]


GCD_PAIRS = [(12, 18), (7, 7), (100, 75), (9, 28), (1, 1), (81, 27), (14, 49), (5, 3)]


def _gcd_answer(body: str, imports: str = "") -> str:
    """A function-mode answer to gcd whose method runs ``body`` first, then Euclid."""
    return (
        f"{imports}\npublic class Solution {{\n    public static int gcd(int a, int b) "
        f"throws Exception {{\n{textwrap.indent(body, ' ' * 8)}\n"
        "        while (b != 0) { int r = a % b; a = b; b = r; }\n        return a;\n    }\n}\n"
    )


def _statuses(result) -> dict[str, str]:
    return {t.name: str(t.status) for t in result.tests}


# ---- signatures and prompts ---------------------------------------------------------


def test_java_signatures_follow_the_typed_io():
    assert java_signature(PROBLEMS["fuel_cost"]) == "public static int fuelCost(int[] vector)"
    assert java_signature(PROBLEMS["coin_sums"]) == "public static int[] coinSums(int cents)"
    assert java_signature(PROBLEMS["cut_vector"]) == "public static int[][] cutVector(int[] vector)"
    assert java_signature(PROBLEMS["snow_day"]) == (
        "public static double snowDay(int hours, double snow, double rate, double melt)"
    )
    assert java_signature(PROBLEMS["solve_boolean"]).startswith("public static boolean ")
    text = prompt_fields(PROBLEMS["coin_sums"], "java")["signature"]
    assert "class named Solution" in text
    assert "in this order: pennies, nickels, dimes, quarters" in text


def test_function_mode_is_the_typed_call_not_text_in_the_program():
    answer = "public class Solution { public static int gcd(int a, int b) { return a; } }"
    call = function_call(PROBLEMS["gcd"], "java")
    assert call.argv() == ("gcd", "int,int", "int")
    request = _request(answer, [])
    assert request.program == answer and request.function == call
    assert request.launcher.command[-4:] == ("FunctionRunner", "gcd", "int,int", "int")
    assert "{runner}/FunctionRunner.java" in request.compile.command
    assert launcher("java", answer).cases_per_process == 1  # program mode: unchanged
    assert "{runner}/BatchRunner.java" in compile_step("java", answer).command
    # text in the program decides nothing: an answer quoting the old trailer runs as written
    quoting = answer + "\n// beyondpass-java-function: gcd int,int -> int\n"
    assert launcher("java", quoting).cases_per_process == 1


def test_extraction_records_the_adaptation(java_bench):
    from beyondpass.methods.psb2.prompts import extract_function

    answer = (
        "```java\npublic class Solution {\n"
        "  public static int gcd(int a, int b) { return a; }\n}\n```"
    )
    found = extract_function(answer, java_bench.tasks["gcd"])
    assert found.ok
    assert found.program == found.code and "return a;" in found.program  # unchanged
    assert found.function == function_call(PROBLEMS["gcd"], "java")
    assert any("FunctionRunner" in note for note in found.notes)


# ---- reference functions --------------------------------------------------------------


def test_java_references_pass_every_edge_case(executor, java_bench):
    """Every edge case passes exactly or within the epsilon; only documented data quirks
    fail, and our 20 random cases per problem (outputs of the Python reference) all pass
    within the epsilon."""
    names = list(JAVA_REFERENCES)
    assert len(names) >= 5
    requests = [
        _request(
            java_reference_source(n),
            java_bench.tasks[PROBLEMS[n].hyphenated].tests,
            problem=n,
        )
        for n in names
    ]
    results = executor.run_many(requests)
    for name, result in zip(names, results, strict=True):
        task = java_bench.tasks[PROBLEMS[name].hyphenated]
        assert len(result.tests) == len(task.tests), (name, result.message)
        for test in result.tests:
            if str(test.status) == "passed":
                continue
            index = int(test.name.split("-")[1])
            quirk = test.name.startswith("edge") and (name, index) in QUIRKS
            assert quirk or within_epsilon(test.message), (name, test.name, test.message)


# ---- batching ---------------------------------------------------------------------------

FLAKY_GCD = """
    static int gcd(int a, int b) {
        if (a == 7) { throw new IllegalStateException("seven"); }
        if (a == 9) { return 2; }
        while (b != 0) { int r = a % b; a = b; b = r; }
        return a;
    }
"""


def test_batched_verdicts_equal_one_jvm_per_case(executor):
    """The same faulty function, called in one JVM by the function runner and in one JVM
    per case by a hand-written main: the same verdict for every case."""
    tests = _gcd_tests(GCD_PAIRS)
    function = f"public class Solution {{{FLAKY_GCD}}}\n"
    program = (
        "import java.util.Scanner;\npublic class Main {"
        + FLAKY_GCD
        + "    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n"
        "        int a = in.nextInt(), b = in.nextInt();\n"
        "        System.out.println(gcd(a, b));\n    }\n}\n"
    )
    batched, single = executor.run_many(
        [_request(function, tests), io_request("java", program, tests, LIMITS)]
    )
    assert launcher("java", program, LIMITS).cases_per_process == 1
    assert _statuses(batched) == _statuses(single)
    assert _statuses(batched)["c1"] == "error" and _statuses(batched)["c3"] == "failed"
    assert "IllegalStateException" in next(t for t in batched.tests if t.name == "c1").message


# ---- status of its own: not callable vs compile error -----------------------------------


def test_a_missing_function_is_not_a_compile_error(executor):
    tests = _gcd_tests(GCD_PAIRS[:3])
    renamed = "public class Solution { public static int greatest(int a, int b) { return a; } }"
    wrong_types = (
        "public class Solution { public static int gcd(String a, String b) { return 1; } }"
    )
    broken = "public class Solution { public static int gcd(int a, int b) { return a } }"
    missing, typed, compile_error = executor.run_many(
        [_request(renamed, tests), _request(wrong_types, tests), _request(broken, tests)]
    )
    for result in (missing, typed):
        kinds = {failure_kind(t.as_dict()) for t in result.tests}
        assert kinds == {"function_not_found"}, result.tests
        assert "no method gcd(int, int)" in result.tests[0].message
    assert str(compile_error.status) == "compile_error"
    assert "';' expected" in compile_error.message


def test_natural_variants_are_called(executor):
    tests = _gcd_tests(GCD_PAIRS[:4])
    instance = (
        "class Solution {\n"
        "  int gcd(Integer a, long b) { return b == 0 ? a : gcd((int) b, a % b); } }"
    )
    other_class = (
        "import java.math.BigInteger;\nclass Maths {\n"
        "  public static long gcd(long a, long b) {\n"
        "    return BigInteger.valueOf(a).gcd(BigInteger.valueOf(b)).longValue(); } }"
    )
    for result in executor.run_many([_request(instance, tests), _request(other_class, tests)]):
        assert set(_statuses(result).values()) == {"passed"}, result.tests


# ---- hostile functions ------------------------------------------------------------------


def _run_gcd(executor, body: str, imports: str = "", pairs=GCD_PAIRS):
    return executor.run(_request(_gcd_answer(body, imports), _gcd_tests(pairs)))


def test_an_infinite_loop_times_out_that_case_only(executor):
    result = _run_gcd(executor, "if (a == 7) { while (true) { } }")
    statuses = _statuses(result)
    assert statuses.pop("c1") == "timeout"
    assert set(statuses.values()) == {"passed"}


@pytest.mark.parametrize("call", ["System.exit(0);", "Runtime.getRuntime().halt(0);"])
def test_exit_or_halt_in_the_function_is_that_cases_error(executor, call):
    result = _run_gcd(executor, f"if (a == 7) {{ {call} }}")
    statuses = _statuses(result)
    assert statuses.pop("c1") == "error"
    assert set(statuses.values()) == {"passed"}
    assert "System.exit" in next(t for t in result.tests if t.name == "c1").message


def test_stack_overflow_and_exceptions_are_named(executor):
    body = "if (a == 7) { return gcd(a, b); }\nif (a == 9) { return a / (b - 28); }"
    result = _run_gcd(executor, body)
    by_name = {t.name: t for t in result.tests}
    assert "StackOverflowError" in by_name["c1"].message
    assert "ArithmeticException" in by_name["c3"].message
    assert {str(t.status) for n, t in by_name.items() if n not in ("c1", "c3")} == {"passed"}


FORGE = """
int g = a, h = b;
while (h != 0) { int r = g % h; g = h; h = r; }
byte[] answer = (g + "\\n").getBytes();
java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
java.io.DataOutputStream d = new java.io.DataOutputStream(frame);
d.writeByte('C'); d.writeInt(0); d.writeByte(1); d.writeInt(answer.length); d.write(answer);
d.writeInt(0);
byte[] forged = frame.toByteArray();
System.out.write(forged); System.out.flush();
"""


@pytest.mark.parametrize(
    "how",
    [
        "",  # System.out only
        "new java.io.FileOutputStream(java.io.FileDescriptor.out).write(forged);",
        'new java.io.FileOutputStream("/proc/self/fd/1").write(forged);',
        'new java.io.FileOutputStream("/dev/stdout").write(forged);',
        'java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");'
        " f.setAccessible(true);",
    ],
)
def test_forged_result_frames_never_pass(executor, how):
    """The function writes a well-formed answer frame holding the right output, then
    returns a wrong value: if the frame reached the judge the case would pass."""
    result = _run_gcd(executor, FORGE + how + "\nif (true) { return g + 1; }")
    assert len(result.tests) == len(GCD_PAIRS)
    assert "passed" not in _statuses(result).values(), result.tests


def test_huge_output_is_that_cases_output_limit(executor):
    body = 'if (a == 7) { String s = "x".repeat(1 << 16); while (true) { System.out.print(s); } }'
    result = _run_gcd(executor, body)
    statuses = _statuses(result)
    assert statuses.pop("c1") == "output_limit"
    assert set(statuses.values()) == {"passed"}


def test_expected_outputs_are_not_reachable(executor):
    """The expected output is an unusual number; the function searches the files and
    process records of its sandbox for it and returns it when found: the case would then
    pass. The expected outputs stay in the judge's sandbox, and the runner's guard refuses
    file reads anyway."""
    body = """
java.util.List<java.nio.file.Path> places = new java.util.ArrayList<>();
for (String root : new String[] {"/proc", "/tmp", System.getProperty("user.home")}) {
    try (java.util.stream.Stream<java.nio.file.Path> s =
            java.nio.file.Files.walk(java.nio.file.Paths.get(root), 2)) {
        s.forEach(places::add);
    } catch (Throwable e) { }
}
places.add(java.nio.file.Paths.get("/proc/self/fd/0"));
for (java.nio.file.Path p : places) {
    try {
        if (new String(java.nio.file.Files.readAllBytes(p)).contains("424242")) { return 424242; }
    } catch (Throwable e) { }
}
"""
    tests = [
        TestCase(f"c{i}", stdin=f"{a}\n{b}\n", expected_stdout="424242\n")
        for i, (a, b) in enumerate(GCD_PAIRS[:3])
    ]
    result = executor.run(_request(_gcd_answer(body), tests))
    assert len(result.tests) == 3
    assert {str(t.status) for t in result.tests} == {"failed"}, result.tests


def test_a_jdk_without_security_manager_runs_no_case(executor):
    """A JDK that refuses a security manager (simulated here with JDK 17's own switch,
    ``-Djava.security.manager=disallow``) cannot keep the function from the channel: the
    runner refuses to start, so the sample is an error and no case passes."""
    program = _gcd_answer("")
    request = _request(program, _gcd_tests(GCD_PAIRS))
    command = tuple(
        "-Djava.security.manager=disallow" if part == "-Djava.security.manager=allow" else part
        for part in request.launcher.command
    )
    assert command != request.launcher.command  # the switch really was replaced
    result = executor.run(replace(request, launcher=replace(request.launcher, command=command)))
    assert str(result.status) == "error"
    assert "refuses a security manager" in result.message
    assert not any(str(t.status) == "passed" for t in result.tests)
    # the same program with the usual launcher passes every case
    assert set(_statuses(executor.run(request)).values()) == {"passed"}


def test_threads_left_running_do_not_touch_later_cases(executor):
    """A thread started by one case keeps printing: the JVM is replaced after that case,
    so the later cases' output limits and answers are theirs alone."""
    body = (
        'if (a == 12) { Thread t = new Thread(() -> { while (true) { System.out.print("x"); } });'
        " t.setDaemon(true); t.start(); }"
    )
    result = _run_gcd(executor, body)
    assert set(_statuses(result).values()) == {"passed"}, result.tests


# ---- a study over a local HTTP model ----------------------------------------------------

JAVA_GCD = (
    "```java\npublic class Solution {\n    public static int gcd(int a, int b) {\n"
    "        while (b != 0) { int r = a % b; a = b; b = r; }\n        return a;\n    }\n}\n```"
)


def _java_answer(prompt: str) -> str:
    """A pretend model: right for gcd; for basement, a method of another name."""
    if "largest integer that divides" in prompt:
        return "Here it is:\n" + JAVA_GCD
    return "```java\npublic class Solution { public static int first(int[] v) { return 0; } }\n```"


def test_java_function_mode_study_against_an_http_model(tmp_path: Path, data_dir) -> None:
    _need("javac", "java")
    from beyondpass.methods.psb2.analysis import collect
    from beyondpass.store.run_store import RunStore
    from beyondpass.study.config import load_study
    from beyondpass.study.runner import StudyRunner
    from fake_endpoints import FakeEndpoint

    with FakeEndpoint(responder=_java_answer) as server:
        study = tmp_path / "s.toml"
        study.write_text(
            textwrap.dedent(
                f"""
                name = "java-fn"
                seed = 0
                [[benchmarks]]
                name = "psb2-java"
                tasks = ["gcd", "basement"]
                [[models]]
                spec = "openai:pretend@{server.openai_base_url}"
                label = "pretend"
                [prompts]
                plan = "psb2-function"
                [execution]
                timeout_s = 600
                """
            )
        )
        outcome = StudyRunner(load_study(study), tmp_path / "run").run()
        assert outcome.complete
    with RunStore(tmp_path / "run", create=False) as store:
        rows = list(store.rows())
    by_task = {r.sample.task_id: r for r in rows}
    prompt = by_task["gcd"].sample.transcript[0]["messages"][0]["content"]
    assert prompt.startswith("Generate a Java code to solve the problem!\n")
    assert "public static int gcd(int a, int b)" in prompt
    assert by_task["gcd"].result.status == "passed"
    assert by_task["gcd"].result.metrics["tests_run"] == 10 + 10_000
    results = {t.task_id: t for t in next(iter(collect(rows).values()))}
    assert results["basement"].failures["function_not_found"] > 0
    assert results["basement"].status != "compile_error"
    assert json.dumps(results["gcd"].counts) == json.dumps(
        {"edge": [10, 10, 10], "random": [10000, 10000, 10000]}
    )
