"""C project mode on a small C project of our own (tests/data/obfuseval_c/strlib): gcov
finds each function's covering tests, the original functions spliced back build and pass
every repeat, a wrong answer fails, a build failure gets the seed's category, and hostile
answers: what is caught (a constructor that ends the process or forges results, writing
outside the copy) and what is not (a function that prints its own passing line)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError
from beyondpass.execution import Sandboxes
from beyondpass.methods.obfuseval.cproject import runner
from beyondpass.methods.obfuseval.project.spec import load_project

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "obfuseval_c"
#: the tests of the fixture's runner (tests/run.c) and what each calls
RUNNER_TESTS = ["clamp", "count_char", "gcd", "palindrome", "reverse", "sum_squares"]


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> runner.CPrepared:
    before = _digest(FIXTURE)
    spec = load_project(FIXTURE / "strlib.toml")
    found = runner.prepare(spec, tmp_path_factory.mktemp("strlib"), Sandboxes(announce=False))
    assert _digest(FIXTURE) == before  # the user's checkout is only read
    return found


def _task(prepared, name: str) -> runner.CTask:
    return next(t for t in prepared.tasks if t.function.name == name)


def test_coverage_finds_each_functions_covering_tests(prepared):
    assert prepared.tests == RUNNER_TESTS and prepared.flaky == []
    covering = {t.function.name: t.tests for t in prepared.tasks}
    assert covering == {
        "clamp": ("clamp",), "gcd": ("gcd",), "sum_squares": ("sum_squares",),
        "count_char": ("count_char",), "reverse_in_place": ("reverse",),
        "is_palindrome": ("palindrome",), "lower": ("palindrome",),  # called by is_palindrome
    }  # fmt: skip
    assert prepared.compiler.startswith(("cc", "gcc"))


def test_the_original_functions_spliced_back_build_and_pass(prepared, tmp_path):
    for task in prepared.tasks:
        result = runner.judge(prepared, task, task.function.text, tmp_path / "work")
        assert (result.compiled, result.passed, result.category) == (True, True, ""), task


@pytest.mark.parametrize(
    "answer, compiled, category, detail",
    [
        ("int gcd(int a, int b) { return a; }", True, "test", "1 of 1 covering tests fail"),
        ("int gcd(int a, int b) { return q; }", False, "compile",
         "scope and definition errors / undeclared identifier"),
        ("int gcd(int a, int b) { return helper_gcd(a, b); }", False, "compile",
         "function and type declaration errors / implicit declaration of function"),
        ("int other(void) { return 1; }", False, "no_code", "the answer defines no function gcd"),
    ],
)  # fmt: skip
def test_a_failing_answer_says_why(prepared, tmp_path, answer, compiled, category, detail):
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert (result.compiled, result.passed, result.category) == (compiled, False, category)
    assert result.detail.startswith(detail)


def test_a_helper_the_answer_adds_is_built_and_reported(prepared, tmp_path):
    answer = (
        "static int gcd_step(int a, int b) { return b == 0 ? a : gcd_step(b, a % b); }\n"
        "int gcd(int a, int b) { return gcd_step(a < 0 ? -a : a, b < 0 ? -b : b); }\n"
    )
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert result.passed and result.added == {"function": ["gcd_step"]}


def test_an_answer_that_ends_the_process_before_the_tests_report_fails(prepared, tmp_path):
    """Caught: no result line for the test. (The constructor check would refuse this
    answer first; ``atexit`` from inside the function is the same end without one.)"""
    answer = "#include <stdlib.h>\nint gcd(int a, int b) { exit(0); return a; }\n"
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert result.compiled and not result.passed
    assert result.failing == {"gcd": "no result line (the run ended with status 0)"}


def test_a_constructor_that_forges_the_result_is_refused(prepared, tmp_path):
    answer = (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        '__attribute__((constructor)) static void early(void) { puts("ok gcd"); exit(0); }\n'
        "int gcd(int a, int b) { return a; }\n"
    )
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert (result.compiled, result.passed, result.category) == (False, False, "hostile")


def test_not_caught_a_function_that_prints_its_own_passing_line(prepared, tmp_path):
    """The limit of the C setting (docs/obfuseval.md): the answer runs inside the test
    binary, so a function that prints the runner's result line and ends the process when
    it is first called fakes a pass. This test documents it: when it fails, the limit is
    gone and the docs must change."""
    answer = (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        'int gcd(int a, int b) { puts("ok gcd"); fflush(stdout); exit(0); }\n'
    )
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert result.passed


def test_an_answer_cannot_write_outside_its_copy(prepared, tmp_path):
    victim = tmp_path / "user-file.txt"
    victim.write_text("mine")
    answer = (
        "#include <stdio.h>\n"
        "int gcd(int a, int b) {\n"
        f'  FILE *f = fopen("{victim}", "w"); if (f) {{ fputs("gone", f); fclose(f); }}\n'
        "  while (b) { int t = a % b; a = b; b = t; } return a < 0 ? -a : a; }\n"
    )
    result = runner.judge(prepared, _task(prepared, "gcd"), answer, tmp_path / "work")
    assert victim.read_text() == "mine"
    assert result.compiled  # it built and ran: the sandbox, not the build, stopped it


@pytest.mark.parametrize(
    "change, message",
    [
        (
            "result = '^(?P<status>ok|FAIL) (?P<name>[a-z_]+)'\n",
            "a C project needs \\[test\\] result",
        ),
        ("(?P<name>[a-z_]+)", "needs the named groups"),
    ],
)
def test_a_c_description_without_a_usable_result_pattern_is_one_error(tmp_path, change, message):
    text = (FIXTURE / "strlib.toml").read_text()
    broken = (
        text.replace(change, "") if change.startswith("result") else text.replace(change, "(\\w+)")
    )
    (tmp_path / "strlib").symlink_to(FIXTURE / "strlib")
    (tmp_path / "strlib.toml").write_text(broken)
    with pytest.raises(ConfigError, match=message):
        load_project(tmp_path / "strlib.toml")


def test_the_check_and_judge_commands(run_cli, tmp_path):
    project = FIXTURE / "strlib.toml"
    done = run_cli(["obfuseval", "cproject", "check", project, "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["tests"], summary["compiled"], summary["passed"]) == (6, 7, 7)
    assert summary["sandbox"]["isolation"] == "bwrap"  # recorded with the verdicts
    # the sandbox options every command that runs code has: a level that does not confine
    # the project's files is refused in one line, before anything is built
    weak = run_cli(["obfuseval", "cproject", "check", project, "--isolation", "process"],
                   cwd=tmp_path)  # fmt: skip
    assert weak.returncode == 2 and "bwrap" in weak.stderr and weak.stderr.count("\n") == 1
    wrong = tmp_path / "answer.c"
    wrong.write_text("int clamp(int x, int lo, int hi) { return x; }\n")
    judged = run_cli(
        ["obfuseval", "cproject", "judge", project, "--task", "lib/mathutil.c::clamp",
         "--answer", wrong],
        cwd=tmp_path,
    )  # fmt: skip
    assert judged.returncode == 1 and "FAIL (test: 1 of 1 covering tests fail)" in judged.stdout
    unknown = run_cli(
        ["obfuseval", "cproject", "judge", project, "--task", "x", "--answer", wrong], cwd=tmp_path
    )
    assert unknown.returncode == 2 and "no task 'x'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_the_test_command_takes_the_tests_as_the_runner_wants_them():
    from dataclasses import replace

    from beyondpass.methods.obfuseval.cproject import testruns

    spec = load_project(FIXTURE / "strlib.toml")
    assert testruns.argv(spec, ["gcd", "clamp"]) == ["./run_tests", "gcd", "clamp"]
    assert testruns.argv(spec, None) == ["./run_tests"]  # the whole suite
    clar = replace(spec, test_command=("build/libgit2_tests", "-v", "-s{test}"))
    assert testruns.argv(clar, ["refs::create", "index"]) == [
        "build/libgit2_tests", "-v", "-srefs::create", "-sindex"
    ]  # fmt: skip
    whole = replace(spec, test_command=("make", "test"))
    assert testruns.argv(whole, ["gcd"]) == ["make", "test"]  # the seed's compat


def test_the_seeds_whole_suite_mode_judges_every_function_by_every_test(tmp_path):
    """``[test] select = "whole-suite"``: no coverage build; each run is the whole suite
    and every test must pass (the seed's ``make test``)."""
    text = (FIXTURE / "strlib.toml").read_text()
    text = text.replace('command = "./run_tests {tests}"', 'command = "./run_tests"')
    text = text.replace("[test]\n", '[test]\nselect = "whole-suite"\n')
    text = text.replace("coverage = ", "# coverage = ")
    (tmp_path / "strlib").symlink_to(FIXTURE / "strlib")
    (tmp_path / "whole.toml").write_text(text)
    spec = load_project(tmp_path / "whole.toml")
    assert spec.whole_suite and spec.coverage_build == ""
    found = runner.prepare(spec, tmp_path / "scratch", Sandboxes(announce=False))
    gcd = _task(found, "gcd")
    assert gcd.tests == tuple(RUNNER_TESTS) and len(found.tasks) == 7
    assert runner.judge(found, gcd, gcd.function.text, tmp_path / "w").passed
    wrong = runner.judge(found, gcd, "int gcd(int a, int b) { return a; }", tmp_path / "w")
    assert wrong.failing == {"gcd": "reported 'FAIL'"}  # the other five still pass


def test_a_build_that_does_not_end_is_a_timeout(prepared, tmp_path):
    """The build runs under the description's time limit (here 1 s against a build that
    would take 60 s): the answer's verdict is ``timeout``, not a compile error."""
    from dataclasses import replace

    slow = replace(prepared, spec=replace(prepared.spec, install="sleep 60", timeout_s=1))
    task = _task(prepared, "gcd")
    result = runner.judge(slow, task, task.function.text, tmp_path / "work")
    assert (result.compiled, result.category) == (False, "timeout")
