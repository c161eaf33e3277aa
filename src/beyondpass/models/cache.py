"""A persistent response cache, so re-running or resuming a study never pays twice.

One SQLite file keyed by :meth:`ModelProvider.cache_key` (a hash of endpoint identity,
messages, sampling parameters and sample index). Every answer is committed as soon as it
arrives and WAL mode keeps readers and the writer apart, so killing a run loses at most the
calls that were in flight.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError
from beyondpass.models.base import Generation, GenerationRequest

CACHE_FILENAME = "responses.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key        TEXT PRIMARY KEY,
    identity   TEXT NOT NULL,
    request    TEXT NOT NULL,
    generation TEXT NOT NULL,
    created_at TEXT NOT NULL
)
"""


def default_cache_path() -> Path:
    """``$BEYONDPASS_CACHE_DIR/responses.sqlite3``, else ``~/.cache/beyondpass/...``."""
    base = os.environ.get("BEYONDPASS_CACHE_DIR")
    root = Path(base).expanduser() if base else Path.home() / ".cache" / "beyondpass"
    return root / CACHE_FILENAME


def _request_record(request: GenerationRequest | None) -> dict[str, Any]:
    if request is None:
        return {}
    return {
        "messages": [asdict(m) for m in request.messages],
        "params": request.params.as_dict(),
        "sample_index": request.sample_index,
        "task_id": request.task_id,
        "condition": request.condition,
        "step": request.step,
    }


class ResponseCache:
    """Thread-safe SQLite cache of model answers (one shared connection behind a lock)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, check_same_thread=False, timeout=30.0, isolation_level=None
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise DataError(
                f"cannot open the response cache {self.path} ({exc}) — delete the file or "
                "point BEYONDPASS_CACHE_DIR at a writable directory"
            ) from exc

    def get(self, key: str) -> Generation | None:
        """The cached answer for ``key`` (marked ``cached=True``), or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT generation FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return Generation(
            text=data.get("text", ""),
            model_version=data.get("model_version", ""),
            finish_reason=data.get("finish_reason", ""),
            usage=dict(data.get("usage") or {}),
            cached=True,
            sent=dict(data.get("sent") or {}),
        )

    def put(
        self,
        key: str,
        generation: Generation,
        *,
        identity: Mapping[str, Any] | None = None,
        request: GenerationRequest | None = None,
    ) -> None:
        """Store one answer and commit at once (the identity and request keep rows readable)."""
        record = asdict(generation)
        record.pop("cached", None)
        values = (
            key,
            json.dumps(dict(identity or {}), sort_keys=True, ensure_ascii=False),
            json.dumps(_request_record(request), sort_keys=True, ensure_ascii=False),
            json.dumps(record, sort_keys=True, ensure_ascii=False),
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, identity, request, generation, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                values,
            )

    def __contains__(self, key: object) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()
        return row is not None

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
