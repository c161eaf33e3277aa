"""The Python API on two real runs: ``beyondpass.evaluate`` scores two answers files on the
built-in demo benchmark (the sandbox runs the answers), then ``open_run`` reads them and
``beyondpass.compare`` compares them; each is held to what the command line writes or prints
for the same runs (``results.jsonl``, ``compare --json``). Bad input is one precise error.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import beyondpass
from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import BeyondpassError, ConfigError, DataError

DEMO = load_benchmark("demo")
TASKS = ("demo/add", "demo/fizzbuzz", "demo/count_vowels")
BROKEN_FIZZBUZZ = ("word or str(i)", "word or i")  # answers ints where strings are due


def _fenced(task_id: str, *, wrong: bool = False) -> str:
    code = DEMO.tasks[task_id].reference_solution
    if wrong:
        code = code.replace(*BROKEN_FIZZBUZZ)
    return f"Sure:\n```python\n{code}```\n"


def _two_blocks() -> str:
    """An answer with a wrong block, then the right one: read as the first (the rule for
    several candidate blocks), its other reading recorded beside the verdict."""
    right = DEMO.tasks["demo/add"].reference_solution
    wrong = right.replace("a + b", "a - b")
    return f"First try:\n```python\n{wrong}```\nOr better:\n```python\n{right}```\n"


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Any, Any]:
    """Two evaluations: ``old`` answers every task right (add twice, so a task has two
    samples; count_vowels once with prose only); ``new`` gets fizzbuzz wrong, and its second
    add answer holds two blocks, the first of them wrong."""
    base = tmp_path_factory.mktemp("api-runs")
    old = _write(base / "old.jsonl", [
        {"task_id": "demo/add", "response": _fenced("demo/add")},
        {"task_id": "demo/fizzbuzz", "response": _fenced("demo/fizzbuzz")},
        {"task_id": "demo/count_vowels", "response": "Count the vowels in a loop."},
        {"task_id": "demo/add", "response": _fenced("demo/add")},
    ])  # fmt: skip
    new = _write(base / "new.jsonl", [
        {"task_id": "demo/add", "response": _fenced("demo/add")},
        {"task_id": "demo/fizzbuzz", "response": _fenced("demo/fizzbuzz", wrong=True)},
        {"task_id": "demo/count_vowels", "response": "Count the vowels in a loop."},
        {"task_id": "demo/add", "response": _two_blocks()},
    ])  # fmt: skip
    first = beyondpass.evaluate("demo", old, out=base / "old", timeout=5)
    second = beyondpass.evaluate("demo", new, out=base / "new", timeout=5)
    return base / "old", base / "new", first, second


def test_evaluate_returns_the_summary_the_command_prints(runs) -> None:
    old, _, first, second = runs
    assert first.run_dir == old and first.results_path == old / "results.jsonl"
    assert first.status_counts == {"passed": 3, "no_code": 1}
    # pass@1 over tasks: add 2/2, fizzbuzz 1/1, count_vowels 0/1
    assert first.pass_at == {1: pytest.approx(2 / 3)}
    assert second.pass_at == {1: pytest.approx(1 / 6)}  # add 1/2, the rest 0
    assert first.as_dict()["results_path"] == str(old / "results.jsonl")


def test_dataframe_equals_results_jsonl_row_for_row(runs) -> None:
    old, new, _, _ = runs
    for run_dir in (old, new):
        lines = [json.loads(t) for t in (run_dir / "results.jsonl").read_text().splitlines()]
        frame = beyondpass.open_run(run_dir).dataframe()
        assert len(frame) == len(lines) == 4
        # results.jsonl is in input order, the store by task and sample: a line's sample is
        # its task's k-th line, k its sample_index
        seen: Counter[str] = Counter()
        for line in lines:
            k = seen[line["task_id"]]
            seen[line["task_id"]] += 1
            (i,) = frame.index[(frame.task_id == line["task_id"]) & (frame.sample_index == k)]
            row = frame.loc[i]
            # every field of the line but its place in the input file is a column
            assert set(line) - {"index", "line"} <= set(frame.columns)
            for column in set(line) - {"index", "line"}:
                if column in ("tests_passed", "tests_run") and math.isnan(row[column]):
                    # no test ran: the store holds no count, results.jsonl writes 0
                    assert line[column] == 0 and line["status"] == "no_code"
                else:
                    assert row[column] == line[column], (line, column)
        assert frame.model.unique().tolist() == [run_dir.name]
    (other,) = [json.loads(t) for t in (new / "results.jsonl").read_text().splitlines()][3:]
    assert other["block_choice"]["changes_verdict"]  # the field was there to compare
    no_code = beyondpass.open_run(old).dataframe().set_index("task_id").loc["demo/count_vowels"]
    assert no_code.status == "no_code" and math.isnan(no_code.tests_run)
    assert no_code.raw == "Count the vowels in a loop." and no_code.code == ""


def test_open_run_reads_design_rows_evaluations_and_headlines(runs) -> None:
    old, _, _, _ = runs
    run = beyondpass.open_run(old)
    assert run.design.kind == "evaluate" and run.design.status == "complete"
    assert run.design.evaluators == ("functional",)
    assert run.design.benchmarks["demo"]["version"] == DEMO.version
    assert len(run) == 4 and all(r.evaluated for r in run.rows)
    fizz = next(r for r in run.rows if r.task_id == "demo/fizzbuzz")
    assert fizz.passed and fizz.metrics == {"tests_passed": 3, "tests_run": 3}
    assert fizz.raw == _fenced("demo/fizzbuzz") and fizz.code.startswith("def fizzbuzz(")
    assert fizz.prompt is None  # answers made elsewhere: no prompt was recorded
    (verdict,) = [e for e in run.evaluations if e.key == fizz.key]
    assert (verdict.evaluator, verdict.decides_verdict, verdict.status) == (
        "functional",
        True,
        "passed",
    )
    assert len(run.to_pandas("evaluation")) == len(run.evaluations) == 4
    # the headline is the one the report and compare compute, not a second computation
    from beyondpass.analysis.headline import headline_cells

    (pass1,) = run.headlines()
    (cell,) = headline_cells(run.store_rows, run.meta, seed=run.design.seed)
    assert (pass1.metric, pass1.value, pass1.ci95) == ("pass@1", cell.stats.avg, cell.stats.ci)
    assert pass1.value == pytest.approx(200 / 3) and pass1.n_units == 3
    frame = run.to_pandas("headline")
    assert frame.loc[0, "value"] == pass1.value and frame.loc[0, "ci95_low"] == pass1.ci95[0]


def test_compare_from_python_equals_the_commands_json(runs, capsys, monkeypatch) -> None:
    from beyondpass.cli.app import main

    old, new, _, _ = runs
    rules = ["pass@1:-2pp"]
    result = beyondpass.compare(str(old), str(new), fail_on=rules, require_significance=False)
    monkeypatch.setattr(sys, "argv", ["beyondpass", "compare", str(old), str(new),
                                      "--fail-on", rules[0], "--no-require-significance",
                                      "--json"])  # fmt: skip
    with pytest.raises(SystemExit) as stopped:
        main()
    printed = capsys.readouterr().out
    assert stopped.value.code == result.exit_code == 4 and not result.passed
    assert printed == result.to_json() + "\n"
    assert json.loads(printed) == result.as_dict()
    (cell,) = result.comparisons
    assert (cell["metric"], cell["old"], cell["new"]) == ("pass@1", pytest.approx(200 / 3),
                                                          pytest.approx(50 / 3))  # fmt: skip
    assert [v["benchmark"] for v in result.violations] == ["demo"]


def test_without_pandas_a_frame_is_one_line_naming_the_extra(runs) -> None:
    """pandas is installed here, so its absence is simulated in a fresh interpreter:
    ``sys.modules["pandas"] = None`` makes every ``import pandas`` fail as if it were not
    installed, before beyondpass is imported. The same interpreter shows that
    ``import beyondpass`` loads none of the pipeline."""
    old, _, _, _ = runs
    script = (
        "import sys\n"
        "sys.modules['pandas'] = None\n"
        "import beyondpass\n"
        "print(sorted(m for m in sys.modules if m.startswith('beyondpass')), "
        "'numpy' in sys.modules)\n"
        "from beyondpass.errors import MissingExtra\n"
        f"run = beyondpass.open_run({str(old)!r})\n"
        "print(len(run.records()))\n"
        "try:\n"
        "    run.dataframe()\n"
        "except MissingExtra as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    modules, records, message = done.stdout.splitlines()
    assert modules == "['beyondpass'] False"
    assert records == "4"  # the rows themselves need no pandas
    assert "pip install 'beyondpass[pandas]'" in message and "pandas" in message.split("—")[0]
    assert "Traceback" not in done.stderr


def test_a_study_given_as_a_dict_is_checked_and_costed_without_writing(runs) -> None:
    base = runs[0].parent
    study = {
        "name": "dict-study",
        "benchmarks": [{"name": "demo", "tasks": list(TASKS)}],
        "models": [{"spec": f"replay:{base / 'old.jsonl'}", "label": "old"}],
    }
    config = beyondpass.load_study(study)
    assert config.name == "dict-study" and [m.label for m in config.models] == ["old"]
    cost = beyondpass.cost(study, out=base / "never")
    assert cost.total("samples") == len(TASKS) and all(line.offline for line in cost.lines)
    assert not (base / "never").exists()


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda d: beyondpass.open_run(d / "nowhere"), DataError, "does not exist"),
        (lambda d: beyondpass.open_run(d), DataError, "not a beyondpass run"),
        (lambda d: beyondpass.open_run(3), ConfigError, "directory path"),
        (lambda d: beyondpass.compare(d / "old", d / "new", fail_on="pass@1:+2pp"),
         ConfigError, "-2pp"),
        (lambda d: beyondpass.compare(d / "old", d / "new", pairs=["x=y"]), ConfigError,
         "not a model of"),
        (lambda d: beyondpass.compare(d / "old", d / "new", alpha=2), ConfigError, "alpha"),
        (lambda d: beyondpass.run(d / "no-study.toml"), ConfigError, "does not exist"),
        (lambda d: beyondpass.run({"name": "x"}, models=[""]), ConfigError, "spec"),
        (lambda d: beyondpass.evaluate("demo", d / "old.jsonl", timeout=0), ConfigError,
         "timeout"),
        (lambda d: beyondpass.evaluate("demo", d / "old.jsonl", workers=0), ConfigError,
         "workers"),
        (lambda d: beyondpass.open_run(d / "old").to_pandas(per="task"), ConfigError, "per="),
    ],
)  # fmt: skip
def test_bad_input_is_one_precise_error(runs, call, error, words) -> None:
    base = runs[0].parent
    with pytest.raises(error) as raised:
        call(base)
    assert isinstance(raised.value, BeyondpassError)
    text = str(raised.value)
    assert words in text and "\n" not in text
