"""The run store: round trips, replacement semantics, WAL, clear errors."""

from __future__ import annotations

import sqlite3

import pytest

from beyondpass.errors import DataError
from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key


def sample(key: str, task: str = "T/1") -> SampleRecord:
    return SampleRecord(
        key=key,
        benchmark="b",
        task_id=task,
        model="m",
        condition="c",
        sample_index=0,
        raw="answer <script>",
        code="code",
        program="program",
        extraction={"status": "ok", "kind": "full", "error": "", "notes": []},
        transcript=[{"step": 0, "messages": [{"role": "user", "content": "q"}], "answer": "a"}],
        generation={"model_version": "v1"},
    )


def test_round_trip_and_reopen(tmp_path):
    key = sample_key("b", "T/1", "m", "c", 0)
    with RunStore(tmp_path) as store:
        store.put_sample(sample(key))
        store.put_result(ResultRecord(key, "failed", False, {"tests_run": 3}, {"message": "x"}))
        store.set_meta("study", {"name": "s"})
    with RunStore(tmp_path, create=False) as store:
        (row,) = list(store.rows())
        assert row.sample == sample(key)
        assert row.result == ResultRecord(key, "failed", False, {"tests_run": 3}, {"message": "x"})
        assert store.get_meta("study") == {"name": "s"}
        assert store.counts() == {"samples": 1, "results": 1}


def test_replacing_a_sample_drops_its_stale_result(tmp_path):
    with RunStore(tmp_path) as store:
        store.put_sample(sample("k"))
        store.put_result(ResultRecord("k", "passed", True))
        store.put_sample(sample("k"))
        assert store.result_keys() == set()


def test_uses_write_ahead_logging(tmp_path):
    RunStore(tmp_path).close()
    with sqlite3.connect(tmp_path / "run.sqlite3") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sample_keys_are_distinct_per_coordinate():
    keys = {
        sample_key(*coords)
        for coords in [
            ("b", "t", "m", "c", 0),
            ("b", "t", "m", "c", 1),
            ("b", "t", "m", "d", 0),
            ("b", "t", "n", "c", 0),
            ("b", "u", "m", "c", 0),
            ("a", "t", "m", "c", 0),
        ]
    }
    assert len(keys) == 6


def test_not_a_run_and_corrupt_database(tmp_path):
    with pytest.raises(DataError, match="is not a beyondpass run"):
        RunStore(tmp_path / "empty", create=False)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DataError, match="not a usable run database"):
        RunStore(tmp_path / "bad")
