"""Results of the PSB2 method: epsilon matching from the stored differing line, the
failure kinds, and Tables 1-2 rendered from a real run of the built-in machinery (two
replayed models answering PSB2 edge cases in program and function mode)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from beyondpass.methods.psb2.analysis import failure_kind, within_epsilon


def test_within_epsilon_compares_numbers_within_the_bound_and_other_tokens_exactly() -> None:
    assert within_epsilon("line 1: expected '0.5833333', got '0.5833333333333334'")
    assert not within_epsilon("line 1: expected '0.58', got '0.5833333333333334'")
    assert within_epsilon("line 1: expected '1.0 2.0', got '1.000001 2'")
    assert not within_epsilon("line 1: expected '1.0 2.0', got '1.0'")
    assert not within_epsilon("line 1: expected 'Fizz', got 'Buzz'")
    assert not within_epsilon("line 2: expected '1.0', got end of output")
    assert within_epsilon("line 1: expected '1.0', got '1.00002'", epsilon=1e-4)
    assert not within_epsilon("line 1: expected 'nan', got 'nan1'")


def test_failure_kinds_name_the_cause() -> None:
    assert failure_kind({"status": "failed", "error_type": "WrongOutput"}) == "wrong_output"
    assert failure_kind({"status": "error", "error_type": "NonZeroExit", "exit_code": 97}) == (
        "function_not_found"
    )
    assert failure_kind({"status": "error", "error_type": "NonZeroExit", "exit_code": 1}) == (
        "runtime_error:NonZeroExit"
    )
    assert failure_kind({"status": "timeout"}) == "timeout"


def _edge(data_dir: Path, problem: str) -> list[dict]:
    for line in (data_dir / "psb2" / "edge.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["problem"] == problem:
            return row["cases"]
    raise AssertionError(problem)


def _answers(path: Path, rows: dict[str, str]) -> None:
    text = "".join(json.dumps({"task_id": t, "response": r}) + "\n" for t, r in rows.items())
    path.write_text(text)


def test_tables_from_a_real_run_of_two_models(run_cli, data_dir: Path, tmp_path: Path) -> None:
    # model A: right fizz-buzz, a vector-distance rounded to 6 decimals (epsilon only)
    _answers(
        tmp_path / "a.jsonl",
        {
            "fizz-buzz": "```python\nx = int(input())\nprint('FizzBuzz' if x % 15 == 0 else "
            "'Fizz' if x % 3 == 0 else 'Buzz' if x % 5 == 0 else x)\n```",
            "vector-distance": "```python\na = list(map(float, input().split()))\n"
            "b = list(map(float, input().split()))\n"
            "print(round(sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5, 6))\n```",
        },
    )
    # model B: forgets Buzz and FizzBuzz; crashes on vector-distance
    _answers(
        tmp_path / "b.jsonl",
        {
            "fizz-buzz": "x = int(input())\nprint('Fizz' if x % 3 == 0 else x)\n",
            "vector-distance": "print(1 / 0)\n",
        },
    )
    (tmp_path / "s.toml").write_text(
        textwrap.dedent(
            """
            name = "cmp"
            seed = 0
            [[benchmarks]]
            name = "psb2-edge"
            tasks = ["fizz-buzz", "vector-distance"]
            [[models]]
            spec = "replay:a.jsonl"
            label = "A"
            [[models]]
            spec = "replay:b.jsonl"
            label = "B"
            [prompts]
            plan = "psb2-program"
            [evaluation]
            evaluators = ["psb2-quality"]
            """
        )
    )
    proc = run_cli(["run", "s.toml"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    full = (tmp_path / "runs" / "cmp" / "report.md").read_text()
    quality = full.split("technical quality (lower is better)")[1].split("\n## ")[0]
    # Table 3: A's vector-distance has 3 logical lines, B's one: A is marked >= 1.5x worse
    vd = next(ln for ln in quality.splitlines() if ln.startswith("| vector-distance"))
    assert [c.strip() for c in vd.split("|")[2:4]] == ["3 ▲", "1"]
    report = full.split("## PSB2 pass ratios")[1].split("\n## ")[0]
    ratios = report.split("technical quality")[0]
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in ratios.splitlines()
        if line.startswith("| fizz-buzz")
        or line.startswith("| vector-distance")
        or line.startswith("| pass@1 (tasks)")
    }
    # independent expectation for B's fizz-buzz: right exactly when 5 does not divide x
    cases = _edge(data_dir, "fizz_buzz")
    right = sum(1 for c in cases if c["inputs"][0] % 5 != 0)
    b_pct = 100 * right / len(cases)
    assert rows["fizz-buzz"][:3] == ["100.00", f"{b_pct:.2f}", f"{b_pct - 100:+.2f}"]
    # vector-distance: A's rounding loses exactness on some cases, never epsilon
    vd = _edge(data_dir, "vector_distance")
    exact = sum(1 for c in vd if round(c["outputs"][0], 6) == c["outputs"][0])
    a_exact = 100 * exact / len(vd)
    assert rows["vector-distance"][0] == f"{a_exact:.2f}"
    assert rows["vector-distance"][3:6] == ["100.00", "0.00", "-100.00"]
    assert rows["pass@1 (tasks)"][3:6] == ["100.00", "0.00", "-100.00"]  # edge, epsilon
    assert "runtime_error:NonZeroExit" in report
    tex = (tmp_path / "runs" / "cmp" / "psb2_tables.tex").read_text()
    assert r"\begin{tabular}" in tex and "vector-distance" in tex


def test_function_mode_reports_a_missing_function(run_cli, tmp_path: Path) -> None:
    _answers(
        tmp_path / "f.jsonl",
        {
            "gcd": "```python\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n"
            "    return a\n```",
            "fizz-buzz": "```python\ndef fizzbuzz(x):\n    return str(x)\n```",
        },
    )
    (tmp_path / "s.toml").write_text(
        textwrap.dedent(
            """
            name = "fn"
            seed = 0
            [[benchmarks]]
            name = "psb2-edge"
            tasks = ["gcd", "fizz-buzz"]
            [[models]]
            spec = "replay:f.jsonl"
            label = "F"
            [prompts]
            plan = "psb2-function"
            """
        )
    )
    proc = run_cli(["run", "s.toml"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    full = (tmp_path / "runs" / "fn" / "report.md").read_text()
    report = full.split("## PSB2 pass ratios")[1].split("\n## ")[0]
    assert "| F | fizz-buzz | function_not_found 24 |" in report
    gcd_row = next(ln for ln in report.splitlines() if ln.startswith("| gcd"))
    assert gcd_row.split("|")[2].strip() == "100.00"


def test_quality_rows_mark_values_one_and_a_half_times_the_best_other() -> None:
    from beyondpass.methods.psb2.quality_table import quality_rows, worse

    assert worse(3, [2]) and not worse(2.9, [2]) and not worse(5, [0]) and not worse(1, [])
    values = {
        "t1": {"A": {"lloc": 3.0, "nesting": 0.0}, "B": {"lloc": 2.0, "nesting": 1.0}},
        "t2": {"A": {"lloc": 4.0, "nesting": 2.0}, "B": {"lloc": 8.0, "nesting": 2.0}},
    }
    head, rows = quality_rows(values, ["A", "B"])
    assert head == ["Task", "lloc · A", "lloc · B", "nesting · A", "nesting · B"]
    assert rows[0] == ["t1", "3 ▲", "2", "0", "1"]  # 1 vs 0: a ratio to 0 is not marked
    assert rows[1] == ["t2", "4", "8 ▲", "2", "2"]
    assert rows[2] == ["average", "3.50", "5.00", "1.00", "1.50"]


def test_a_sample_stopped_part_way_counts_the_cases_it_never_reached() -> None:
    """A sample whose time ran out after 3 of 10 random cases passed 2 of them: its random
    ratio is 2/10, not 2/3 (the functional evaluator records the declared cases)."""
    from beyondpass.benchmarks.task import TestCase
    from beyondpass.evaluators.functional import declared_groups
    from beyondpass.methods.psb2.analysis import _n_tests, task_result
    from beyondpass.store.run_store import Row

    tests = [TestCase(f"edge-{i}", stdin="", expected_stdout="") for i in range(4)]
    tests += [TestCase(f"random-{i}", stdin="", expected_stdout="") for i in range(10)]
    declared = declared_groups(tests)
    assert declared == {"edge": 4, "random": 10}
    ran = [{"name": f"edge-{i}", "status": "passed"} for i in range(4)]
    ran += [{"name": "random-0", "status": "passed"}, {"name": "random-1", "status": "passed"}]
    ran += [{"name": "random-2", "status": "timeout"}]

    class _Result:
        status, passed = "timeout", False
        details = {"tests": ran, "tests_declared": declared}

    class _Sample:
        task_id, benchmark, sample_index = "gcd", "psb2", 0

    row = Row(sample=_Sample(), result=_Result())  # type: ignore[arg-type]
    result = task_result(row, _n_tests(row))
    assert result.ratio("edge", epsilon=False) == 1.0
    assert result.ratio("random", epsilon=False) == 0.2
    assert result.passed("random", epsilon=True) is False
    # a result stored before the record existed: the cases it ran (the old reading)
    _Result.details = {"tests": ran}
    assert task_result(row, _n_tests(row)).ratio("random", epsilon=False) == 2 / 3
