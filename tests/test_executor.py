"""The process-per-sample executor: verdicts, limits, and that a sample cannot fake a pass."""

from __future__ import annotations

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, ExecutionRequest, Status, create_executor

TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))
GOOD = "def inc(x):\n    return x + 1\n"


@pytest.fixture(scope="module")
def executor():
    return create_executor("subprocess", workers=2)


def run(executor, program: str, tests=TESTS, **limits) -> object:
    return executor.run(
        ExecutionRequest(program=program, tests=tests, limits=ExecutionLimits(**limits))
    )


def test_correct_program_passes_every_test(executor):
    result = run(executor, GOOD)
    assert result.status is Status.PASSED
    assert [(t.name, t.status) for t in result.tests] == [("a", "passed"), ("b", "passed")]


def test_wrong_result_is_failed_and_names_the_test(executor):
    result = run(executor, "def inc(x):\n    return x\n")
    assert result.status is Status.FAILED
    assert result.message.startswith("test a: AssertionError")


def test_exception_is_error_with_its_type(executor):
    result = run(executor, "def inc(x):\n    raise ValueError('nope')\n")
    assert result.status is Status.ERROR
    assert "ValueError" in result.message and "nope" in result.message


def test_error_at_load_time(executor):
    result = run(executor, "import does_not_exist_anywhere\n" + GOOD)
    assert result.status is Status.ERROR
    assert "ModuleNotFoundError" in result.message


def test_infinite_loop_times_out(executor):
    result = run(executor, "def inc(x):\n    while True:\n        pass\n", timeout_s=1)
    assert result.status is Status.TIMEOUT


def test_memory_bomb_hits_the_memory_limit(executor):
    result = run(executor, "x = bytearray(8 * 1024**3)\n" + GOOD, memory_mb=512)
    assert result.status is Status.MEMORY


def test_segfault_is_killed(executor):
    result = run(executor, "import ctypes\nctypes.string_at(0)\n" + GOOD)
    assert result.status is Status.KILLED
    assert "SIGSEGV" in result.message


@pytest.mark.parametrize(
    "trick",
    [
        "import sys\nsys.exit(0)\n",
        "import os\nos._exit(0)\n",
        "import os\ndef inc(x):\n    os._exit(0)\n",
        "import sys\ndef inc(x):\n    sys.exit(0)\n",
        'print(\'{"event": "done"}\')\n',
        "import builtins\nbuiltins.AssertionError = type('X', (Exception,), {})\n"
        "def inc(x):\n    return 0\n",
    ],
)
def test_exit_and_print_tricks_never_pass(executor, trick):
    assert run(executor, trick).status is not Status.PASSED


def test_environment_is_scrubbed(executor, monkeypatch):
    monkeypatch.setenv("BEYONDPASS_TEST_SECRET", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    program = (
        "import os\n"
        "def inc(x):\n"
        "    assert 'BEYONDPASS_TEST_SECRET' not in os.environ\n"
        "    assert 'OPENAI_API_KEY' not in os.environ\n"
        "    return x + 1\n"
    )
    assert run(executor, program).status is Status.PASSED


def test_runs_in_a_private_scratch_directory(executor, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = (
        "import os\n"
        "open('scratch.txt', 'w').write('x')\n"
        f"assert os.getcwd() != {str(tmp_path)!r}\n" + GOOD
    )
    assert run(executor, program).status is Status.PASSED
    assert not (tmp_path / "scratch.txt").exists()


def test_stdin_is_empty(executor):
    program = "import sys\nassert sys.stdin.read() == ''\n" + GOOD
    assert run(executor, program).status is Status.PASSED


def test_output_is_captured_and_bounded(executor):
    result = run(executor, "print('hello from the sample')\n" + GOOD)
    assert "hello from the sample" in result.stdout
    flood = run(executor, "import sys\nsys.stdout.write('x' * 50_000_000)\n" + GOOD)
    assert flood.status is Status.OUTPUT_LIMIT
    assert len(flood.stdout) <= 4000


def test_timing_repeats_are_reported_per_test(executor):
    request = ExecutionRequest(program=GOOD, tests=TESTS, timing_repeats=5)
    result = executor.run(request)
    assert result.status is Status.PASSED
    assert all(len(t.times_ns) == 5 and all(x > 0 for x in t.times_ns) for t in result.tests)


def test_run_many_keeps_request_order(executor):
    programs = [GOOD, "def inc(x):\n    return x\n", GOOD, "syntax error here (", GOOD]
    seen: list[int] = []
    results = executor.run_many(
        [ExecutionRequest(program=p, tests=TESTS) for p in programs],
        on_result=lambda i, r: seen.append(i),
    )
    assert [r.status for r in results] == [
        Status.PASSED,
        Status.FAILED,
        Status.PASSED,
        Status.ERROR,
        Status.PASSED,
    ]
    assert sorted(seen) == [0, 1, 2, 3, 4]


def test_scratch_directories_are_removed(tmp_path):
    executor = create_executor("subprocess", workers=1, scratch_root=str(tmp_path))
    run(executor, "open('junk', 'w').write('x')\n" + GOOD)
    run(executor, "def inc(x):\n    while True:\n        pass\n", timeout_s=1)
    assert list(tmp_path.iterdir()) == []
