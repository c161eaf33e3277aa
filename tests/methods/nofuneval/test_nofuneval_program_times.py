"""A resumed ``nofuneval-edit`` run does not time each row's source again: the source
times are kept in the run's folder (``program_times.py``) and reused under the same
conditions only. Table 1 of the published files keeps its sources' and edits' times the
same way, in its output folder: its files share the sources, and a stopped table resumes."""

from __future__ import annotations

import json

from beyondpass.methods.nofuneval.edit import program_times
from beyondpass.methods.nofuneval.edit.program_times import EDIT_FILE_NAME, SOURCE_FILE_NAME
from beyondpass.methods.nofuneval.edit.runtime import Measurement

SOURCE = "xs = list(map(int, input().split()))\nfor x in xs:\n    print(x + x)\n"
EDIT = "xs = list(map(int, input().split()))\nprint(*[2 * x for x in xs], sep='\\n')\n"


def _task(task_id: str = "0", program: str = EDIT):
    from beyondpass.benchmarks.task import Task, TestCase

    tests = (
        TestCase("p/0", stdin="3\n", expected_stdout="6\n"),
        TestCase("p/1", stdin="4 5\n", expected_stdout="8\n10\n"),
    )
    meta = {"source_code": SOURCE, "target_code": program, "pl": "python"}
    return Task(
        "nofuneval-runtime_efficiency", task_id, "python", "", None, "", tests, metadata=meta
    )


def _candidate(program: str, task_id: str = "0"):
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction

    return Candidate(_task(task_id, program), Extraction("ok", program, program, "full"))


def _counting(monkeypatch) -> list[int]:
    """Count the programs the kept times let through to be measured (the real measurement
    still runs)."""
    calls: list[int] = []
    real = program_times.measure_programs

    def counted(items, executor, compat, runs, **kwargs):
        calls.append(len(items))
        return real(items, executor, compat, runs, **kwargs)

    monkeypatch.setattr(program_times, "measure_programs", counted)
    return calls


def test_resumed_run_reuses_the_stored_source_times(tmp_path, monkeypatch):
    from beyondpass.execution import create_executor
    from beyondpass.methods.nofuneval.edit.evaluator import DiffBleuEvaluator, EditOptions

    calls = _counting(monkeypatch)
    executor = create_executor("sandbox", workers=1)
    try:
        first = DiffBleuEvaluator(EditOptions(runs=2), executor, run_dir=str(tmp_path))
        (a,) = first.evaluate([_candidate(EDIT)])
        assert calls == [1]
        lines = (tmp_path / SOURCE_FILE_NAME).read_text().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["task"].endswith("/0")
        # a resumed run: a new evaluator on the same folder times no source again
        resumed = DiffBleuEvaluator(EditOptions(runs=2), executor, run_dir=str(tmp_path))
        (b,) = resumed.evaluate([_candidate(EDIT)])
        assert calls == [1]
        src_a = a.details["runtime"].get("source_time_mean_s")
        assert src_a is not None and b.details["runtime"]["source_time_mean_s"] == src_a
        # other conditions (runs per case) are not the same measurement: timed again
        other = DiffBleuEvaluator(EditOptions(runs=1), executor, run_dir=str(tmp_path))
        other.evaluate([_candidate(EDIT)])
        assert calls == [1, 1]
        # no run folder (an evaluator built outside a run): nothing is written, each times
        DiffBleuEvaluator(EditOptions(runs=2), executor).evaluate([_candidate(EDIT)])
        assert calls == [1, 1, 1]
    finally:
        executor.close()
    assert len((tmp_path / SOURCE_FILE_NAME).read_text().splitlines()) == 2


def test_torn_or_foreign_lines_are_timed_again(tmp_path):
    from beyondpass.methods.nofuneval.edit.program_times import ProgramTimes

    timing = {"method": "cpu", "runs_per_case": 2, "python": "3.11.7", "compat": None}
    store = ProgramTimes(str(tmp_path), timing)
    store.add(("d1", "b/1"), Measurement(True, "passed", "", (0.1, 0.2)))
    with (tmp_path / SOURCE_FILE_NAME).open("a") as fh:
        fh.write('{"digest": "d2", "task": "b/2", "cond')  # killed while writing
    again = ProgramTimes(str(tmp_path), timing)
    assert set(again.known) == {("d1", "b/1")}
    assert again.known[("d1", "b/1")].times_s == (0.1, 0.2)
    assert ProgramTimes(str(tmp_path), {**timing, "python": "3.12.1"}).known == {}
    # the next record after a torn line is whole and read back
    again.add(("d3", "b/3"), Measurement(False, "failed", "wrong", ()))
    assert set(ProgramTimes(str(tmp_path), timing).known) == {("d1", "b/1"), ("d3", "b/3")}


def test_table1_files_share_source_times_and_a_stopped_table_resumes(tmp_path, monkeypatch):
    from beyondpass.execution import create_executor
    from beyondpass.methods.nofuneval.edit.speedup import score_runtime
    from beyondpass.methods.nofuneval.table1.score import kept_times

    calls = _counting(monkeypatch)
    tasks = {0: _task("0"), 1: _task("1")}
    wrong = "print(0)\n"
    executor = create_executor("sandbox", workers=1)
    try:
        kept = kept_times(tmp_path, executor, 2)["default"]
        # one published file: row 0's and row 1's edits are the same program on other tasks
        first = [{"row": 0}, {"row": 1}]
        score_runtime(first, [0, 1], [EDIT, EDIT], tasks, executor, False, 2, kept)
        assert calls == [2, 2]  # two sources, two edits (one per task)
        # the next file of the table: same sources (not timed again), one new edit
        second = [{"row": 0}, {"row": 1}]
        score_runtime(second, [0, 1], [EDIT, wrong], tasks, executor, False, 2, kept)
        assert calls == [2, 2, 1]
        assert second[0] == first[0]  # the same measurements, so the same record
        assert second[1]["correct"] is False and first[1]["correct"] is True
        # a table started again on the same folder (stopped, resumed): nothing is measured
        again = [{"row": 0}, {"row": 1}]
        resumed = kept_times(tmp_path, executor, 2)["default"]
        score_runtime(again, [0, 1], [EDIT, wrong], tasks, executor, False, 2, resumed)
        assert calls == [2, 2, 1] and again == second
        # compat is another reading (wall-clock times, the lenient wrapper): measured anew
        compat = kept_times(tmp_path, executor, 2)["compat"]
        score_runtime([{"row": 0}], [0], [EDIT], tasks, executor, True, 2, compat)
        assert calls == [2, 2, 1, 1, 1]
    finally:
        executor.close()
    assert len((tmp_path / SOURCE_FILE_NAME).read_text().splitlines()) == 3  # 2 default, 1 compat
    assert len((tmp_path / EDIT_FILE_NAME).read_text().splitlines()) == 4
