"""Bring a run written by an older store schema up to the current one, in place.

Schema 1 (beyondpass 0.1.0) kept one ``results`` row per sample: the verdict evaluator's
status and metrics with every other evaluator's metrics merged in and their details under
their names. Schema 2 keeps one row per sample and evaluator. The migration splits each old
row by what the run itself recorded (its ``evaluators`` metadata): a metric goes to the
non-verdict evaluator whose recorded metadata lists it under ``"metrics"`` (RobuNFR's
``nfr`` lists its seven), ``details[name]`` goes to evaluator ``name``, and everything else
stays with the verdict evaluator (the first recorded one). Joining the rows back gives the
old result exactly, so verdicts, metrics and reports are unchanged (docs/store.md).

Schema 3 renames evaluators whose names changed (:data:`RENAMED_EVALUATORS`: the PSB2
method's ``psb2_quality`` and ``psb2_smells`` became ``psb2-quality`` and ``psb2-smells``,
hyphenated like every other evaluator) wherever the run names them: the ``evaluators``,
``evaluations`` and ``metric_owners`` tables, each evaluator's recorded metadata, and the
metadata ``evaluators``, ``executor``, ``evaluation`` (the settings an ``evaluate`` run was
scored under) and ``rescore_in_progress``. History (``rescores``, ``migrations``, the study
file as written) keeps the names it was written with. Rows, metrics and details are untouched,
so reports and rescoring read the same numbers under the new names.

Schema 4 keeps ``passed`` NULL where a verdict is no test run (docs/verdicts.md): the
verdict rows of the three checks that used to say passed/failed without running a test
(RobustAPI's misuse check, NoFunClassify's label, a NoFunEval edit of a row without tests)
are rewritten as the current evaluators write them, so pass@k, the failure analysis and
core's Pass@1 headline of an old run leave them out, as for a new one.

The old database is first copied to ``run.sqlite3.schema<N>.bak`` (N: the schema it was
found at); every step from there to the current schema runs in one transaction, so a kill
leaves either the old run or the migrated one, never a mix.
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


#: evaluator names changed in schema 3: old name -> new name
RENAMED_EVALUATORS = {"psb2_quality": "psb2-quality", "psb2_smells": "psb2-smells"}


def migrate(db: sqlite3.Connection, path: Path, found: int, schema: str, target: int) -> None:
    """Migrate ``db`` (at ``path``) from schema ``found`` to ``target`` (``schema``'s DDL)."""
    if found >= target or any(v not in _STEPS for v in range(found, target)):
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
        _in_one_transaction(db, schema, target, backup.name)
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


def _in_one_transaction(db: sqlite3.Connection, schema: str, target: int, backup: str) -> None:
    """Every step from the schema the database is at (read inside the transaction: another
    process may have migrated it meanwhile) to ``target``, committed together."""
    isolation = db.isolation_level
    db.isolation_level = None  # one explicit transaction around DDL and data alike
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            at = schema_version(db) or target
            for version in range(at, target):
                _STEPS[version](db, schema, backup)
            if at < target:
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    ("schema_version", json.dumps(target)),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.isolation_level = isolation


def _record(db: sqlite3.Connection, migration: dict[str, Any]) -> None:
    """Append ``migration`` to the run's ``migrations`` metadata."""
    row = db.execute("SELECT value FROM meta WHERE key = 'migrations'").fetchone()
    history = json.loads(row[0]) if row else []
    history.append(migration)
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", ("migrations", json.dumps(history)))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _migrate_1_to_2(db: sqlite3.Connection, schema: str, backup: str) -> None:
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
        for name, row_metrics, row_details in split_result(
            json.loads(metrics), json.loads(details), verdict[0], extras
        ):
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
    _record(
        db,
        {
            "from_schema": 1,
            "to_schema": 2,
            "at": _now(),
            "backup": backup,
            "verdict_evaluator": verdict[0],
            "metrics_by_evaluator": {n: list(m) for n, m, _ in extras},
        },
    )


def _migrate_2_to_3(db: sqlite3.Connection, schema: str, backup: str) -> None:
    present = {n for (n,) in db.execute("SELECT name FROM evaluators")}
    renamed = {old: new for old, new in RENAMED_EVALUATORS.items() if old in present}
    for old, new in renamed.items():
        if new in present:
            raise ValueError(f"the run has both evaluator {old!r} and {new!r}")
        (metadata,) = db.execute(
            "SELECT metadata FROM evaluators WHERE name = ?", (old,)
        ).fetchone()
        db.execute(
            "UPDATE evaluators SET name = ?, metadata = ? WHERE name = ?",
            (new, json.dumps(_renamed_record(json.loads(metadata))), old),
        )
        db.execute("UPDATE evaluations SET evaluator = ? WHERE evaluator = ?", (new, old))
        db.execute("UPDATE metric_owners SET evaluator = ? WHERE evaluator = ?", (new, old))
    for key, value in db.execute("SELECT key, value FROM meta").fetchall():
        rename = _META_RENAMES.get(key)
        if rename is None:
            continue
        new_value = rename(json.loads(value))
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(new_value), key))
    _record(
        db,
        {
            "from_schema": 2,
            "to_schema": 3,
            "at": _now(),
            "backup": backup,
            "renamed_evaluators": renamed,
        },
    )


def _renamed_record(record: Any) -> Any:
    """An evaluator's metadata (``{"evaluator": name, ...}``) under its new name."""
    if isinstance(record, dict) and record.get("evaluator") in RENAMED_EVALUATORS:
        return {**record, "evaluator": RENAMED_EVALUATORS[record["evaluator"]]}
    return record


def _renamed_keys(value: Any) -> Any:
    """A mapping keyed by evaluator name, under the new names."""
    if not isinstance(value, dict):
        return value
    return {RENAMED_EVALUATORS.get(k, k): v for k, v in value.items()}


def _renamed_list(value: Any) -> Any:
    return [_renamed_record(e) for e in value] if isinstance(value, list) else value


#: meta keys that name evaluators, and how each is renamed
_META_RENAMES = {
    "evaluators": _renamed_list,
    "executor": _renamed_record,
    "evaluation": _renamed_keys,
    "rescore_in_progress": _renamed_keys,
}


def _unchecked_verdict(status: str, metrics: dict[str, Any]) -> str | None:
    """The status a schema-4 store gives an old verdict row that ran no test (None: the row
    is a test run, or cannot be told apart from one). The rows are recognised by their
    metrics, whichever evaluator stored them: the method's own, or a study's ``dispatch``,
    whose version never said which method's evaluator it routed to."""
    if "misuse" in metrics and "verdict_original" in metrics:  # RobustAPI's misuse check
        return status
    if "choice_correct" in metrics:  # NoFunClassify's label
        return {"passed": "correct", "failed": "wrong"}.get(status, status)
    edit_of_untested_row = (
        "diffbleu" in metrics
        and "edited" not in metrics  # version 3 writes it, and NULL where nothing ran
        and not any(m in metrics for m in _RUNTIME_METRICS)
        and status in ("passed", "failed")  # a no-code answer's task is not known: kept
    )
    return "scored" if edit_of_untested_row else None


#: a NoFunEval edit that ran on the row's cases carries these (a pass/fail: left as it is)
_RUNTIME_METRICS = ("speedup", "runtime_correct", "runtime_improved")


def _migrate_3_to_4(db: sqlite3.Connection, schema: str, backup: str) -> None:
    rewritten: dict[str, int] = {}
    rows = db.execute(
        "SELECT key, evaluator, status, metrics FROM evaluations "
        "WHERE status IS NOT NULL AND passed IS NOT NULL"
    ).fetchall()
    for key, evaluator, status, metrics_json in rows:
        metrics = json.loads(metrics_json)
        new_status = _unchecked_verdict(status, metrics)
        if new_status is None:
            continue
        if new_status == "scored":
            metrics["edited"] = int(status == "passed")
            db.execute("INSERT OR IGNORE INTO metric_owners VALUES ('edited', ?)", (evaluator,))
        db.execute(
            "UPDATE evaluations SET status = ?, passed = NULL, metrics = ? "
            "WHERE key = ? AND evaluator = ?",
            (new_status, json.dumps(metrics), key, evaluator),
        )
        rewritten[evaluator] = rewritten.get(evaluator, 0) + 1
    _record(
        db,
        {
            "from_schema": 3,
            "to_schema": 4,
            "at": _now(),
            "backup": backup,
            "verdicts_without_pass_fail": rewritten,
        },
    )


#: schema N -> the step that brings a database at N to N + 1 (inside the one transaction)
_STEPS = {1: _migrate_1_to_2, 2: _migrate_2_to_3, 3: _migrate_3_to_4}


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
