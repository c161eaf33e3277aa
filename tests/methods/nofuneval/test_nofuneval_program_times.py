"""A resumed ``nofuneval-edit`` run does not time each row's source again: the source
times are kept in the run's folder (``program_times.py``) and reused under the same
conditions only. Table 1 of the published files keeps its sources' and edits' times the
same way, in its output folder: its files share the sources, and a stopped table resumes."""

from __future__ import annotations

import json
import shutil

from beyondpass.methods.nofuneval.edit import program_times
from beyondpass.methods.nofuneval.edit.program_times import SOURCE_FILE_NAME
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
    """Two published runtime files (two models, rows 0 and 1) in one table: each file's
    run times the rows' sources only if no file before it did; the table run again on the
    same folder measures nothing; compat is another reading, measured anew."""
    from beyondpass.methods.nofuneval.table1.published import published_files
    from beyondpass.methods.nofuneval.table1.score import TableSettings, run_table
    from nofuneval_data import nofuneval_dir

    data = [json.loads(x) for x in (nofuneval_dir() / "runtime_efficiency.jsonl").open()][:2]
    wrong = "print(0)\n"
    edits = {"m1": [r["target_code"] for r in data], "m2": [data[0]["target_code"], wrong]}
    for model, programs in edits.items():
        folder = tmp_path / "generations/edit/runtime_efficiency" / model / "one_shot/1_samples"
        folder.mkdir(parents=True)
        lines = [
            {"generated_answers": [f"### Response:\n```python\n{edit}\n```"],
             "source_code": r["source_code"], "target_code": r["target_code"], "pl": "python"}
            for r, edit in zip(data, programs, strict=True)
        ]  # fmt: skip
        (folder / "generated_outputs.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines)
        )
    files = published_files(tmp_path, samples=1)
    out = tmp_path / "out"
    calls = _counting(monkeypatch)

    def table(readings, out=out):
        settings = TableSettings(
            out, data_dir=str(nofuneval_dir().parent), run_readings=readings, runs=2
        )
        return {r.file.model: r for r in run_table(files, settings)}

    first = table(("default",))
    assert calls == [2]  # the first file's run timed both sources; the second file's none
    rows = {m: {x["row"]: x for x in r.lines["default"]} for m, r in first.items()}
    assert [rows["m2"][i]["correct"] for i in (0, 1)] == [True, False]
    for key in ("source_time_mean_s", "source_correct"):  # the same source measurement
        assert rows["m1"][0][key] == rows["m2"][0][key]
    assert table(("default",)).keys() == first.keys() and calls == [2]  # resumed: nothing
    # a table that also runs compat (a run of other settings: another folder) with the
    # kept times: the default reading's are reused, compat's (wall-clock times, the
    # lenient wrapper) are another measurement
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(out / SOURCE_FILE_NAME, other / SOURCE_FILE_NAME)
    table(("compat", "default"), other)
    assert calls == [2, 2]
    assert len((other / SOURCE_FILE_NAME).read_text().splitlines()) == 4  # 2 default, 2 compat
