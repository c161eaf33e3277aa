"""C++ function mode of the PSB2 method: the signatures, the generated batched
driver (many cases per process), our C++ reference functions on every PSB2 edge case,
and what a hostile or broken answer gets. Real g++ and the real bwrap sandbox; no test
depends on timing."""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionLimits, Status, create_executor
from beyondpass.execution.languages import CPP_BATCH, launcher
from beyondpass.methods.psb2 import drivers_cpp
from beyondpass.methods.psb2.analysis import failure_kind, within_epsilon
from beyondpass.methods.psb2.benchmark import data as psb2_data
from beyondpass.methods.psb2.benchmark.loader import load
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS
from beyondpass.methods.psb2.drivers import NOT_CALLABLE_EXIT, function_call
from beyondpass.methods.psb2.drivers_cpp import (
    cpp_signature,
    has_main,
    reference_names,
    reference_source,
)
from beyondpass.methods.psb2.prompts import (
    extract_function,
    function_mode_request,
    signature,
)

LIMITS = ExecutionLimits(timeout_s=120, test_timeout_s=3)


def _need_gpp() -> None:
    if shutil.which("g++") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI must install g++ (.ci/run)")
        pytest.skip("g++ not installed")


@pytest.fixture(scope="module")
def executor():
    _need_gpp()
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


@pytest.fixture(scope="module")
def edge_bench(data_dir: Path):
    return load(data_dir, n_random=0, name="psb2-edge", language="cpp")


@pytest.fixture(scope="module")
def random_bench(data_dir: Path):
    return load(data_dir, n_random=2000, name="psb2-cpp", language="cpp")


def _gcd_test(name: str, a: int, b: int, expected: str) -> TestCase:
    return TestCase(name, stdin=f"{a}\n{b}\n", expected_stdout=f"{expected}\n")


# -- signatures and programs ----------------------------------------------------------


def test_signatures_use_the_documented_cpp_types() -> None:
    assert cpp_signature(PROBLEMS["gcd"]) == "int gcd(int a, int b)"
    assert (
        cpp_signature(PROBLEMS["find_pair"])
        == "std::pair<int, int> find_pair(const std::vector<int>& vector, int target)"
    )
    assert cpp_signature(PROBLEMS["coin_sums"]).startswith("std::tuple<int, int, int, int> ")
    assert cpp_signature(PROBLEMS["vector_distance"]) == (
        "double vector_distance(const std::vector<double>& a, const std::vector<double>& b)"
    )
    assert cpp_signature(PROBLEMS["solve_boolean"]).startswith("bool solve_boolean(const std::")
    assert signature(PROBLEMS["gcd"], "cpp") == "Implement this function:\nint gcd(int a, int b)"


def test_every_psb2_integer_fits_the_int_of_the_signature(data_dir: Path) -> None:
    """The signatures use ``int``: every integer of every edge case and of the seeded random
    cases fits in 32 bits."""
    edges = psb2_data.load_edge_cases(data_dir)
    seen = 0
    for name, p in PROBLEMS.items():
        cases = list(edges[name]) + psb2_data.random_cases(name, 2000, 0, str(data_dir))[0]
        for case in cases:
            for arg, value in [
                *zip(p.inputs, case.inputs, strict=True),
                *zip(p.outputs, case.outputs, strict=True),
            ]:
                values = value if arg.type == "vec_int" else [value] if arg.type == "int" else []
                for v in values:
                    seen += 1
                    assert -(2**31) <= v < 2**31, (name, arg.name, v)
    assert seen > 10000


def test_main_detection_ignores_comments_and_strings() -> None:
    assert has_main("int main() { return 0; }")
    assert has_main("int main(int argc, char** argv)\n{}")
    assert not has_main('// int main()\n/* main( */ const char* s = "main(";\nint f();')
    assert not has_main("int domain(int x);")


def test_extraction_appends_the_cpp_driver_and_says_so(edge_bench) -> None:
    task = edge_bench.tasks["gcd"]
    answer = f"Sure:\n```cpp\n{reference_source(PROBLEMS['gcd'])}```\n"
    found = extract_function(answer, task)
    assert found.ok
    assert found.code.strip() == reference_source(PROBLEMS["gcd"]).strip()
    assert found.program.startswith(found.code.rstrip())  # the answer's code, unchanged
    assert found.function == function_call(PROBLEMS["gcd"], "cpp")  # typed, not program text
    assert any("C++ (batched) driver calling gcd()" in n for n in found.notes)
    assert launcher("cpp", found.program, function=found.function).cases_per_process == CPP_BATCH
    assert launcher("cpp", found.program).cases_per_process == 1  # the text decides nothing
    assert launcher("cpp", "int main() {}").cases_per_process == 1  # program mode unchanged


def _run_local(tmp_path: Path, source: str, values: list[float]) -> list[str]:
    """A local build (outside the sandbox: our own code) of ``source`` run on ``values``,
    one ``repr`` per line on stdin; its output lines."""
    (tmp_path / "local.cpp").write_text(source)
    exe = tmp_path / "local"
    subprocess.run(
        ["g++", "-std=c++17", "-O2", "-o", str(exe), str(tmp_path / "local.cpp")], check=True
    )
    text = "\n".join(f"{v!r}" for v in values)
    return subprocess.run(
        [str(exe)], input=text, capture_output=True, text=True
    ).stdout.splitlines()


def test_python_repr_of_doubles_is_reproduced(tmp_path: Path) -> None:
    """The driver prints floats exactly as the expected outputs spell them (Python's repr):
    a local build of the driver's formatter against repr on seeded doubles of every scale."""
    _need_gpp()
    rng = random.Random(7)
    values = [0.0, -0.0, 1.0, 0.1, 1e16, 1e15, 1e-5, 1e-4, 123456.789, -2.5e-300, 5e-324]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30) for _ in range(3000)]
    values += [float(rng.randint(-(10**17), 10**17)) for _ in range(500)]
    prelude = (Path(drivers_cpp.__file__).parent / "data" / "driver_prelude.cpp").read_text()
    source = prelude + (
        "\n#include <cstdio>\nint main() { double v; std::string out;\n"
        ' while (std::scanf("%lf", &v) == 1) { bp_drv::put_double(out, v); }\n'
        " ::write(1, out.data(), out.size()); }\n"
    )
    assert _run_local(tmp_path, source, values) == [repr(v) for v in values]


def test_shopping_list_reference_rounds_as_python_round(tmp_path: Path) -> None:
    """shopping-list's output is Python's ``round(total, 2)``: a local build of our C++
    reference on one-item lists without discount (its total is the price itself) against
    ``round`` on seeded prices, on exact binary ties (multiples of 1/8) and on decimal
    ties (x.xx5) whose double lies just above or below, where scaling by 100 first would
    round the other way."""
    _need_gpp()
    rng = random.Random(11)
    values = [rng.uniform(0, 50) for _ in range(3000)]
    values += [k / 8 for k in range(400)] + [k / 1000 for k in range(5, 50000, 10)]
    source = reference_source(PROBLEMS["shopping_list"]) + (
        '\nint main() { double v; while (std::scanf("%lf", &v) == 1) {\n'
        ' std::printf("%.17g\\n", shopping_list({v}, {0.0})); } }\n'
    )
    got = [float(line) for line in _run_local(tmp_path, source, values)]
    assert got == [round(v, 2) for v in values]


# -- the reference functions ----------------------------------------------------------


def test_there_are_cpp_references_for_at_least_five_problems() -> None:
    assert len(reference_names()) >= 5
    assert set(reference_names()) <= set(PROBLEMS)


@pytest.mark.parametrize("name", reference_names())
def test_cpp_reference_passes_every_edge_case(name, random_bench, executor) -> None:
    """Every PSB2 edge case (exactly, or within the seed's epsilon where PSB2's own float
    was computed differently; only the documented data quirk misses), and 2000 seeded random
    cases exactly: their outputs come from the Python reference, so the C++ function
    computes the same doubles and the driver prints them as the expected outputs do."""
    task = random_bench.tasks[PROBLEMS[name].hyphenated]
    request = function_mode_request(
        "cpp", reference_source(PROBLEMS[name]), PROBLEMS[name], task.tests, LIMITS
    )
    result = executor.run(request)
    assert len(result.tests) == len(task.tests) == task.metadata["n_edge"] + 2000
    quirks = {f"edge-{i}" for (p, i) in psb2_data.QUIRKS if p == name}
    failed = {
        t.name: t.message
        for t in result.tests
        if t.status is not Status.PASSED and not within_epsilon(t.message)
    }
    assert set(failed) == quirks, failed
    inexact = [t.name for t in result.tests if t.status is not Status.PASSED]
    assert not [n for n in inexact if n.startswith("random-")], inexact


# -- batched vs one process per case ---------------------------------------------------

MISBEHAVING_GCD = """
#include <csignal>
#include <cstdlib>
#include <stdexcept>
int gcd(int a, int b) {
    if (a == 1) { volatile long spin = 0; while (true) { spin = spin + 1; } }
    if (a == 2) { std::raise(SIGSEGV); }
    if (a == 3) { throw std::runtime_error("three"); }
    if (a == 4) { std::exit(3); }
    if (a == 5) { return 77; }
    while (b != 0) { int r = a % b; a = b; b = r; }
    return a;
}
"""
EXPECTED = {
    "t1": "timeout",
    "t2": "killed",
    "t3": "killed",
    "t4": "error",
    "t5": "failed",
}


def _sample_tests() -> list[TestCase]:
    tests = [_gcd_test(f"t{a}", a, 10, str(math.gcd(a, 10))) for a in range(1, 6)]
    tests += [_gcd_test(f"ok{a}", a * 6, 4 * a, str(2 * a)) for a in range(1, 9)]
    return tests


def test_batched_driver_gives_the_verdicts_of_one_process_per_case(executor) -> None:
    """A hang, a segfault, an uncaught exception, an exit and a wrong value, each in one
    case of the batch: each is charged to its case alone (the process is replaced) and
    every other case passes, exactly as when every case has a process of its own."""
    p, tests = PROBLEMS["gcd"], _sample_tests()
    batched = executor.run(function_mode_request("cpp", MISBEHAVING_GCD, p, tests, LIMITS))
    single_request = function_mode_request("cpp", MISBEHAVING_GCD, p, tests, LIMITS, batch=False)
    assert single_request.launcher.cases_per_process == 1
    single = executor.run(single_request)
    verdicts = {
        run: {t.name: (str(t.status), t.error_type) for t in res.tests}
        for run, res in (("batched", batched), ("single", single))
    }
    assert verdicts["batched"] == verdicts["single"]
    statuses = {name: status for name, (status, _) in verdicts["batched"].items()}
    assert statuses == {**EXPECTED, **{f"ok{a}": "passed" for a in range(1, 9)}}
    assert verdicts["batched"]["t2"][1] == "SIGSEGV"
    assert verdicts["batched"]["t3"][1] == "SIGABRT"


#: answers wrong on some cases: the reference renamed, called by a wrapper that spoils it
SPOILERS = {
    "leaders": "std::vector<int> leaders(const std::vector<int>& v) {\n"
    "    auto r = ref_leaders(v); if (v.size() % 2) r.push_back(0); return r; }\n",
    "dice_game": "double dice_game(int n, int m) {\n"
    "    return ref_dice_game(n, m) + (n % 3 == 0 ? 1e-9 : 0.0); }\n",
    "substitution_cipher": "std::string substitution_cipher(const std::string& s,\n"
    "    const std::string& t, const std::string& m) {\n"
    "    auto r = ref_substitution_cipher(s, t, m); if (m.size() % 2) r += '!'; return r; }\n",
}


#: seeded random cases per problem in the batch-against-single comparison (each case of the
#: single run is a process of its own)
RANDOM_CASES = 30


def test_batch_and_single_agree_on_random_cases(data_dir, executor) -> None:
    """Seeded random cases of three problems, right and spoiled answers: the same verdict
    per case whether the cases share a process or not."""
    bench = load(data_dir, n_random=RANDOM_CASES, name="psb2-cpp", language="cpp")
    for name, spoiler in SPOILERS.items():
        p = PROBLEMS[name]
        tests = bench.tasks[p.hyphenated].tests[-RANDOM_CASES:]
        source = reference_source(p)
        spoiled = source.replace(f" {name}(", f" ref_{name}(") + spoiler
        verdicts = []
        for code in (source, spoiled):
            runs = [
                executor.run(function_mode_request("cpp", code, p, tests, LIMITS, batch=batch))
                for batch in (True, False)
            ]
            a, b = ([(t.name, str(t.status), t.message) for t in r.tests] for r in runs)
            assert a == b and len(a) == RANDOM_CASES, name
            verdicts.append([status for _, status, _ in a])
        assert set(verdicts[0]) == {"passed"}
        assert 0 < verdicts[1].count("failed") < RANDOM_CASES, name


# -- function not found ---------------------------------------------------------------


def test_a_missing_or_uncallable_function_is_its_own_status(executor) -> None:
    p = PROBLEMS["gcd"]
    tests = [_gcd_test("a", 12, 8, "4"), _gcd_test("b", 9, 6, "3")]
    for code in (
        "int greatest_common_divisor(int a, int b) { return a; }",  # another name
        "void gcd(int a, int b) {}",  # returns nothing
        "#include <string>\nint gcd(std::string a) { return 1; }",  # other parameters
    ):
        res = executor.run(function_mode_request("cpp", code, p, tests, LIMITS))
        assert [t.exit_code for t in res.tests] == [NOT_CALLABLE_EXIT] * 2, code
        assert {failure_kind(t.as_dict()) for t in res.tests} == {"function_not_found"}
        assert "function not callable" in res.tests[0].message
    broken = "int gcd(int a, int b) { return a +; }"  # the answer's own compile error
    res = executor.run(function_mode_request("cpp", broken, p, tests, LIMITS))
    assert res.status is Status.COMPILE_ERROR and "expected primary-expression" in res.message


def test_an_answer_with_its_own_main_is_called_and_its_main_never_runs(executor) -> None:
    code = (
        "#include <cstdlib>\n#include <iostream>\n"
        "int gcd(int a, int b) { while (b) { int r = a % b; a = b; b = r; } return a; }\n"
        "int main() { std::cout << gcd(4, 6) << std::endl; std::abort(); }\n"
    )
    res = executor.run(
        function_mode_request("cpp", code, PROBLEMS["gcd"], [_gcd_test("a", 12, 8, "4")], LIMITS)
    )
    assert res.status is Status.PASSED, res.tests


# -- hostile answers ------------------------------------------------------------------

FORGER = """
#include <unistd.h>
#include <string>
static void frame(int fd, const std::string& out) {
    std::string f = "C";
    f += std::string(3, '\\0') + '\\0';  // exit status 0
    f += '\\1';                           // go on
    unsigned n = out.size();
    f += char(n >> 24); f += char(n >> 16); f += char(n >> 8); f += char(n);
    f += out;
    f += std::string(4, '\\0');           // no stderr
    for (int k = 0; k < 5; ++k) ::write(fd, f.data(), f.size());
}
int gcd(int a, int b) {
    for (int fd = 3; fd < 64; ++fd) frame(fd, "-1\\n");  // every open descriptor
    return -2;
}
"""


def test_forged_result_frames_never_pass(executor) -> None:
    """The answer writes well-formed "returned, output -1" frames on every descriptor it
    has (the channel among them), ahead of the driver's own: they are read as answers,
    but an output the answer cannot know stays wrong, so nothing passes."""
    tests = [_gcd_test(f"f{a}", a * 2, 4, "2") for a in range(1, 12)]
    res = executor.run(function_mode_request("cpp", FORGER, PROBLEMS["gcd"], tests, LIMITS))
    assert len(res.tests) == len(tests)
    assert not any(t.status is Status.PASSED for t in res.tests)
    assert res.status is not Status.PASSED


HUGE = """
#include <string>
std::string fizz_buzz(int x) {
    if (x == 7) return std::string(50 << 20, 'x');  // 50 MB
    if (x % 15 == 0) return "FizzBuzz";
    if (x % 3 == 0) return "Fizz";
    if (x % 5 == 0) return "Buzz";
    return std::to_string(x);
}
"""


def test_huge_output_in_one_case_is_that_case_only(executor) -> None:
    tests = [
        TestCase(f"x{x}", stdin=f"{x}\n", expected_stdout=f"{want}\n")
        for x, want in ((7, "7"), (3, "Fizz"), (10, "Buzz"), (8, "8"))
    ]
    res = executor.run(function_mode_request("cpp", HUGE, PROBLEMS["fizz_buzz"], tests, LIMITS))
    assert [str(t.status) for t in res.tests] == ["output_limit", "passed", "passed", "passed"]


SNOOP = """
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <string>
// looks for the expected output everywhere it can read: its descriptors, every process's
// command line and environment, its working and home directories
static bool seen = false;
static const std::string token = std::to_string(918273600 + 45);  // not in this source
static void look(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd < 0) return;
    char buf[1 << 16];
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0 && std::string(buf, got).find(token) != std::string::npos) seen = true;
    ::close(fd);
}
static void scan(const std::string& dir, int depth) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::string path = dir + "/" + name;
        if (e->d_type == DT_DIR && depth > 0) scan(path, depth - 1);
        else if (e->d_type == DT_REG) look(path);
    }
    ::closedir(d);
}
int gcd(int a, int b) {
    DIR* procs = ::opendir("/proc");
    while (dirent* e = procs ? ::readdir(procs) : nullptr) {
        std::string pid = e->d_name;
        look("/proc/" + pid + "/cmdline");
        look("/proc/" + pid + "/environ");
    }
    if (procs) ::closedir(procs);
    scan(".", 3);
    scan("/tmp", 3);
    const char* home = ::getenv("HOME");
    if (home) scan(home, 3);
    return seen ? 918273600 + 45 : 1;
}
"""


def test_the_expected_output_is_not_reachable_from_the_answer(executor) -> None:
    """The expected output (a number no gcd gives) is never where the answer can read it."""
    tests = [_gcd_test("s", 4, 6, "918273645")]
    res = executor.run(function_mode_request("cpp", SNOOP, PROBLEMS["gcd"], tests, LIMITS))
    assert [str(t.status) for t in res.tests] == ["failed"]
    assert "got '1'" in res.tests[0].message


# -- a study over a local HTTP model ----------------------------------------------------


def _cpp_model(prompt: str) -> str:
    """A pretend model answering C++ in function mode: our reference for gcd (with a demo
    ``main``), a function under another name for fizz-buzz."""
    if "largest integer that divides" in prompt:
        code = reference_source(PROBLEMS["gcd"]) + "int main() { return gcd(4, 6) - 2; }\n"
        return f"Here is the function:\n```cpp\n{code}```\n"
    return '```cpp\n#include <string>\nstd::string fizzbuzz(int x) { return ""; }\n```'


def test_cpp_function_mode_study_against_an_http_model(tmp_path: Path, data_dir: Path) -> None:
    from beyondpass.report import render_report
    from beyondpass.store.run_store import RunStore
    from beyondpass.study.config import load_study
    from beyondpass.study.runner import StudyRunner
    from fake_endpoints import FakeEndpoint

    _need_gpp()
    with FakeEndpoint(responder=_cpp_model) as server:
        study = tmp_path / "s.toml"
        study.write_text(
            "\n".join(
                [
                    'name = "cpp-function"',
                    "seed = 0",
                    "[[benchmarks]]",
                    'name = "psb2-cpp"',
                    'tasks = ["gcd", "fizz-buzz"]',
                    "[[models]]",
                    f'spec = "openai:pretend@{server.openai_base_url}"',
                    'label = "pretend"',
                    "[prompts]",
                    'plan = "psb2-function"',
                    "[execution]",
                    "timeout_s = 600",  # a bound for a loaded machine, not a measurement
                ]
            )
            + "\n"
        )
        outcome = StudyRunner(load_study(study), tmp_path / "run").run()
        assert outcome.complete
        assert server.request_count == 2
    with RunStore(tmp_path / "run", create=False) as store:
        rows = {r.sample.task_id: r for r in store.rows()}
    prompt = rows["gcd"].sample.transcript[0]["messages"][0]["content"]
    assert prompt.startswith("Generate a C++ code to solve the problem!\nGiven two integers")
    assert prompt.endswith("Implement this function:\nint gcd(int a, int b)")
    gcd = rows["gcd"].result
    assert gcd.status == "passed"
    n_cases = len(gcd.details["tests"])
    assert n_cases > 10000  # the edge cases and 10,000 random cases, all run
    fizz = rows["fizz-buzz"].result
    assert fizz.status != "passed"
    assert {failure_kind(t) for t in fizz.details["tests"]} == {"function_not_found"}
    render_report(tmp_path / "run")
    report = (tmp_path / "run" / "report.md").read_text()
    section = report.split("## PSB2 pass ratios")[1]
    row = next(ln for ln in section.splitlines() if ln.startswith("| gcd"))
    assert row.split("|")[2].strip() == "100.00"
    assert "function_not_found" in section
