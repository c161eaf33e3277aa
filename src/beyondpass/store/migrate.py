"""Bring a run written by an older store schema up to the current one, in place.

Schema 1 (beyondpass 0.1.0) kept one ``results`` row per sample: the verdict evaluator's
status and metrics with every other evaluator's metrics merged in and their details under
their names. Schema 2 keeps one row per sample and evaluator. The migration splits each old
row by what the run itself recorded (its ``evaluators`` metadata): a metric goes to the
non-verdict evaluator whose recorded metadata lists it under ``"metrics"`` (RobuNFR's
``nfr`` lists its seven), ``details[name]`` goes to evaluator ``name``, and everything else
stays with the verdict evaluator (the first recorded one). Joining the rows back gives the
old result exactly, so verdicts, metrics and reports are unchanged (docs/store.md).

The old database is first copied to ``run.sqlite3.schema1.bak``; the migration itself is
one transaction, so a kill leaves either the old run or the migrated one, never a mix.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError

MIGRATED_VERSION = "unrecorded (store schema 1)"
DEFAULT_VERDICT = "functional"


def schema_version(db: sqlite3.Connection) -> int | None:
    """The schema a database was written with; None for a new (empty) database."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(json.loads(row[0])) if row else None


def backup_path(path: Path, version: int) -> Path:
    return path.with_name(f"{path.name}.schema{version}.bak")


def migrate(db: sqlite3.Connection, path: Path, found: int, schema: str, target: int) -> None:
    """Migrate ``db`` (at ``path``) from schema ``found`` to ``target`` (``schema``'s DDL)."""
    if (found, target) != (1, 2):
        raise DataError(f"{path}: no migration from store schema {found} to {target}")
    backup = backup_path(path, found)
    try:
        if not backup.exists():  # an earlier attempt that failed already made it
            tmp = backup.with_name(backup.name + ".tmp")
            copy = sqlite3.connect(tmp)
            try:
                db.backup(copy)
            finally:
                copy.close()
            os.replace(tmp, backup)
        _migrate_1_to_2(db, schema, target, backup.name)
    except (OSError, sqlite3.OperationalError) as exc:
        raise DataError(
            f"{path.parent}: cannot migrate this run from store schema {found} to {target} "
            f"({exc}) — make the directory writable and open it again"
        ) from exc
    except (ValueError, TypeError) as exc:  # a row the old release could not have written
        raise DataError(
            f"{path.parent}: cannot migrate this run from store schema {found} to {target}: "
            f"a stored result is damaged ({exc}); the run is left as it was"
        ) from exc


def _migrate_1_to_2(db: sqlite3.Connection, schema: str, target: int, backup: str) -> None:
    isolation = db.isolation_level
    db.isolation_level = None  # one explicit transaction around DDL and data alike
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(db) == target:  # another process migrated it meanwhile
                db.execute("COMMIT")
                return
            for statement in schema.split(";"):
                if statement.strip():
                    db.execute(statement)
            meta = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
            verdict, extras = _recorded_evaluators(meta)
            _register(db, verdict, extras)
            owners: dict[str, str] = {}
            for key, status, passed, metrics, details, created_at in db.execute(
                "SELECT key, status, passed, metrics, details, created_at FROM results"
            ).fetchall():
                for row in split_result(
                    json.loads(metrics), json.loads(details), verdict[0], extras
                ):
                    name, row_metrics, row_details = row
                    is_verdict = name == verdict[0]
                    db.execute(
                        "INSERT INTO evaluations VALUES (?,?,?,?,?,?,?,?)",
                        (
                            key,
                            name,
                            MIGRATED_VERSION,
                            status if is_verdict else None,
                            passed if is_verdict else None,
                            json.dumps(row_metrics),
                            json.dumps(row_details),
                            created_at,
                        ),
                    )
                    owners.update(dict.fromkeys(row_metrics, name))
            db.executemany("INSERT INTO metric_owners VALUES (?, ?)", sorted(owners.items()))
            db.execute("DROP TABLE results")
            history = meta.get("migrations", [])
            history.append(
                {
                    "from_schema": 1,
                    "to_schema": target,
                    "at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "backup": backup,
                    "verdict_evaluator": verdict[0],
                    "metrics_by_evaluator": {n: list(m) for n, m, _ in extras},
                }
            )
            for k, v in (("migrations", history), ("schema_version", target)):
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (k, json.dumps(v)))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.isolation_level = isolation


Recorded = tuple[str, tuple[str, ...], dict[str, Any]]  # name, declared metrics, metadata


def _recorded_evaluators(meta: dict[str, Any]) -> tuple[Recorded, list[Recorded]]:
    """The verdict evaluator and the others, as the old run recorded them."""
    listed = meta.get("evaluators")
    entries = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    if not entries:
        executor = meta.get("executor")
        name = executor.get("evaluator") if isinstance(executor, dict) else None
        return (str(name or DEFAULT_VERDICT), (), {}), []
    recorded = [
        (str(e.get("evaluator") or DEFAULT_VERDICT), tuple(e.get("metrics") or ()), e)
        for e in entries
    ]
    return recorded[0], recorded[1:]


def _register(db: sqlite3.Connection, verdict: Recorded, extras: list[Recorded]) -> None:
    now = datetime.now(UTC).timestamp()
    for position, (name, metrics, metadata) in enumerate([verdict, *extras]):
        db.execute(
            "INSERT INTO evaluators VALUES (?,?,?,?,?,?,?)",
            (
                name,
                MIGRATED_VERSION,
                int(position == 0),
                position,
                json.dumps(list(metrics)),
                json.dumps(metadata),
                now,
            ),
        )


def split_result(
    metrics: dict[str, Any], details: dict[str, Any], verdict: str, extras: list[Recorded]
) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """One schema-1 result as (evaluator, metrics, details) rows, verdict evaluator first.

    Every non-verdict evaluator gets a row (in schema 1 a result existed only once all
    evaluators were done with the sample), possibly empty.
    """
    rest_metrics, rest_details = dict(metrics), dict(details)
    rows = []
    for name, declared, _ in extras:
        mine = {m: rest_metrics.pop(m) for m in declared if m in rest_metrics}
        own = rest_details.get(name)
        own_details = rest_details.pop(name) if isinstance(own, dict) else {}
        rows.append((name, mine, own_details))
    return [(verdict, rest_metrics, rest_details), *rows]
