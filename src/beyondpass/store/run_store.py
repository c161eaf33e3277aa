"""The run store: config, samples (raw answer + extracted code), verdicts and metrics.

A run is a directory holding ``run.sqlite3``. SQLite in WAL mode with one transaction per
sample means a run killed at any moment (even ``kill -9``) keeps every sample whose write
committed; re-running the same command skips them and resumes. Samples and results are
separate tables so an interrupted evaluation re-evaluates without re-asking the model.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError

DB_NAME = "run.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    key TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    task_id TEXT NOT NULL,
    model TEXT NOT NULL,
    condition TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    transcript TEXT NOT NULL,      -- JSON: every step's messages and raw answer
    raw TEXT NOT NULL,             -- the final raw answer
    code TEXT NOT NULL,            -- the code extracted from it
    program TEXT NOT NULL,         -- the runnable program assembled for the task
    extraction TEXT NOT NULL,      -- JSON: status, kind, error, notes
    generation TEXT NOT NULL,      -- JSON: model_version, finish_reason, usage, cached
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_group ON samples (benchmark, model, condition, task_id);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY REFERENCES samples(key),
    status TEXT NOT NULL,
    passed INTEGER NOT NULL,
    metrics TEXT NOT NULL,         -- JSON: numeric metrics by name
    details TEXT NOT NULL,         -- JSON: per-test results, message, output tails
    created_at REAL NOT NULL
);
"""


def sample_key(benchmark: str, task_id: str, model: str, condition: str, index: int) -> str:
    """Stable identity of one sample in a run."""
    blob = json.dumps([benchmark, task_id, model, condition, index]).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


@dataclass
class SampleRecord:
    key: str
    benchmark: str
    task_id: str
    model: str
    condition: str
    sample_index: int
    raw: str
    code: str
    program: str
    extraction: dict[str, Any]
    transcript: list[dict[str, Any]] = field(default_factory=list)
    generation: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResultRecord:
    key: str
    status: str
    passed: bool
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Row:
    """A sample joined with its result (``result`` is None until evaluated)."""

    sample: SampleRecord
    result: ResultRecord | None


class RunStore:
    """Thread-safe access to one run's database."""

    def __init__(self, run_dir: str | Path, *, create: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        if not self.path.exists() and not create:
            raise DataError(
                f"{self.run_dir} is not a beyondpass run (no {DB_NAME}) — pass the directory "
                "that `beyondpass run` or `beyondpass evaluate` wrote"
            )
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise DataError(f"{self.path}: not a usable run database ({exc})") from exc
        if self.get_meta("schema_version") is None:
            self.set_meta("schema_version", SCHEMA_VERSION)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta ------------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def get_meta(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def all_meta(self) -> dict[str, Any]:
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        return {k: json.loads(v) for k, v in rows}

    # -- samples and results ---------------------------------------------------------------
    def put_sample(self, s: SampleRecord) -> None:
        """Store one sample atomically; an existing sample with the same key is replaced."""
        with self._lock, self._db:
            self._db.execute("DELETE FROM results WHERE key = ?", (s.key,))
            self._db.execute(
                "INSERT OR REPLACE INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    s.key,
                    s.benchmark,
                    s.task_id,
                    s.model,
                    s.condition,
                    s.sample_index,
                    json.dumps(s.transcript),
                    s.raw,
                    s.code,
                    s.program,
                    json.dumps(s.extraction),
                    json.dumps(s.generation),
                    time.time(),
                ),
            )

    def put_result(self, r: ResultRecord) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?)",
                (
                    r.key,
                    r.status,
                    int(r.passed),
                    json.dumps(r.metrics),
                    json.dumps(r.details),
                    time.time(),
                ),
            )

    def clear_results(self) -> int:
        """Forget every verdict (samples stay), e.g. when the scoring setup changed."""
        with self._lock, self._db:
            return self._db.execute("DELETE FROM results").rowcount

    def sample_keys(self) -> set[str]:
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM samples")}

    def result_keys(self) -> set[str]:
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM results")}

    def get_sample(self, key: str) -> SampleRecord | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_SAMPLE_COLS} FROM samples s WHERE s.key = ?", (key,))
            found = row.fetchone()
        return _sample(found) if found else None

    def rows(self) -> Iterator[Row]:
        """Every sample with its result, in a stable order."""
        with self._lock:
            fetched = self._db.execute(
                f"SELECT {_SAMPLE_COLS}, r.status, r.passed, r.metrics, r.details "
                "FROM samples s LEFT JOIN results r ON r.key = s.key "
                "ORDER BY s.benchmark, s.model, s.condition, s.task_id, s.sample_index"
            ).fetchall()
        for row in fetched:
            sample = _sample(row[:12])
            result = None
            if row[12] is not None:
                result = ResultRecord(
                    sample.key, row[12], bool(row[13]), json.loads(row[14]), json.loads(row[15])
                )
            yield Row(sample, result)

    def counts(self) -> dict[str, int]:
        with self._lock:
            n_samples = self._db.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
            n_results = self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        return {"samples": n_samples, "results": n_results}


_SAMPLE_COLS = (
    "s.key, s.benchmark, s.task_id, s.model, s.condition, s.sample_index, s.transcript, "
    "s.raw, s.code, s.program, s.extraction, s.generation"
)


def _sample(row: tuple[Any, ...]) -> SampleRecord:
    return SampleRecord(
        key=row[0],
        benchmark=row[1],
        task_id=row[2],
        model=row[3],
        condition=row[4],
        sample_index=row[5],
        transcript=json.loads(row[6]),
        raw=row[7],
        code=row[8],
        program=row[9],
        extraction=json.loads(row[10]),
        generation=json.loads(row[11]),
    )
