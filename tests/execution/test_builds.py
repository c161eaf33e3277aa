"""Compiled programs kept by content (execution/builds.py): a program judged again is not
compiled again, gets the verdicts a compile would give, and nothing a program does when it
runs reaches the build kept for the next sample with the same source.

Real compilers (g++, javac) and the real sandbox (CI installs them). Each test's programs
carry a fresh marker comment, so no other test's kept builds serve them.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from test_lang_runners import _need

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, Status, builds, create_executor
from beyondpass.execution.languages import compile_step, io_request
from beyondpass.execution.sandbox_executor import HERE

LIMITS = ExecutionLimits(timeout_s=60, test_timeout_s=10)
SUMS = [TestCase(f"t{i}", stdin=f"{i} {2 * i}\n", expected_stdout=f"{3 * i}\n") for i in range(4)]
CPP = """// {mark}
#include <iostream>
int main() {{ long long a, b; std::cin >> a >> b; std::cout << a {op} b << "\\n"; }}
"""
JAVA = """// {mark}
import java.util.Scanner;
public class Main {{
    public static void main(String[] args) {{
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(a {op} b);
    }}
}}
"""
PROGRAMS = {"cpp": CPP, "java": JAVA}


@pytest.fixture(scope="module")
def executor():
    _need("g++", "javac", "java")
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


def _program(language: str, op: str = "+") -> str:
    return PROGRAMS[language].format(mark=uuid.uuid4().hex, op=op)


def _key(language: str, program: str) -> str:
    key = builds.key(program, compile_step(language, program), HERE)
    assert key is not None
    return key


def _verdicts(result) -> list:
    return [(t.name, t.status, t.message, t.exit_code) for t in result.tests]


@pytest.mark.parametrize("language", ["cpp", "java"])
def test_a_program_judged_again_runs_its_kept_build_with_the_same_verdicts(executor, language):
    right, wrong = _program(language), _program(language, "-")
    kept, hits = builds.BUILDS.kept, builds.BUILDS.hits
    first = executor.run(io_request(language, right, SUMS, LIMITS))
    assert first.status is Status.PASSED, first.message
    assert (builds.BUILDS.kept, builds.BUILDS.hits) == (kept + 1, hits)
    again = executor.run(io_request(language, right, SUMS, LIMITS))
    assert builds.BUILDS.hits == hits + 1 and builds.BUILDS.kept == kept + 1
    assert again.status is Status.PASSED and _verdicts(again) == _verdicts(first)
    # what runs is the kept build, not a compile: give the right program the wrong one's
    # build, and it gives the wrong one's answers (0 - 0 passes; 1 - 2 does not)
    assert executor.run(io_request(language, wrong, SUMS, LIMITS)).status is Status.FAILED
    builds.BUILDS.put(_key(language, right), builds.BUILDS.get(_key(language, wrong)))
    swapped = executor.run(io_request(language, right, SUMS, LIMITS))
    assert swapped.status is Status.FAILED
    assert [t.status for t in swapped.tests] == [Status.PASSED] + [Status.FAILED] * 3


def test_a_program_that_destroys_its_own_build_does_not_reach_the_kept_one(executor):
    """The build is sent back before the program first runs: a program that replaces its
    own executable with garbage when it runs leaves the next sample of the same source a
    working build."""
    program = f"""// {uuid.uuid4().hex}
#include <cstdio>
#include <iostream>
#include <unistd.h>
int main() {{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {{
        self[n] = 0;
        unlink(self);
        if (FILE* f = fopen(self, "w")) {{ fputs("garbage", f); fclose(f); }}
    }}
    long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n";
}}
"""
    one = SUMS[1:2]  # one test per sample: the process that breaks the build is the last
    hits = builds.BUILDS.hits
    for _ in range(3):
        result = executor.run(io_request("cpp", program, one, LIMITS))
        assert result.status is Status.PASSED, result.message
    assert builds.BUILDS.hits == hits + 2
    # and with two tests the second one meets the garbage: the attack is real
    broken = executor.run(io_request("cpp", program, SUMS[:2], LIMITS))
    assert [t.status for t in broken.tests][0] is Status.PASSED
    assert broken.status is not Status.PASSED


def test_a_compile_error_is_never_kept(executor):
    program = f"// {uuid.uuid4().hex}\nint main() {{ return undeclared; }}\n"
    kept, hits = builds.BUILDS.kept, builds.BUILDS.hits
    for _ in range(2):
        result = executor.run(io_request("cpp", program, SUMS, LIMITS))
        assert result.status is Status.COMPILE_ERROR and "undeclared" in result.message
    assert (builds.BUILDS.kept, builds.BUILDS.hits) == (kept, hits)


def test_without_the_cache_every_sample_compiles():
    _need("g++")
    program = _program("cpp")
    executor = create_executor("sandbox", workers=1, compile_cache=False)
    try:
        kept, hits = builds.BUILDS.kept, builds.BUILDS.hits
        for _ in range(2):
            assert executor.run(io_request("cpp", program, SUMS, LIMITS)).status is Status.PASSED
        assert (builds.BUILDS.kept, builds.BUILDS.hits) == (kept, hits)
        assert executor.metadata()["compile_cache"] is False
    finally:
        executor.close()


def test_the_key_changes_with_every_input_of_the_compile(tmp_path: Path):
    _need("g++", "javac")
    program = _program("java")
    step = compile_step("java", program)
    for name in {p.rsplit("/", 1)[1] for p in step.command if p.startswith("{runner}/")}:
        shutil.copy(HERE / name, tmp_path / name)
    base = builds.key(program, step, tmp_path)
    assert base is not None and base == builds.key(program, step, HERE)
    assert builds.key(program + " ", step, tmp_path) != base
    runner = next(tmp_path.iterdir())
    runner.write_text(runner.read_text() + "\n// changed\n")
    assert builds.key(program, step, tmp_path) != base
    longer = type(step)(step.command, step.source_name, step.timeout_s + 1, step.memory_mb)
    assert builds.key(program, longer, HERE) != base
    missing = type(step)(("no-such-compiler-here", *step.command[1:]), step.source_name)
    assert builds.key(program, missing, HERE) is None


def test_only_paths_inside_the_build_are_kept():
    table = builds.Builds()
    for bad in ("../x", "/etc/passwd", "a/../b", "", "a//b", "./a", "a\\b", "a\0b"):
        assert table.put(bad or "k", {bad: "eA=="}) is False, bad
    assert table.put("k", "not a table") is False and table.put("k", {}) is False
    assert table.kept == 0
    assert table.put("k", {"main": "eA==", "pkg/Main.class": "eA=="}) is True
    assert table.get("k") == {"main": "eA==", "pkg/Main.class": "eA=="}


def test_the_least_recently_used_build_goes_first_when_over_budget():
    table = builds.Builds(budget=10)
    six = {"main": "A" * 8}  # 6 bytes once decoded
    assert table.put("a", six) and table.put("b", six)  # 12 > 10: a goes
    assert table.get("a") is None and table.get("b") == six
