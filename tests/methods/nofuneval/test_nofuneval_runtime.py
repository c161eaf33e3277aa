"""Runtime efficiency: CodeNet cases in the sandboxed executor, output comparison, speed-up.

No assertion here depends on how fast the machine is: the statistics are tested on given
numbers, and a timing decision is asserted only where the work differs some 200-fold.
"""

from __future__ import annotations

import json
import math
from statistics import mean, variance

import pytest
from scipy.stats import t as student_t

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import ExecutionRequest, Status, create_executor
from beyondpass.methods.nofuneval.benchmark import load_subset
from beyondpass.methods.nofuneval.edit.runtime import (
    TIME_LIMITS,
    cases,
    check_programs,
    comparison,
    lenient_program,
    measure_programs,
    speedup,
    welch_faster,
)
from beyondpass.methods.nofuneval.edit.speedup import interpreter_dependence, unchanged
from nofuneval_data import nofuneval_dir


@pytest.fixture(scope="module")
def bench():
    return load_subset("runtime_efficiency", nofuneval_dir().parent)


@pytest.fixture(scope="module")
def executor():
    ex = create_executor("sandbox", workers=2)
    yield ex
    ex.close()


def test_targets_pass_and_known_exceptions_fail_with_their_reason(bench, executor):
    ok = [bench.tasks[i] for i in ("0", "1", "2")]
    gcd, starred = bench.tasks["17"], bench.tasks["74"]
    items = [(t, t.metadata["target_code"]) for t in (*ok, gcd, starred)]
    results = check_programs(items, executor)
    assert [r.correct for r in results] == [True, True, True, False, False]
    assert "fractions' has no attribute 'gcd'" in results[3].message  # removed in Python 3.9
    assert results[4].status == "compile_error"


def test_wrong_or_crashing_edit_is_incorrect(bench, executor):
    task = bench.tasks["0"]
    right = task.metadata["target_code"]
    results = check_programs(
        [(task, "print(0)\n"), (task, right + "\nraise SystemExit(3)\n")], executor
    )
    assert [r.correct for r in results] == [False, False]


def test_an_edit_that_never_ends_is_a_timeout(bench, executor):
    """Stopped at its limit (1 s per case here, 10 s by default) with the executor's
    ``timeout``, which the score's exports carry (test_nofuneval_score_run.py)."""
    task = bench.tasks["1"]
    (found,) = measure_programs(
        [(task, "import time\ntime.sleep(3600)\n")], executor, runs=2, timeout_s=1.0
    )
    assert (found.correct, found.status, found.times_s) == (False, "timeout", ())


def test_default_comparison_is_exact_for_integers_and_compat_is_lenient():
    assert comparison("2\n3 4\n", compat=False).mode == "whitespace"
    floats = comparison("0.333333\n", compat=False)
    assert floats.mode == "numeric" and floats.abs_tol == floats.rel_tol == 1e-6
    authors = comparison("2\n", compat=True)
    assert (authors.mode, authors.abs_tol, authors.rel_tol) == ("pie_lines", 1e-3, 0.0)


def test_speedup_rules():
    slow = [1.0, 1.1, 0.9, 1.05, 0.95]
    fast = [0.5, 0.55, 0.45, 0.52, 0.48]
    value, improved = speedup(slow, fast, correct=True)
    assert improved and value == pytest.approx(mean(slow) / mean(fast))
    assert speedup(slow, fast, correct=False) == (1.0, False)
    assert speedup(fast, slow, correct=True) == (1.0, False)  # slower edit
    assert speedup(slow, list(slow), correct=True) == (1.0, False)  # not faster


def test_every_target_is_correct_except_the_two_documented_rows(bench, executor):
    tasks = list(bench.tasks.values())
    results = check_programs([(t, t.metadata["target_code"]) for t in tasks], executor)
    failing = {t.task_id for t, r in zip(tasks, results, strict=True) if not r.correct}
    assert failing == {"17", "74"}  # docs/nofuneval.md lists both with their reason
    assert (len(tasks) - len(failing)) / len(tasks) >= 0.95


def _welch_by_hand(a: list[float], b: list[float]) -> float:
    """One-sided p of "mean(b) < mean(a)", Welch's statistic and degrees of freedom."""
    va, vb = variance(a) / len(a), variance(b) / len(b)
    t = (mean(b) - mean(a)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return float(student_t.cdf(t, df))


def test_welch_uses_the_real_numbers_of_observations():
    source = [1.00, 1.20, 0.90, 1.10, 1.05, 0.95, 1.15, 0.85]
    edit = [0.98, 1.02, 0.97, 1.01, 0.99, 1.03, 0.96, 1.00]
    p = welch_faster(source, edit)
    assert p == pytest.approx(_welch_by_hand(source, edit), rel=1e-9)
    assert 0.05 < p < 0.5  # not significant with 8 observations each
    # the same samples pooled four times over (as 4 cases x runs): more evidence, smaller p
    pooled = welch_faster(source * 4, edit * 4)
    assert pooled == pytest.approx(_welch_by_hand(source * 4, edit * 4), rel=1e-9)
    assert pooled < p
    assert math.isnan(welch_faster([1.0], edit)) and math.isnan(welch_faster(source, []))
    assert speedup([1.0], [0.1], correct=True) == (1.0, False)  # too few observations


def test_unchanged_edits_and_interpreter_dependence(bench):
    src = bench.tasks["0"].metadata["source_code"]
    assert unchanged(src, "# a comment\n" + src + "\n\n")
    assert not unchanged(src, bench.tasks["0"].metadata["target_code"])
    assert "fractions.gcd" in interpreter_dependence(bench.tasks["17"].metadata["target_code"])
    assert "Python 2" in interpreter_dependence(bench.tasks["74"].metadata["target_code"])
    assert interpreter_dependence("print x\n", syntax=False) == ""
    assert interpreter_dependence(bench.tasks["0"].metadata["target_code"]) == ""


DOUBLE = (TestCase("a", stdin="3\n", expected_stdout="6\n"),)
#: 20,000 loop iterations: 1/200 of the heavy programs' work
LIGHT = "s = 0\nfor i in range(20_000):\n    s += i\nprint(2 * int(input()))\n"
#: 200 times LIGHT's work, in a process the program does not wait for (killed when the
#: program's process ends)
HEAVY_ORPHAN = """import os, sys
n = int(input())
if os.fork() == 0:
    s = 0
    for i in range(4_000_000):
        s += i
    print(2 * n)
    sys.stdout.flush()
    os._exit(0)
os._exit(0)
"""
#: the same work in the program itself, after writing a forged "ready" (set-up time of
#: 1000 s) on every socket it can find: the judge reads only the frame sent before it ran
HEAVY_FORGED_READY = """import json, os, stat, struct
n = int(input())
body = json.dumps(["ready", 10**12]).encode()
for fd in os.listdir("/proc/self/fd"):
    try:
        if stat.S_ISSOCK(os.fstat(int(fd)).st_mode):
            os.write(int(fd), struct.pack(">I", len(body)) + body)
    except OSError:
        pass
s = 0
for i in range(4_000_000):
    s += i
print(2 * n)
"""


def _times(executor, program: str, runs: int = 3) -> list[int]:
    result = executor.run(ExecutionRequest(program, DOUBLE, timing_repeats=runs, io_timing=True))
    assert result.passed and result.timing_error == "", result
    (test,) = result.tests
    assert len(test.times_ns) == len(test.times_wall_ns) == runs
    return test.times_ns


def test_forged_timing_does_not_make_a_program_faster(executor):
    # work left to an orphan after the program's own process ended does not count: a test
    # ends with the program's process (docs/verdicts.md), so its answer never arrives
    orphan = executor.run(ExecutionRequest(HEAVY_ORPHAN, DOUBLE, timing_repeats=3, io_timing=True))
    assert orphan.status is Status.FAILED and orphan.tests[0].times_ns == [], orphan
    light = _times(executor, LIGHT)
    for heavy in (HEAVY_FORGED_READY,):
        times = _times(executor, heavy)
        # the heavy program is the edit here: it must not be judged faster than the light
        # one (a forgery that worked would leave it at start-up cost, or 0, below LIGHT's)
        assert speedup(light, times, correct=True) == (1.0, False), (light, times)
        # and as the source, the light edit is significantly faster than it
        assert speedup(times, light, correct=True)[1] is True


def test_crash_after_the_right_output_is_wrong_by_default_and_right_in_compat(bench, executor):
    task = bench.tasks["0"]
    crashing = task.metadata["target_code"] + "\nraise SystemExit(3)\n"
    strict, lenient = (
        measure_programs([(task, crashing)], executor, compat=c, runs=2)[0] for c in (False, True)
    )
    assert not strict.correct and strict.status == "error" and strict.times_s == ()
    assert lenient.correct and len(lenient.times_s) == 2 * len(task.tests)


def test_source_as_edit_scores_exactly_one_and_target_is_timed(bench, tmp_path):
    """Through the one path (``evaluate`` of a generations file, as ``nofuneval score``):
    rows 0, 1 and 17 answered with their source (sample 0) and their target (sample 1)."""
    from beyondpass.methods.nofuneval.files.answer_file import GenerationsFile
    from beyondpass.study.evaluate_samples import evaluate_samples

    rows = [0, 1, 17]
    tasks = {r: bench.tasks[str(r)] for r in rows}
    answers = [(r, tasks[r].metadata[field]) for field in ("source_code", "target_code")
               for r in rows]  # fmt: skip
    gens = tmp_path / "gens.jsonl"
    gens.write_text(
        "".join(
            json.dumps({"row": r, "generation": f"```python\n{code}\n```"}) + "\n"
            for r, code in answers
        )  # fmt: skip
    )
    kind = GenerationsFile.told("runtime_efficiency", None, "base_prompt", run=True, runs=3)
    outcome = evaluate_samples(
        bench.name, gens, tmp_path / "run", data_dir=str(nofuneval_dir().parent),
        answer_file=kind,
    )  # fmt: skip
    summary = outcome.summary["nofuneval"]
    by_line = [json.loads(x) for x in (tmp_path / "run/scores.jsonl").read_text().splitlines()]
    order = {(r, i): n for n, (r, i) in enumerate((r, i) for i in (0, 1) for r in rows)}
    scores = sorted(by_line, key=lambda s: order[(s["row"], s["sample"])])
    for s in scores[:3]:
        assert s["speedup"] == 1.0 and s["improved"] is False
    # row 17's source and target both use fractions.gcd, removed in Python 3.9
    assert [s["correct"] for s in scores] == [True, True, False, True, True, False]
    assert "fractions' has no attribute 'gcd'" in scores[5]["message"]
    assert scores[5]["source_correct"] is False and scores[5]["speedup"] == 1.0
    for s in scores[3:5]:  # timed: 3 runs per case of both programs
        assert s["time_mean_s"] > 0 and s["source_time_mean_s"] > 0 and 0 <= s["p_value"] <= 1
        assert s["speedup"] >= 1.0
    assert summary["timing"]["method"] == "cpu" and summary["timing"]["runs_per_case"] == 3
    assert summary["timing"]["time_limit"] == TIME_LIMITS[False]
    assert summary["timing"]["python"].count(".") == 2
    assert 17 in summary["interpreter_dependent_rows"]
    assert [f["row"] for f in summary["source_failures"]] == [17]
    assert summary["correct@1"] == pytest.approx(2 / 3)
    assert summary["improved@1"] == pytest.approx(
        mean(mean(s["improved"] for s in scores if s["row"] == r) for r in rows)
    )
    assert summary["speedup@1"] == pytest.approx(
        mean(mean(s["speedup"] for s in scores if s["row"] == r) for r in rows)
    )


def test_cli_writes_speedup_and_correct(run_cli, tmp_path):
    gens = tmp_path / "gens.jsonl"
    data = rows_of_runtime()
    lines = [{"row": 0, "generation": data[0]["source_code"]}]
    lines.append({"row": 2, "generation": "```python\n" + data[2]["target_code"] + "\n```"})
    gens.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    out = tmp_path / "out"
    proc = run_cli(
        [
            "nofuneval",
            "score",
            "--subset",
            "runtime_efficiency",
            "--generations",
            str(gens),
            "--runs",
            "3",
            "--executor",
            "subprocess",
            "--isolation",
            "process",
            "--out",
            str(out),
            "--json",
        ],
        cwd=tmp_path,
        env={"BEYONDPASS_DATA": str(nofuneval_dir().parent)},
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["row"] for s in scores] == [0, 2]
    assert scores[0]["speedup"] == 1.0 and scores[0]["correct"] is True
    assert scores[1]["correct"] is True and scores[1]["source_correct"] is True
    assert summary["speedup@1"] == pytest.approx(mean(s["speedup"] for s in scores))
    assert summary["correct@1"] == 1.0 and summary["timing"]["method"] == "cpu"
    # the executor chosen ran the programs
    assert (summary["timing"]["executor"], summary["timing"]["isolation"]) == (
        "subprocess",
        "process",
    )


def rows_of_runtime() -> list[dict]:
    with (nofuneval_dir() / "runtime_efficiency.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _io_task(cases: list[tuple[str, str]]):
    from beyondpass.benchmarks.task import Task

    tests = tuple(
        TestCase(f"p/{i}", stdin=i_, expected_stdout=o) for i, (i_, o) in enumerate(cases)
    )
    return Task("hand", "0", "python", "", None, "", tests)


#: two cases whose expected outputs have different numbers of lines (1 and 2)
TWO_CASES = [("3\n", "6\n"), ("4 5\n", "8\n10\n")]
RIGHT = "xs = list(map(int, input().split()))\nfor x in xs:\n    print(2 * x)\n"


def test_extra_output_lines_are_ignored_in_compat_only(executor):
    task = _io_task(TWO_CASES)
    programs = {
        "right": RIGHT,
        "extra": RIGHT + "print('debug: done')\n",
        "extra_buffer": RIGHT
        + "import sys\nsys.stdout.flush()\nsys.stdout.buffer.write(b'7\\n')\n",
        "extra_raw": RIGHT + "import os, sys\nsys.stdout.flush()\nos.write(1, b'7\\n')\n",
        "blank_first": "print()\n" + RIGHT + "print(99)\n",
        "missing": "print(2 * int(input().split()[0]))\n",  # one line where two are expected
        "wrong_then_right": "print(0)\n" + RIGHT,
        "crash_after_extra": RIGHT + "print('x')\nraise ValueError\n",
    }
    items = [(task, p) for p in programs.values()]
    strict = dict(zip(programs, check_programs(items, executor), strict=True))
    compat = dict(zip(programs, check_programs(items, executor, compat=True), strict=True))
    assert {k for k, r in strict.items() if r.correct} == {"right"}
    assert {k for k, r in compat.items() if r.correct} == {
        "right",
        "extra",
        "extra_buffer",
        "extra_raw",
        "blank_first",
        "crash_after_extra",
    }
    assert "line 2" in strict["extra"].message or "line 3" in strict["extra"].message


def test_compat_stops_a_run_at_the_per_case_limit_as_the_harness_does(executor):
    """NoFunEval's harness stops each run of a case at its limit; the default budget is
    the limit times the cases, for the whole program. A first case of 3 s under a 2 s
    limit (3 cases): wrong in compat, right by default (3 s of a 6 s budget)."""
    task = _io_task([("3\n", "6\n"), ("4\n", "8\n"), ("5\n", "10\n")])
    slow_first = "import time\nn = int(input())\nif n == 3:\n    time.sleep(3)\nprint(2 * n)\n"
    default, compat = (
        measure_programs([(task, slow_first)], executor, compat=c, runs=0, timeout_s=2)[0]
        for c in (False, True)
    )
    assert default.correct, default.message
    assert not compat.correct and compat.status == "timeout", compat
    assert "per test" in compat.message


def test_compat_compares_in_the_judge_and_records_the_comparison(executor):
    """The program runs unchanged but for the exit-status wrapper; the judge applies
    ``pie_lines`` and every test outcome records it with its tolerance."""
    task = _io_task(TWO_CASES)
    program = lenient_program(RIGHT + "print('extra')\nraise SystemExit(4)\n")
    assert "extra" in program and "limit" not in program
    result = executor.run(ExecutionRequest(program, cases(task, compat=True)))
    assert result.passed, result.message
    assert [t.compare for t in result.tests] == [{"mode": "pie_lines", "abs_tol": 1e-3}] * 2
    assert [t.exit_code for t in result.tests] == [0, 0]  # the wrapper ate SystemExit(4)
    # a line of several numbers is one string to the authors: "1.0000001 2" is not "1 2"
    pair = _io_task([("1 2\n", "1 2\n")])
    (near,) = check_programs([(pair, "print('1.0000001 2')\n")], executor, compat=True)
    assert not near.correct and "line 1" in near.message


def test_compat_extra_lines_keep_timing_runs_correct(executor):
    task = _io_task(TWO_CASES)
    (m,) = measure_programs([(task, RIGHT + "print('extra')\n")], executor, compat=True, runs=2)
    assert m.correct and m.timing_error == "" and len(m.times_s) == 2 * 2
    (strict,) = measure_programs([(task, RIGHT + "print('extra')\n")], executor, runs=2)
    assert not strict.correct and strict.times_s == ()


def test_table1_runs_one_reading_and_resumes_without_running_again(run_cli, tmp_path):
    """``nofuneval table1 --run --reading compat`` on a checkout of two runtime rows: only
    NoFunEval's reading is run; run again on the same folder, nothing is measured twice."""
    data = rows_of_runtime()
    folder = tmp_path / "repo/generations/edit/runtime_efficiency/gpt-4/base_prompt/1_samples"
    folder.mkdir(parents=True)
    answers = [
        "### Response:\n```python\n" + data[0]["target_code"] + "\n```\n",
        "### Response:\n```python\nprint(-1)\n```\n",  # a wrong edit of row 1
    ]
    folder.joinpath("generated_outputs.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "generated_answers": [a],
                    "source_code": r["source_code"],
                    "target_code": r["target_code"],
                    "pl": "python",
                }
            )
            + "\n"
            for a, r in zip(answers, data, strict=False)
        )  # fmt: skip
    )
    out = tmp_path / "out"
    args = ["nofuneval", "table1", "--published", tmp_path / "repo", "--run", "--runs", "0",
            "--reading", "compat", "--out", out]  # fmt: skip
    env = {"BEYONDPASS_DATA": str(nofuneval_dir().parent)}
    proc = run_cli(args, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    runs = out / "runs/runtime_efficiency/gpt-4/base_prompt"
    scores = {
        reading: [json.loads(x) for x in (runs / reading / "scores.jsonl").read_text().splitlines()]
        for reading in ("compat", "default")
    }  # each reading is a run of its own, with its own exports
    assert [(s["row"], s["correct"]) for s in scores["compat"]] == [(0, True), (1, False)]
    assert not any("correct" in s for s in scores["default"])
    assert [s["row"] for s in scores["default"]] == [0, 1]
    table = (out / "table1.md").read_text()
    line = next(x for x in table.splitlines() if x.startswith("| GPT-4 | B | 50.0 % |"))
    assert "not run" in line  # the default reading's cells
    sources = (out / "nofuneval-source-times.jsonl").read_text()
    assert len(sources.splitlines()) == 2  # each row's source, timed once for the table
    judged = {reading: _judged(runs / reading) for reading in scores}
    again = run_cli(args, cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    # nothing run or scored again: the same stored evaluations, the same source times
    assert {reading: _judged(runs / reading) for reading in scores} == judged
    assert (out / "nofuneval-source-times.jsonl").read_text() == sources
    assert (out / "table1.md").read_text() == table


def _judged(run):
    """(sample, when it was judged) of every verdict stored in a run."""
    from beyondpass.store.run_store import RunStore

    with RunStore(run, create=False) as store:
        return {(e.key, e.created_at) for e in store.evaluations()}
