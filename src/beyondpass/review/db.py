"""The review database: ``review.sqlite3`` in the run directory, with its own schema version.

Kept apart from ``run.sqlite3`` so a review never changes the run store's schema. Every
connection is short-lived (one per request or command) in WAL mode with a busy timeout, and
every write is one ``BEGIN IMMEDIATE`` transaction, so concurrent reviewers serialise on
SQLite's write lock instead of losing a rating.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError

DB_NAME = "review.sqlite3"
SCHEMA_VERSION = 3
#: rating scale: even, no neutral (the seed's [-2; 2] without 0)
SCALE = (-2, -1, 1, 2)
#: the seed's five properties, in the order the page and Table 4 show them
PROPERTIES = ("first_impression", "readability", "usability", "modifiability", "acceptance")
LABELS = {
    "first_impression": "First impression",
    "readability": "Readability",
    "usability": "Usability",
    "modifiability": "Modifiability",
    "acceptance": "Acceptance",
}

# one entry per schema version: the statements that bring version N-1 to N
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        benchmark TEXT NOT NULL, task_id TEXT NOT NULL, condition TEXT NOT NULL,
        sample_index INTEGER NOT NULL,
        key_a TEXT NOT NULL, key_b TEXT NOT NULL,
        task_text TEXT NOT NULL, code_a TEXT NOT NULL, code_b TEXT NOT NULL,
        flags TEXT NOT NULL DEFAULT '[]'
    );
    CREATE TABLE redactions (
        item_id INTEGER NOT NULL REFERENCES items(id), side TEXT NOT NULL,
        pattern TEXT NOT NULL, count INTEGER NOT NULL, original_sha256 TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE reviewers (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
        token_hash TEXT NOT NULL UNIQUE, revoked_at REAL
    );
    CREATE TABLE assignments (
        id INTEGER PRIMARY KEY,
        reviewer_id INTEGER NOT NULL REFERENCES reviewers(id),
        position INTEGER NOT NULL, item_id INTEGER NOT NULL REFERENCES items(id),
        repeat INTEGER NOT NULL CHECK (repeat IN (0, 1)),
        swapped INTEGER NOT NULL CHECK (swapped IN (0, 1)),  -- 1: model B shown on the left
        first_shown_at REAL,
        UNIQUE (reviewer_id, position), UNIQUE (reviewer_id, item_id, repeat)
    );
    CREATE TABLE forms (
        nonce TEXT PRIMARY KEY, assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        issued_at REAL NOT NULL, used_at REAL
    );
    CREATE TABLE ratings (
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        side TEXT NOT NULL CHECK (side IN ('a', 'b')),
        property TEXT NOT NULL,
        value INTEGER NOT NULL CHECK (value IN (-2, -1, 1, 2)),
        PRIMARY KEY (assignment_id, side, property)
    );
    CREATE TABLE choices (
        assignment_id INTEGER PRIMARY KEY REFERENCES assignments(id),
        better TEXT NOT NULL CHECK (better IN ('a', 'b')),
        better_left INTEGER NOT NULL CHECK (better_left IN (0, 1)),
        comment TEXT NOT NULL DEFAULT '',
        seconds REAL NOT NULL, created_at REAL NOT NULL
    );
    """,
    # 2: answers saved as they are given, before the item is submitted (by page field)
    """
    CREATE TABLE drafts (
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        field TEXT NOT NULL, value TEXT NOT NULL, updated_at REAL NOT NULL,
        PRIMARY KEY (assignment_id, field)
    );
    """,
    # 3: several model pairs per study (each item names its two models; a study of one pair
    # made by schema 2 takes them from its meta), and reviewer activity per item, so that the
    # time spent on an item can leave out breaks
    """
    ALTER TABLE items ADD COLUMN model_a TEXT;
    ALTER TABLE items ADD COLUMN model_b TEXT;
    UPDATE items SET
        model_a = json_extract((SELECT value FROM meta WHERE key='study'), '$.pair[0]'),
        model_b = json_extract((SELECT value FROM meta WHERE key='study'), '$.pair[1]');
    ALTER TABLE choices ADD COLUMN active_seconds REAL;
    CREATE TABLE activity (
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        kind TEXT NOT NULL CHECK (kind IN ('shown', 'draft', 'submit')),
        at REAL NOT NULL
    );
    CREATE INDEX activity_by_assignment ON activity(assignment_id, at);
    """,
)

#: a gap between two actions on an item longer than this counts as a break: only this much
#: of it is time spent on the item (``active_seconds``; the wall time is kept as ``seconds``)
IDLE_CAP_S = 300.0


def active_seconds(times: list[float], cap: float = IDLE_CAP_S) -> float:
    """Time on an item from its activity times (shown, each answer saved, submitted): the
    sum of the gaps between consecutive actions, each gap capped at ``cap`` seconds."""
    ordered = sorted(times)
    return sum(min(b - a, cap) for a, b in pairwise(ordered))


def db_path(run_dir: str | Path) -> Path:
    return Path(run_dir) / DB_NAME


@contextmanager
def connect(run_dir: str | Path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection to the run's review database, migrated to the current schema."""
    path = db_path(run_dir)
    if not create and not path.exists():
        raise DataError(
            f"{run_dir} has no review study — create one with `beyondpass review create`"
        )
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA foreign_keys=ON")
        _migrate(conn, path)
        yield conn
    finally:
        conn.close()


def _version(conn: sqlite3.Connection) -> int:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(json.loads(row[0])) if row else 0


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    version = _version(conn)
    if version > SCHEMA_VERSION:
        raise DataError(
            f"{path} was written by a newer beyondpass (review schema {version}) — upgrade"
        )
    if version == SCHEMA_VERSION:
        return
    with transaction(conn):
        version = _version(conn)  # another process may have migrated meanwhile
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[number - 1].split(";"):
                if statement.strip():
                    conn.execute(statement)
            set_meta(conn, "schema_version", number)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken up front (``BEGIN IMMEDIATE``): all or nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def set_meta(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, json.dumps(value)),
    )


def get_meta(conn: sqlite3.Connection, key: str, default: Any = None) -> Any:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return json.loads(row[0]) if row else default


def now() -> float:
    return time.time()
