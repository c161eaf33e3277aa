"""I/O tests (stdin in, stdout compared): comparison modes, the native task format, the
sandbox executor's verdicts and the real ``beyondpass evaluate`` command on a ``file:``
benchmark. Hostile I/O programs are in test_sandbox_hostile.py."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from beyondpass.benchmarks.native import load_tasks_file
from beyondpass.benchmarks.task import OutputComparison, TestCase
from beyondpass.errors import DataError
from beyondpass.execution import (
    CompileStep,
    ExecutionLimits,
    ExecutionRequest,
    Status,
    create_executor,
)
from beyondpass.execution.sandboxed.io_compare import compare

NUMERIC = {"mode": "numeric", "abs_tol": 0.01, "rel_tol": 0.0}
SUM_TESTS = (
    TestCase("small", stdin="2 3\n", expected_stdout="5\n"),
    TestCase("negative", stdin="10 -4\n", expected_stdout="6\n"),
)
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


# -- comparison (pure) ------------------------------------------------------------------------
def test_exact_comparison_is_byte_for_byte_and_names_the_first_differing_line() -> None:
    assert compare(b"1\n2\n", "1\n2\n", {"mode": "exact"}) == ""
    assert compare(b"1\n3\n", "1\n2\n", {"mode": "exact"}) == "line 2: expected '2', got '3'"
    assert compare(b"1 \n", "1\n", {"mode": "exact"}) == "line 1: expected '1', got '1 '"
    assert compare(b"1\n", "1\n2\n", {"mode": "exact"}) == "line 2: expected '2', got ''"
    assert compare(b"1", "1\n", {"mode": "exact"}) == "line 2: expected '', got end of output"


def test_whitespace_comparison_ignores_blank_runs_line_ends_and_trailing_blank_lines() -> None:
    spec = {"mode": "whitespace"}
    assert compare(b"  1   2\r\n3\t\n\n\n", "1 2\n3\n", spec) == ""
    assert compare(b"1 2\n", "1 2\n3\n", spec) == "line 2: expected '3', got end of output"
    assert compare(b"12\n", "1 2\n", spec) == "line 1: expected '1 2', got '12'"
    assert compare(b"1\n\n2\n", "1\n2\n", spec) != ""  # a blank line inside still counts


def test_numeric_comparison_applies_the_tolerance_to_numbers_only() -> None:
    assert compare(b"0.501 x\n", "0.5 x\n", NUMERIC) == ""
    assert compare(b"0.52 x\n", "0.5 x\n", NUMERIC) == "line 1: expected '0.5 x', got '0.52 x'"
    assert compare(b"0.5 y\n", "0.5 x\n", NUMERIC) != ""
    assert compare(b"1e3\n", "1000.0\n", NUMERIC) == ""
    assert compare(b"1_000\n", "1000\n", NUMERIC) != ""  # not a decimal number token
    assert compare(b"nan\n", "nan\n", NUMERIC) == ""  # equal text matches
    assert compare(b"5 6\n", "5\n", NUMERIC) != ""
    relative = {"mode": "numeric", "abs_tol": 0.0, "rel_tol": 1e-3}
    assert compare(b"1000.9\n", "1000\n", relative) == ""
    assert compare(b"1001.1\n", "1000\n", relative) != ""


def test_output_comparison_rejects_unknown_modes_and_stray_tolerances() -> None:
    with pytest.raises(ValueError, match="unknown comparison"):
        OutputComparison("fuzzy")
    with pytest.raises(ValueError, match="numeric comparison only"):
        OutputComparison("exact", abs_tol=0.1)
    with pytest.raises(ValueError, match=">= 0"):
        OutputComparison("numeric", abs_tol=float("nan"))


# -- the native task format -------------------------------------------------------------------
def _task_row(**fields) -> dict:
    return {"task_id": "t", "prompt": "p", "reference_solution": SUM, **fields}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_native_format_loads_comparisons_per_task_and_per_test(tmp_path: Path) -> None:
    row = _task_row(
        compare="whitespace",
        tests=[
            {"name": "a", "stdin": "1\n", "expected_stdout": "1\n"},
            {"name": "b", "stdin": "1\n", "expected_stdout": "1\n", "compare": "exact"},
            {"name": "c", "expected_stdout": "1\n", "compare": {"mode": "numeric", "abs_tol": 2}},
            {"name": "d", "stdin": "", "expected_stdout": "1\n", "compare": "numeric"},
        ],
    )
    task = load_tasks_file(_write(tmp_path / "t.jsonl", [row]), "mine").tasks["t"]
    assert [t.compare.as_dict() for t in task.tests] == [
        {"mode": "whitespace"},
        {"mode": "exact"},
        {"mode": "numeric", "abs_tol": 2, "rel_tol": 0.0},
        {"mode": "numeric", "abs_tol": 1e-6, "rel_tol": 1e-6},
    ]
    assert all(t.is_io for t in task.tests) and task.tests[2].stdin == ""


@pytest.mark.parametrize(
    ("tests", "message"),
    [
        (
            [{"code": "assert f() == 1"}, {"stdin": "", "expected_stdout": "1\n"}],
            "mixes code tests and stdin/stdout tests",
        ),
        ([{"stdin": "1\n"}], "an I/O test needs 'expected_stdout'"),
        ([{"code": "assert 1", "expected_stdout": "1"}], "has both 'code' and 'expected_stdout'"),
        ([{"expected_stdout": "1", "compare": "fuzzy"}], "unknown comparison 'fuzzy'"),
        ([{"expected_stdout": "1", "compare": {"mode": "exact", "abs_tol": 1}}], "numeric"),
        ([{"expected_stdout": "1", "compare": {"mode": "numeric", "tol": 1}}], "mode name or"),
        ([{"expected_stdout": 5}], "must be strings"),
    ],
)
def test_native_format_rejects_malformed_io_tests(tmp_path: Path, tests, message) -> None:
    path = _write(tmp_path / "bad.jsonl", [_task_row(tests=tests)])
    with pytest.raises(DataError, match=message):
        load_tasks_file(path, "bad")


def test_a_request_holds_one_kind_of_test() -> None:
    with pytest.raises(ValueError, match="not both"):
        ExecutionRequest("x = 1", (TestCase("a", "assert x"), *SUM_TESTS))


# -- the sandbox executor -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def executor():
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


def run(executor, program: str, tests=SUM_TESTS, **limits):
    request = ExecutionRequest(
        program=textwrap.dedent(program),
        tests=tests,
        limits=ExecutionLimits(**{"timeout_s": 5, **limits}),
    )
    return executor.run(request)


def test_a_correct_program_passes_and_records_how_it_was_compared(executor) -> None:
    result = run(executor, SUM)
    assert result.status is Status.PASSED, result.message
    assert [t.as_dict() for t in result.tests] == [
        {"name": "small", "status": "passed", "compare": {"mode": "exact"}, "exit_code": 0},
        {"name": "negative", "status": "passed", "compare": {"mode": "exact"}, "exit_code": 0},
    ]


def test_the_false_pass_of_the_issue_is_gone(executor) -> None:
    result = run(executor, "print('hello world')\n")
    assert result.status is Status.FAILED
    assert result.message == "test small: WrongOutput line 1: expected '5', got 'hello world'"


def test_a_wrong_answer_in_a_later_line_is_shown_by_its_line(executor) -> None:
    tests = (TestCase("t", stdin="3\n", expected_stdout="1\n2\n3\n"),)
    result = run(executor, "n = int(input())\nfor i in range(n):\n    print(i)\n", tests)
    assert result.status is Status.FAILED
    assert result.tests[0].message == "line 1: expected '1', got '0'"


def test_a_program_that_crashes_after_printing_the_right_output_fails(executor) -> None:
    result = run(executor, SUM + "raise RuntimeError('late')\n")
    assert result.status is Status.ERROR
    assert result.tests[0].exit_code == 1
    assert result.tests[0].message == "exit status 1: RuntimeError: late"


def test_sys_exit_codes_count(executor) -> None:
    assert run(executor, SUM + "import sys\nsys.exit(0)\n").status is Status.PASSED
    failed = run(executor, SUM + "import sys\nsys.exit('bye')\n")
    assert (failed.status, failed.tests[0].exit_code) == (Status.ERROR, 1)
    assert run(executor, SUM + "import sys\nsys.exit(256 + 7)\n").tests[0].exit_code == 7


def test_reading_past_the_given_input_fails(executor) -> None:
    result = run(executor, "a, b = map(int, input().split())\ninput()\nprint(a + b)\n")
    assert result.status is Status.ERROR
    assert "EOFError" in result.tests[0].message


def test_the_whole_input_is_there_however_large(executor) -> None:
    big = "".join(f"{i}\n" for i in range(200_000))  # larger than a pipe's buffer
    tests = (TestCase("big", stdin=big, expected_stdout=f"{sum(range(200_000))}\n"),)
    program = "import sys\nprint(sum(int(x) for x in sys.stdin.buffer.read().split()))\n"
    assert run(executor, program, tests).status is Status.PASSED


def test_a_float_within_tolerance_passes_only_in_numeric_mode(executor) -> None:
    for compare_as, expected in [
        (OutputComparison("numeric", abs_tol=0.01), Status.PASSED),
        (OutputComparison("whitespace"), Status.FAILED),
        (OutputComparison("exact"), Status.FAILED),
    ]:
        tests = (TestCase("half", stdin="1\n", expected_stdout="0.5\n", compare=compare_as),)
        result = run(executor, "print(float(input()) / 2 + 0.001)\n", tests)
        assert result.status is expected, (compare_as, result.message)
        assert result.tests[0].compare == compare_as.as_dict()


def test_a_program_that_does_not_compile_is_a_compile_error(executor) -> None:
    result = run(executor, "print(1)\nreturn 5\n")  # parses, but does not compile
    assert result.status is Status.COMPILE_ERROR
    assert "'return' outside function" in result.message
    assert len(result.tests) == 1  # compiled once: no further test was tried


def test_the_program_runs_as_main_with_fresh_state_per_test(executor) -> None:
    program = """
        import os
        seen = os.path.exists("marker")
        open("marker", "w").close()
        if __name__ == "__main__" and not seen:
            a, b = map(int, input().split())
            print(a + b)
    """
    assert run(executor, program).status is Status.PASSED


def test_per_test_and_sample_timeouts(executor) -> None:
    tests = (*SUM_TESTS, TestCase("slow", stdin="0 0\n", expected_stdout="0\n"))
    program = SUM + "import time\nif a == 0:\n    time.sleep(30)\n"
    result = run(executor, program, tests, timeout_s=20, test_timeout_s=1)
    assert result.status is Status.TIMEOUT
    assert [t.status for t in result.tests] == ["passed", "passed", "timeout"]


def test_requests_the_executor_cannot_run_are_errors_never_passes(executor) -> None:
    java = ExecutionRequest("class Main {}", SUM_TESTS, language="java")
    compiled = ExecutionRequest(SUM, SUM_TESTS, compile=CompileStep(("true",), "main.py"))
    for request in (java, compiled):
        result = executor.run(request)
        assert result.status is Status.ERROR and result.message, request


def test_timing_runs_of_io_tests_leave_the_verdict_and_say_why_there_are_no_times(executor):
    passing = executor.run(ExecutionRequest(SUM, SUM_TESTS, timing_repeats=3))
    assert passing.status is Status.PASSED
    assert "not supported" in passing.timing_error
    assert not any(t.times_ns for t in passing.tests)
    failing = executor.run(ExecutionRequest("print(1)\n", SUM_TESTS, timing_repeats=3))
    assert failing.status is Status.FAILED and failing.timing_error == ""


# -- end to end through the CLI -----------------------------------------------------------------
def test_evaluate_a_file_benchmark_with_io_tests(run_cli, tmp_path: Path) -> None:
    tasks = [
        _task_row(
            task_id="sum",
            prompt="Read two integers and print their sum.",
            prompt_style="description",
            tests=[
                {"name": "small", "stdin": "2 3\n", "expected_stdout": "5\n"},
                {"name": "negative", "stdin": "10 -4\n", "expected_stdout": "6\n"},
            ],
        ),
        _task_row(
            task_id="half",
            prompt="Read a number and print half of it.",
            prompt_style="description",
            reference_solution="print(float(input()) / 2)\n",
            compare={"mode": "numeric", "abs_tol": 0.01},
            tests=[{"name": "one", "stdin": "1\n", "expected_stdout": "0.5\n"}],
        ),
    ]
    answers = [
        ("sum", SUM, "passed"),
        ("sum", "print('hello world')\n", "failed"),
        ("sum", SUM + "raise SystemExit(2)\n", "error"),
        ("sum", "print(sum(map(int, input().split())) + len(input()))\n", "error"),
        # the CLI's extraction compiles Python answers first: its verdict, before the executor
        ("sum", "print(1)\nreturn 5\n", "syntax_error"),
        ("half", "print(0.501)\n", "passed"),
        ("half", "print('0.6')\n", "failed"),
    ]
    _write(tmp_path / "tasks.jsonl", tasks)
    _write(tmp_path / "answers.jsonl", [{"task_id": t, "solution": s} for t, s, _ in answers])
    proc = run_cli(
        ["evaluate", "--benchmark", "file:tasks.jsonl", "--samples", "answers.jsonl"]
        + ["--out", "OUT", "--json"],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in (tmp_path / "OUT" / "results.jsonl").open()]
    assert [r["status"] for r in results] == [status for _, _, status in answers]
    assert (
        results[1]["message"] == "test small: WrongOutput line 1: expected '5', got 'hello world'"
    )
    assert results[6]["message"] == "test one: WrongOutput line 1: expected '0.5', got '0.6'"
    db = sqlite3.connect(f"file:{tmp_path / 'OUT' / 'run.sqlite3'}?mode=ro", uri=True)
    details = [
        json.loads(d)
        for (d,) in db.execute(
            "SELECT details FROM evaluations WHERE status IS NOT NULL ORDER BY rowid"
        )
    ]
    db.close()
    assert details[5]["tests"][0]["compare"] == {"mode": "numeric", "abs_tol": 0.01, "rel_tol": 0.0}


# -- clean-up never walks read-only binds under the scratch root (the /tmp slowdown) ------------
def test_clean_up_skips_read_only_binds_and_removes_strays_beside_them(tmp_path: Path) -> None:
    """In a real bwrap sandbox: a directory bound read-only under /tmp/x/venv (as a Python
    installation under /tmp is), the fork server's scratch clean-up run after a sample left
    files in /tmp, in /tmp/x and in its working directory. Every stray goes; nothing is
    tried inside the bind (every unlink/rmdir/rmtree attempt is recorded)."""
    from beyondpass.execution import sandbox
    from beyondpass.execution.sandbox_executor import worker_spec

    if not sandbox.level_works("bwrap"):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI must run the bwrap sandbox: install bubblewrap")
        pytest.skip("bubblewrap does not work on this machine")
    venv = tmp_path / "venv"
    (venv / "lib").mkdir(parents=True)
    for i in range(50):
        (venv / "lib" / f"m{i}.py").write_text("x = 1\n")
    script = textwrap.dedent(
        """
        import json, os, shutil, sys
        sys.path.insert(0, "/opt/beyondpass")
        import fork_server
        tried = []
        for module, name in ((os, "unlink"), (os, "rmdir"), (shutil, "rmtree")):
            real = getattr(module, name)
            def spy(path, *a, _real=real, **k):
                tried.append(str(path))
                return _real(path, *a, **k)
            setattr(module, name, spy)
        scratch = fork_server.Scratch("/tmp")
        for path in ("/tmp/stray", "/tmp/x/stray", scratch.work + "/left"):
            open(path, "w").close()
        os.mkdir("/tmp/straydir")
        tried.clear()
        scratch.clean()
        print(json.dumps({
            "tried": tried,
            "tmp": sorted(os.listdir("/tmp")),
            "x": sorted(os.listdir("/tmp/x")),
            "work": os.listdir(scratch.work),
            "venv_files": len(os.listdir("/tmp/x/venv/lib")),
        }))
        """
    )
    spec = worker_spec("bwrap", "candidate", (), 16)
    # the candidate's sandbox with a venv bound under /tmp, running our script instead
    spec = replace(
        spec,
        argv=(*spec.argv[:3], "-c", script),
        binds=(*spec.binds, sandbox.Bind(str(venv), "/tmp/x/venv")),
    )
    started = sandbox.command("bwrap", spec)
    proc = subprocess.run(
        started.argv,
        env=started.env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["venv_files"] == 50
    # the harness's own Python, when it lives under /tmp, is bound there read-only too
    own = {
        Path(prefix).relative_to("/tmp").parts[0]
        for prefix in {sys.prefix, sys.base_prefix}
        if Path(prefix).is_relative_to("/tmp")
    }
    assert sorted(set(seen["tmp"]) - own) == ["logs", "w1", "x"]
    assert seen["x"] == ["venv"] and seen["work"] == []
    assert not [p for p in seen["tried"] if "venv" in p], seen["tried"]
    assert {"/tmp/stray", "/tmp/x/stray", "/tmp/straydir"} <= set(seen["tried"])
