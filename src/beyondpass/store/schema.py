"""The run database's tables, and opening a database at the schema this release writes.

The tables are described for readers in docs/store.md. A database is opened at the current
schema: a new one is created, one written by an older release is migrated in place
(:mod:`beyondpass.store.migrate`, which keeps a backup), and one written by a newer release
is refused rather than misread.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from beyondpass.errors import DataError
from beyondpass.store import migrate

SCHEMA_VERSION = 4

SCHEMA = """
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
CREATE TABLE IF NOT EXISTS evaluators (
    name TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    decides_verdict INTEGER NOT NULL,
    position INTEGER NOT NULL,     -- merge order of metrics and details in rows()
    metrics TEXT NOT NULL,         -- JSON: the metric names it declares
    metadata TEXT NOT NULL,        -- JSON: tools, versions, configuration
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS evaluations (
    key TEXT NOT NULL REFERENCES samples(key),
    evaluator TEXT NOT NULL REFERENCES evaluators(name),
    version TEXT NOT NULL,
    status TEXT,                   -- the verdict: set by the verdict evaluator only
    passed INTEGER,
    metrics TEXT NOT NULL,         -- JSON: numeric metrics by name
    details TEXT NOT NULL,         -- JSON: per-test results, message, output tails
    created_at REAL NOT NULL,
    PRIMARY KEY (key, evaluator)
);
CREATE TABLE IF NOT EXISTS metric_owners (
    metric TEXT PRIMARY KEY,
    evaluator TEXT NOT NULL
);
"""


def open_schema(db: sqlite3.Connection, path: Path) -> None:
    """Bring ``db`` (the run database at ``path``) to :data:`SCHEMA_VERSION`: create the
    tables of a new run, migrate an older one, refuse a newer one."""
    found = migrate.schema_version(db)
    if found is None:  # a new run
        db.executescript(SCHEMA)
        with db:
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                ("schema_version", json.dumps(SCHEMA_VERSION)),
            )
    elif found < SCHEMA_VERSION:
        migrate.migrate(db, path, found, SCHEMA, SCHEMA_VERSION)
    elif found > SCHEMA_VERSION:
        raise DataError(
            f"{path.parent} was written by a newer beyondpass (store schema {found}; this "
            f"one reads up to {SCHEMA_VERSION}) — upgrade beyondpass to read it"
        )
