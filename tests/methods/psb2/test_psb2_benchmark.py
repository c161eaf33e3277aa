"""PSB2 for the PSB2 method: typed I/O, our reference solutions against every PSB2
edge case through the sandboxed executor, the seeded generators against the published
input constraints, the random-case cache and the loader's original-file path."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.errors import DataError
from beyondpass.execution import ExecutionRequest, Status, create_executor
from beyondpass.execution.languages import io_request
from beyondpass.methods.psb2.analysis import within_epsilon
from beyondpass.methods.psb2.benchmark import data as psb2_data
from beyondpass.methods.psb2.benchmark import reference
from beyondpass.methods.psb2.benchmark.generators import generate_inputs
from beyondpass.methods.psb2.benchmark.loader import io_test, load
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS, Arg, problem
from beyondpass.methods.psb2.benchmark.textio import parse_value, render_lines
from beyondpass.methods.psb2.drivers import (
    NOT_CALLABLE_EXIT,
    function_call,
    python_program,
    python_signature,
    reference_program,
)

NAMES = sorted(PROBLEMS)


@pytest.fixture(scope="module")
def edge_bench(data_dir: Path):
    return load(data_dir, n_random=0, name="psb2-edge")


@pytest.fixture(scope="module")
def executor():
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


# -- typed I/O ---------------------------------------------------------------------------------
def test_rendering_follows_the_documented_line_format() -> None:
    p = problem("cut-vector")
    assert render_lines(p.inputs, [[1, 2, 3]]) == "1 2 3\n"
    assert render_lines(p.outputs, [[1, 2], []]) == "1 2\n\n"
    bb = problem("bouncing_balls")
    assert render_lines(bb.inputs, [1.001, 1.0, 1]) == "1.001\n1.0\n1\n"
    assert render_lines(problem("solve-boolean").outputs, [False]) == "false\n"
    with pytest.raises(ValueError, match="line break"):
        render_lines(problem("twitter").inputs, ["a\nb"])
    vec = Arg("v", "vec_float")
    assert parse_value(vec, "0.1 -2.5") == [0.1, -2.5]
    with pytest.raises(KeyError, match="unknown PSB2 problem 'nope'"):
        problem("nope")


def test_the_cpp_and_java_edge_benchmarks_are_the_edge_cases_in_their_language(
    edge_bench, data_dir: Path
) -> None:
    """``psb2-cpp-edge`` and ``psb2-java-edge``, found by name as a study names them: the
    481 edge cases of ``psb2-edge``, the same inputs and outputs, in their language."""
    from beyondpass.benchmarks import load_benchmark

    for name, language in (("psb2-cpp-edge", "cpp"), ("psb2-java-edge", "java")):
        bench = load_benchmark(name, data_dir)
        assert bench.name == name and len(bench) == 25
        for task_id, task in bench.tasks.items():
            assert task.language == language
            python = edge_bench.tasks[task_id].tests
            assert [(t.stdin, t.expected_stdout) for t in task.tests] == [
                (t.stdin, t.expected_stdout) for t in python
            ]


def test_loader_reads_all_25_descriptions_and_481_edge_cases(edge_bench) -> None:
    assert len(edge_bench) == 25
    assert sum(len(t.tests) for t in edge_bench.tasks.values()) == 481
    task = edge_bench.tasks["find-pair"]
    assert task.prompt.startswith("Given a vector of integers, return the two elements")
    assert task.tests[0] == TestCase(
        "edge-0", stdin="5 7\n12\n", expected_stdout="5\n7\n", compare=task.tests[0].compare
    )
    assert task.tests[0].compare.mode == "whitespace"
    assert edge_bench.tasks["vector-distance"].tests[0].compare.mode == "whitespace"
    quirks = {t: dict(x.metadata["quirks"]) for t, x in edge_bench.tasks.items()}
    assert {t for t, q in quirks.items() if q} == {"bouncing-balls"}
    assert list(quirks["bouncing-balls"]) == ["edge-1"]


# -- reference solutions, in the sandbox, against every edge case -----------------------------
@pytest.mark.parametrize("name", NAMES)
def test_reference_solution_passes_every_edge_case(name, edge_bench, executor) -> None:
    task = edge_bench.tasks[problem(name).hyphenated]
    # batched: the typed call gets it the Python function runner
    call = function_call(problem(name), "python")
    request = io_request("python", task.reference_solution, task.tests, function=call)
    assert request.launcher is not None
    result = executor.run(request)
    failed = {
        t.name: t.message
        for t in result.tests
        if t.status is not Status.PASSED and not within_epsilon(t.message)
    }
    quirks = {f"edge-{i}" for (p, i) in psb2_data.QUIRKS if p == name}
    assert len(result.tests) == len(task.tests)
    assert set(failed) == quirks, failed  # only the documented data quirks miss


def test_the_bouncing_balls_quirk_is_the_documented_distance(edge_bench) -> None:
    case = edge_bench.tasks["bouncing-balls"].tests[1]
    assert case.stdin == "100.0\n99.999\n20\n"
    expected = float(case.expected_stdout)
    # closed form of the double-precision answer, independent of the reference's loop
    b = 99.999 / 100.0
    closed = 100.0 + 2 * 100.0 * sum(b**k for k in range(1, 20)) + 100.0 * b**20
    assert math.isclose(abs(closed - expected), 4.9e-4, abs_tol=1e-5)


# -- generators --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_generated_inputs_satisfy_the_published_constraints(name) -> None:
    inputs = generate_inputs(name, 2000, seed=7)
    bad = [(x, PROBLEMS[name].violations(x)) for x in inputs if PROBLEMS[name].violations(x)]
    assert not bad[:3]
    assert len({json.dumps(x) for x in inputs}) > 1  # not one case repeated


def test_generators_follow_the_clojush_input_functions() -> None:
    """Shapes of Clojush's PSB2 ``*-input`` functions that a plain domain check misses
    (seeded, so each count is a fixed number, not a chance)."""
    draw = {name: generate_inputs(name, 10000, seed=11) for name in ("basement", "find_pair",
            "substitution_cipher", "twitter", "dice_game", "fizz_buzz", "mastermind",
            "solve_boolean", "cut_vector")}  # fmt: skip
    # basement: the answer index is spread over the whole vector, not bunched at the start
    answers = Counter(reference.basement(*x) for x in draw["basement"])
    assert set(answers) == set(range(20))
    # find-pair: distinct elements; substitution: a one-to-one cipher on both sides
    assert all(len(set(v)) == len(v) for v, _ in draw["find_pair"])
    assert all(len(set(t)) == len(t) and s for s, t, _ in draw["substitution_cipher"])
    # twitter's random tweets hold visible characters only; some exceed 140
    tweets = [t for (t,) in draw["twitter"]]
    assert not any(" " in t for t in tweets) and any(len(t) > 140 for t in tweets)
    # ranges beyond the edge cases: dice up to 1000 sides, fizz-buzz up to 1,000,000
    assert max(max(x) for x in draw["dice_game"]) > 900
    assert 0.03 < sum(n == m for n, m in draw["dice_game"]) / 10000 < 0.08  # 100 of 2000
    assert max(x for (x,) in draw["fizz_buzz"]) > 900000
    assert 0.08 < sum(a == b for a, b in draw["mastermind"]) / 10000 < 0.12  # 200 of 2000
    # solve-boolean: 2-20 terms; cut-vector: zeros occur, and the fixed length-20 share
    assert {(len(e) + 1) // 2 for (e,) in draw["solve_boolean"]} == set(range(2, 21))
    assert any(0 in v for (v,) in draw["cut_vector"])


def test_constraint_checks_reject_inputs_outside_the_domain() -> None:
    assert PROBLEMS["basement"].violations([[1, 2]]) == ["no prefix sum is negative"]
    assert PROBLEMS["bowling"].violations(["XXXXXXXXXXX"])  # one bonus roll short
    assert PROBLEMS["find_pair"].violations([[1, 1, 1], 2])  # three pairs
    assert PROBLEMS["luhn"].violations([[1] * 15])
    assert PROBLEMS["gcd"].violations([0, 5]) == ["a: 0 outside [1, 1000000]"]


def test_generators_are_reproducible_from_the_seed() -> None:
    assert generate_inputs("bowling", 50, 3) == generate_inputs("bowling", 50, 3)
    assert generate_inputs("bowling", 50, 3) != generate_inputs("bowling", 50, 4)


def test_random_cases_are_cached_and_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    cases, origin = psb2_data.random_cases("gcd", 20, 5, cache_dir=tmp_path)
    assert origin.startswith("generated")
    files = list((tmp_path / "psb2-random").iterdir())
    assert len(files) == 1
    for c in cases:
        assert c.outputs == [math.gcd(*c.inputs)]  # independent oracle
    files[0].write_text("garbage\n")
    again, _ = psb2_data.random_cases("gcd", 20, 5, cache_dir=tmp_path)
    assert again == cases
    cached, origin = psb2_data.random_cases("gcd", 20, 5, cache_dir=tmp_path)
    assert origin == str(files[0]) and cached == cases


def test_random_reference_programs_agree_in_the_sandbox(executor, tmp_path: Path) -> None:
    """The reference as a sandboxed program reproduces the cached outputs (the driver's
    rendering matches the loader's)."""
    for name in ("vector_distance", "cut_vector", "solve_boolean", "spin_words"):
        p = PROBLEMS[name]
        cases, _ = psb2_data.random_cases(name, 30, 1, cache_dir=tmp_path)
        tests = [io_test(p, c, TestCase("x").compare) for c in cases]
        for request in (
            ExecutionRequest(program=reference_program(p), tests=tests),  # a process per case
            io_request("python", reference_program(p), tests, function=function_call(p, "python")),
        ):
            result = executor.run(request)
            assert result.status is Status.PASSED, result.message


# -- original PSB2 files -----------------------------------------------------------------------
def test_original_psb2_files_are_read_and_random_cases_sampled(tmp_path: Path) -> None:
    (tmp_path / "psb2").mkdir()
    rows = [
        {"input1": a, "input2": b, "output1": math.gcd(a, b)}
        for a, b in ((random.Random(i).randint(1, 99), i + 1) for i in range(40))
    ]
    (tmp_path / "psb2" / "gcd-random.json").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), "utf-8"
    )
    cases, origin = psb2_data.random_cases("gcd", 10, 0, data_dir=tmp_path)
    assert origin.endswith("gcd-random.json") and len(cases) == 10
    assert all(c.outputs == [math.gcd(*c.inputs)] for c in cases)
    (tmp_path / "psb2" / "gcd-random.json").write_text('{"input1": 3}\n', "utf-8")
    with pytest.raises(DataError, match="missing key 'input2'"):
        psb2_data.random_cases("gcd", 10, 0, data_dir=tmp_path)


def test_missing_descriptions_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="psb2/tasks.txt not found"):
        psb2_data.load_descriptions(tmp_path)


# -- function mode driver ----------------------------------------------------------------------
def test_function_mode_driver_calls_the_function_and_flags_a_missing_one(executor) -> None:
    p = PROBLEMS["mastermind"]
    assert python_signature(p) == "def mastermind(code: str, guess: str) -> tuple[int, int]:"
    good = (
        "def mastermind(code, guess):\n    b = sum(x == y for x, y in zip(code, guess))\n"
        "    return sum(min(code.count(c), guess.count(c)) for c in set(code)) - b, b\n"
    )
    test = TestCase("t", stdin="RRBB\nBRRG\n", expected_stdout="2\n1\n")
    ok = executor.run(ExecutionRequest(program=python_program(good, p), tests=[test]))
    assert ok.status is Status.PASSED, ok.message
    wrong_name = good.replace("def mastermind", "def solve")
    res = executor.run(ExecutionRequest(program=python_program(wrong_name, p), tests=[test]))
    assert res.status is not Status.PASSED
    assert res.tests[0].exit_code == NOT_CALLABLE_EXIT


def test_original_edge_files_load_like_edge_jsonl(data_dir: Path, tmp_path: Path) -> None:
    """PSB2's own ``<problem>-edge.json`` layout (input1.., output1..) gives the same cases."""
    reference = psb2_data.load_edge_cases(data_dir)
    for name, cases in reference.items():
        folder = tmp_path / "psb2" / PROBLEMS[name].hyphenated
        folder.mkdir(parents=True)
        lines = []
        for c in cases:
            row = {f"input{i + 1}": v for i, v in enumerate(c.inputs)}
            row.update({f"output{i + 1}": v for i, v in enumerate(c.outputs)})
            lines.append(json.dumps(row))
        (folder / f"{PROBLEMS[name].hyphenated}-edge.json").write_text("\n".join(lines) + "\n")
    assert psb2_data.load_edge_cases(tmp_path) == reference
