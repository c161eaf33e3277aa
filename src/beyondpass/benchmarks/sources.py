"""Where benchmark data comes from.

Resolution order for each data file (first hit wins):

1. an explicit data directory: ``--data-dir`` or the ``BEYONDPASS_DATA`` environment variable
   (same layout as the canonical archives: ``humaneval/HumanEval.jsonl.gz`` ...);
2. the local cache (``BEYONDPASS_CACHE_DIR`` or ``~/.cache/beyondpass``) under ``data/``;
3. the canonical download URL, saved into the cache (skipped when ``BEYONDPASS_OFFLINE=1``).

Data is never bundled with the package: datasets have their own licences and versions, and
a run records the content hash of exactly the file it read.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from beyondpass.errors import DataError

DATA_ENV = "BEYONDPASS_DATA"
OFFLINE_ENV = "BEYONDPASS_OFFLINE"
#: off inside :func:`present_only`: what is not here is reported, never fetched
_DOWNLOADS = contextvars.ContextVar("beyondpass_downloads", default=True)


@dataclass(frozen=True)
class DataFile:
    """One file of a benchmark: its path inside a data directory and its canonical URL."""

    relpath: str
    url: str


def cache_root() -> Path:
    env = os.environ.get("BEYONDPASS_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "beyondpass"


def explicit_data_dir(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The user's data directory, checked to exist; ``None`` when none was given."""
    if data_dir is not None:
        origin, raw = "--data-dir", str(data_dir)
    elif os.environ.get(DATA_ENV):
        origin, raw = DATA_ENV, os.environ[DATA_ENV]
    else:
        return None
    path = Path(raw).expanduser()
    if not path.is_dir():
        raise DataError(
            f"data directory {path} (from {origin}) does not exist — "
            f"point {origin} at a folder holding the benchmark files, or unset it to download"
        )
    return path


@contextlib.contextmanager
def present_only() -> Iterator[None]:
    """Resolve only what is already here (listing what is available must not download)."""
    token = _DOWNLOADS.set(False)
    try:
        yield
    finally:
        _DOWNLOADS.reset(token)


def resolve(data_file: DataFile, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Find (or fetch) one data file, following the documented resolution order."""
    explicit = explicit_data_dir(data_dir)
    tried: list[str] = []
    if explicit is not None:
        candidate = explicit / data_file.relpath
        if candidate.is_file():
            return candidate
        tried.append(str(candidate))
    cached = cache_root() / "data" / data_file.relpath
    if cached.is_file():
        return cached
    tried.append(str(cached))
    if os.environ.get(OFFLINE_ENV, "") not in ("", "0"):
        raise DataError(
            f"{data_file.relpath} not found (looked in {', '.join(tried)}) and downloads are "
            f"off ({OFFLINE_ENV} is set) — pass --data-dir or set {DATA_ENV}"
        )
    if not _DOWNLOADS.get():
        raise DataError(
            f"{data_file.relpath} not found (looked in {', '.join(tried)}) — pass --data-dir "
            f"or set {DATA_ENV}; a command that reads it downloads it"
        )
    return download(data_file, cached)


def download(data_file: DataFile, target: Path) -> Path:
    """Fetch a data file atomically into the cache (a partial download never lands)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"downloading {data_file.url} -> {target}", file=sys.stderr)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".download-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(data_file.url, timeout=60) as resp:
            while chunk := resp.read(1 << 16):
                out.write(chunk)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise DataError(
            f"could not download {data_file.url} ({exc}) — download it by hand and pass "
            f"--data-dir (expected at DIR/{data_file.relpath})"
        ) from exc
    return target


def file_digest(*paths: Path) -> str:
    """Short content hash identifying the exact data a benchmark was built from."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
