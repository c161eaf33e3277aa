"""The run store: config, samples (raw answer + extracted code) and every evaluator's results.

A run is a directory holding ``run.sqlite3``. SQLite in WAL mode with one transaction per
sample and evaluator means a run killed at any moment (even ``kill -9``) keeps every
evaluation whose write committed; re-running the same command skips them and resumes.
Samples and evaluations are separate tables so an interrupted evaluation re-evaluates
without re-asking the model, and one evaluator can be added or recomputed on a finished run
(``beyondpass rescore``) without touching the others.

Each evaluator's scores are their own row (sample key, evaluator name and version, metrics,
details); exactly one evaluator per run decides the verdict (its rows carry ``status`` and
``passed``) and a metric name belongs to one evaluator only (docs/store.md).
:meth:`RunStore.rows` joins them back into one :class:`ResultRecord` per sample, the shape
analysis and reports read. The tables themselves, and opening a run at the current schema,
are :mod:`beyondpass.store.schema`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError
from beyondpass.store import schema

DB_NAME = "run.sqlite3"


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
    """A sample's result as analysis reads it: the verdict plus every evaluator's metrics."""

    key: str
    status: str
    passed: bool
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    #: False when no check stands behind the verdict (its evaluator stored ``passed`` as
    #: None: a scored edit, a misuse check, a label): pass@k is not computed over it
    checked: bool = True


@dataclass
class EvaluationRecord:
    """One evaluator's scores for one sample; ``status``/``passed`` only on verdict rows."""

    key: str
    evaluator: str
    version: str
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    status: str | None = None
    passed: bool | None = None
    created_at: float = 0.0


@dataclass(frozen=True)
class EvaluatorRecord:
    """An evaluator known to the run: name, version, role and recorded metadata."""

    name: str
    version: str
    decides_verdict: bool
    position: int
    metrics: tuple[str, ...]
    metadata: dict[str, Any]
    updated_at: float


@dataclass
class Row:
    """A sample joined with its result (``result`` is None until its verdict is stored)."""

    sample: SampleRecord
    result: ResultRecord | None


class RunStore:
    """Thread-safe access to one run's database.

    Opening a run made by an older release migrates it in place first (a backup of the old
    database is kept next to it, see :mod:`beyondpass.store.migrate`); a run made by a newer
    release is refused.
    """

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
            schema.open_schema(self._db, self.path)
        except sqlite3.DatabaseError as exc:
            raise DataError(f"{self.path}: not a usable run database ({exc})") from exc
        self._owners: dict[str, str] = dict(
            self._db.execute("SELECT metric, evaluator FROM metric_owners").fetchall()
        )

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

    def delete_meta(self, key: str) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def get_meta(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def all_meta(self) -> dict[str, Any]:
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        return {k: json.loads(v) for k, v in rows}

    # -- samples ---------------------------------------------------------------------------
    def put_sample(self, s: SampleRecord) -> None:
        """Store one sample atomically; an existing sample with the same key is replaced
        (and its evaluations, made on the old answer, are dropped)."""
        with self._lock, self._db:
            self._db.execute("DELETE FROM evaluations WHERE key = ?", (s.key,))
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

    def sample_keys(self) -> set[str]:
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM samples")}

    def get_sample(self, key: str) -> SampleRecord | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_SAMPLE_COLS} FROM samples s WHERE s.key = ?", (key,))
            found = row.fetchone()
        return _sample(found) if found else None

    # -- evaluators ------------------------------------------------------------------------
    def register_evaluator(
        self,
        name: str,
        *,
        version: str,
        decides_verdict: bool,
        metrics: Iterable[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Declare (or update) an evaluator of this run before it stores results.

        Refused, with nothing changed, when it would make a second verdict evaluator or
        declares a metric another evaluator of the run already produces.
        """
        metrics = tuple(metrics)
        known = {e.name: e for e in self.evaluators()}
        if decides_verdict:
            other = [e.name for e in known.values() if e.decides_verdict and e.name != name]
            if other:
                raise DataError(
                    f"{self.run_dir}: the verdicts of this run are decided by evaluator "
                    f"{other[0]!r}; {name!r} cannot decide them too"
                )
        elif name in known and known[name].decides_verdict:
            raise DataError(f"{self.run_dir}: evaluator {name!r} decides this run's verdicts")
        self._check_owner(name, "declares", metrics)
        position = known[name].position if name in known else len(known)
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO evaluators VALUES (?,?,?,?,?,?,?)",
                (
                    name,
                    version,
                    int(decides_verdict),
                    position,
                    json.dumps(list(metrics)),
                    json.dumps(dict(metadata or {})),
                    time.time(),
                ),
            )

    def evaluators(self) -> list[EvaluatorRecord]:
        """The run's evaluators, verdict evaluator first, then in the order they joined."""
        with self._lock:
            fetched = self._db.execute(
                "SELECT name, version, decides_verdict, position, metrics, metadata, updated_at "
                "FROM evaluators ORDER BY decides_verdict DESC, position"
            ).fetchall()
        return [
            EvaluatorRecord(n, v, bool(d), p, tuple(json.loads(m)), json.loads(md), u)
            for n, v, d, p, m, md, u in fetched
        ]

    def _check_owner(self, evaluator: str, verb: str, metrics: Iterable[str]) -> None:
        """A metric another evaluator of the run produces is an error, never an overwrite."""
        clashes = sorted(m for m in metrics if self._owners.get(m, evaluator) != evaluator)
        if clashes:
            m = clashes[0]
            raise DataError(
                f"evaluator {evaluator!r} {verb} metric {m!r}, which evaluator "
                f"{self._owners[m]!r} already produces in this run — metric names must be "
                "unique across evaluators"
            )

    def metric_owners(self) -> dict[str, str]:
        """Metric name -> the evaluator that produces it in this run."""
        with self._lock:
            return dict(self._owners)

    # -- evaluations -----------------------------------------------------------------------
    def put_evaluation(self, e: EvaluationRecord) -> None:
        """Store one evaluator's scores for one sample (replacing its earlier ones), at once.

        A verdict row is one with a ``status``; only the verdict evaluator writes them. A
        metric another evaluator already produces is an error, never an overwrite.
        """
        with self._lock:
            role = self._db.execute(
                "SELECT decides_verdict FROM evaluators WHERE name = ?", (e.evaluator,)
            ).fetchone()
        if role is None:
            raise DataError(f"evaluator {e.evaluator!r} is not registered in {self.run_dir}")
        if bool(role[0]) != (e.status is not None):
            what = "must set" if role[0] else "must not set"
            raise DataError(f"evaluator {e.evaluator!r} {what} the verdict (status)")
        self._check_owner(e.evaluator, "produced", e.metrics)
        new = [m for m in e.metrics if m not in self._owners]
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO metric_owners VALUES (?, ?)",
                [(m, e.evaluator) for m in new],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO evaluations VALUES (?,?,?,?,?,?,?,?)",
                (
                    e.key,
                    e.evaluator,
                    e.version,
                    e.status,
                    None if e.passed is None else int(e.passed),
                    json.dumps(e.metrics),
                    json.dumps(e.details),
                    e.created_at or time.time(),
                ),
            )
            self._owners.update(dict.fromkeys(new, e.evaluator))

    def put_result(self, r: ResultRecord, evaluator: str = "functional") -> None:
        """Store a whole result as one verdict row of ``evaluator`` (registered if new)."""
        if evaluator not in {e.name for e in self.evaluators()}:
            self.register_evaluator(evaluator, version="", decides_verdict=True)
        self.put_evaluation(
            EvaluationRecord(
                r.key,
                evaluator,
                "",
                dict(r.metrics),
                dict(r.details),
                r.status,
                r.passed if r.checked else None,
            )
        )

    def evaluations(self, evaluator: str | None = None) -> list[EvaluationRecord]:
        """Stored evaluations (of one evaluator, or all), in key order."""
        query = f"SELECT {_EVAL_COLS} FROM evaluations e"
        args: tuple[str, ...] = ()
        if evaluator is not None:
            query, args = query + " WHERE e.evaluator = ?", (evaluator,)
        with self._lock:
            fetched = self._db.execute(query + " ORDER BY e.key, e.evaluator", args).fetchall()
        return [_evaluation(row) for row in fetched]

    def evaluation_keys(self, evaluator: str, *, since: float | None = None) -> set[str]:
        """Keys ``evaluator`` has scored (only those scored at or after ``since`` if given)."""
        query = "SELECT key FROM evaluations WHERE evaluator = ?"
        args: tuple[Any, ...] = (evaluator,)
        if since is not None:
            query, args = query + " AND created_at >= ?", (evaluator, since)
        with self._lock:
            return {k for (k,) in self._db.execute(query, args)}

    def clear_results(self) -> int:
        """Forget every evaluation and evaluator (samples stay), e.g. when the scoring setup
        changed; returns how many samples had a verdict."""
        with self._lock, self._db:
            n = self._db.execute(
                "SELECT COUNT(*) FROM evaluations WHERE status IS NOT NULL"
            ).fetchone()[0]
            self._db.execute("DELETE FROM evaluations")
            self._db.execute("DELETE FROM metric_owners")
            self._db.execute("DELETE FROM evaluators")
            self._owners.clear()
        return int(n)

    def result_keys(self) -> set[str]:
        """Samples scored by every evaluator of the run (verdict included)."""
        with self._lock:
            n_evaluators = self._db.execute("SELECT COUNT(*) FROM evaluators").fetchone()[0]
            fetched = self._db.execute(
                "SELECT key FROM evaluations GROUP BY key "
                "HAVING COUNT(*) = ? AND COUNT(status) = 1",
                (n_evaluators,),
            ).fetchall()
        return {k for (k,) in fetched}

    def rows(self) -> Iterator[Row]:
        """Every sample with its result, in a stable order.

        A result is the verdict row's status, passed, metrics and details, with every other
        evaluator's metrics added and its non-empty details under its name (the shape one
        merged result had before per-evaluator rows).
        """
        with self._lock:
            samples = self._db.execute(
                f"SELECT {_SAMPLE_COLS} FROM samples s "
                "ORDER BY s.benchmark, s.model, s.condition, s.task_id, s.sample_index"
            ).fetchall()
            evaluations = self._db.execute(
                f"SELECT {_EVAL_COLS} FROM evaluations e JOIN evaluators v "
                "ON v.name = e.evaluator ORDER BY v.decides_verdict DESC, v.position"
            ).fetchall()
        by_key: dict[str, list[EvaluationRecord]] = {}
        for row in evaluations:
            e = _evaluation(row)
            by_key.setdefault(e.key, []).append(e)
        for row in samples:
            sample = _sample(row)
            yield Row(sample, merge(sample.key, by_key.get(sample.key, [])))

    def counts(self) -> dict[str, int]:
        with self._lock:
            n_samples = self._db.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
            n_results = self._db.execute(
                "SELECT COUNT(*) FROM evaluations WHERE status IS NOT NULL"
            ).fetchone()[0]
        return {"samples": n_samples, "results": n_results}


def merge(key: str, evaluations: Iterable[EvaluationRecord]) -> ResultRecord | None:
    """One result from a sample's evaluations (verdict row first); None without a verdict."""
    evaluations = list(evaluations)
    verdict = next((e for e in evaluations if e.status is not None), None)
    if verdict is None:
        return None
    metrics = dict(verdict.metrics)
    details = dict(verdict.details)
    for e in evaluations:
        if e is verdict:
            continue
        metrics.update(e.metrics)
        if e.details:
            details[e.evaluator] = e.details
    return ResultRecord(
        key, verdict.status, bool(verdict.passed), metrics, details, verdict.passed is not None
    )


_SAMPLE_COLS = (
    "s.key, s.benchmark, s.task_id, s.model, s.condition, s.sample_index, s.transcript, "
    "s.raw, s.code, s.program, s.extraction, s.generation"
)
_EVAL_COLS = "e.key, e.evaluator, e.version, e.status, e.passed, e.metrics, e.details, e.created_at"


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


def _evaluation(row: tuple[Any, ...]) -> EvaluationRecord:
    key, evaluator, version, status, passed, metrics, details, created_at = row
    return EvaluationRecord(
        key=key,
        evaluator=evaluator,
        version=version,
        metrics=json.loads(metrics),
        details=json.loads(details),
        status=status,
        passed=None if passed is None else bool(passed),
        created_at=created_at,
    )
