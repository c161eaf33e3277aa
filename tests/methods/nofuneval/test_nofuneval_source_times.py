"""A resumed ``nofuneval-edit`` run does not time each row's source again: the source
times are kept in the run's folder (``source_times.py``) and reused under the same
conditions only."""

from __future__ import annotations

import json

from beyondpass.methods.nofuneval import speedup
from beyondpass.methods.nofuneval.runtime import Measurement
from beyondpass.methods.nofuneval.source_times import FILE_NAME

SOURCE = "xs = list(map(int, input().split()))\nfor x in xs:\n    print(x + x)\n"
EDIT = "xs = list(map(int, input().split()))\nprint(*[2 * x for x in xs], sep='\\n')\n"


def _candidate(program: str, task_id: str = "0"):
    from beyondpass.benchmarks.task import Task, TestCase
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction

    tests = (
        TestCase("p/0", stdin="3\n", expected_stdout="6\n"),
        TestCase("p/1", stdin="4 5\n", expected_stdout="8\n10\n"),
    )
    meta = {"source_code": SOURCE, "target_code": program, "pl": "python"}
    task = Task(
        "nofuneval-runtime_efficiency", task_id, "python", "", None, "", tests, metadata=meta
    )
    return Candidate(task, Extraction("ok", program, program, "full"))


def _counting(monkeypatch) -> list[int]:
    """Count the sources the evaluator times (the real measurement still runs)."""
    calls: list[int] = []
    real = speedup.measure_sources

    def counted(tasks, executor, compat, runs):
        calls.append(len(tasks))
        return real(tasks, executor, compat, runs)

    monkeypatch.setattr(speedup, "measure_sources", counted)
    return calls


def test_resumed_run_reuses_the_stored_source_times(tmp_path, monkeypatch):
    from beyondpass.execution import create_executor
    from beyondpass.methods.nofuneval.evaluator import DiffBleuEvaluator, EditOptions

    calls = _counting(monkeypatch)
    executor = create_executor("sandbox", workers=1)
    try:
        first = DiffBleuEvaluator(EditOptions(runs=2), executor, run_dir=str(tmp_path))
        (a,) = first.evaluate([_candidate(EDIT)])
        assert calls == [1]
        lines = (tmp_path / FILE_NAME).read_text().splitlines()
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
    assert len((tmp_path / FILE_NAME).read_text().splitlines()) == 2


def test_torn_or_foreign_lines_are_timed_again(tmp_path):
    from beyondpass.methods.nofuneval.source_times import SourceTimes

    timing = {"method": "cpu", "runs_per_case": 2, "python": "3.11.7", "compat": None}
    store = SourceTimes(str(tmp_path), timing)
    store.add(("d1", "b/1"), Measurement(True, "passed", "", (0.1, 0.2)))
    with (tmp_path / FILE_NAME).open("a") as fh:
        fh.write('{"digest": "d2", "task": "b/2", "cond')  # killed while writing
    again = SourceTimes(str(tmp_path), timing)
    assert set(again.known) == {("d1", "b/1")}
    assert again.known[("d1", "b/1")].times_s == (0.1, 0.2)
    assert SourceTimes(str(tmp_path), {**timing, "python": "3.12.1"}).known == {}
    # the next record after a torn line is whole and read back
    again.add(("d3", "b/3"), Measurement(False, "failed", "wrong", ()))
    assert set(SourceTimes(str(tmp_path), timing).known) == {("d1", "b/1"), ("d3", "b/3")}
