"""The one reader of JSONL files: the ones users hand us (answers, samples, tasks), the
benchmark data and the project's own caches, with one clear error per bad line.

Lines are decoded one by one from bytes, so an encoding error names its own line, and every
error says which file, which line, what is wrong and what to do. :func:`read_bytes` gives a
file's bytes (or one such error for a missing or unreadable file), :func:`json_values` and
:func:`json_objects` read them line by line, and :func:`parse_all` reads a large file in one
parse, going line by line only to name a bad line.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError


def type_name(value: object) -> str:
    """How a JSON value's type reads in an error message."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def read_bytes(path: str | os.PathLike[str], what: str = "the file") -> bytes:
    """The bytes of the file at ``path``, decompressed when its name ends in ``.gz``.

    A missing file, a directory, an unreadable file or a damaged ``.gz`` is one
    :class:`DataError` naming the path as given; ``what`` says which file is wanted there
    ("the answers file").
    """
    name = os.fspath(path)
    try:
        data = Path(name).read_bytes()
    except FileNotFoundError:
        raise DataError(f"{name} does not exist — check the path of {what}") from None
    except IsADirectoryError:
        raise DataError(f"{name} is a directory — give the path of {what}") from None
    except OSError as exc:
        raise DataError(
            f"cannot read {name} ({exc.strerror or exc}) — check the path and its permissions"
        ) from None
    if name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(
                f"{name}: not a complete gzip file ({exc}) — replace it with a whole copy"
            ) from None
    return data


_BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark
_BLANK = object()


def _line_value(raw: bytes, example: str | None) -> tuple[Any, str | None]:
    """One line's JSON value (``_BLANK`` for a blank line), or what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}) — "
            "re-save the file as UTF-8"
        )
    if not text.strip():
        return _BLANK, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, (
            f"invalid JSON ({exc.msg}: column {exc.colno}) — the line may be truncated; fix "
            "or remove it"
        )
    except RecursionError:
        return None, "JSON nested too deeply to read — flatten or remove the line"
    if example is not None and not isinstance(value, dict):
        return None, (
            f"expected a JSON object, got {type_name(value)} — each line must be one object "
            f"like {example}"
        )
    return value, None


def json_values(
    name: str, data: bytes, *, example: str | None = None, skip_bad: bool = False
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``data``, read line by line.

    ``name`` is how messages refer to the file. With ``example`` (what one line should look
    like: ``'{"task_id": ..., "completion": ...}'``) every value must be a JSON object. The
    first bad line (not UTF-8, not JSON, not an object) raises a :class:`DataError` naming
    it; with ``skip_bad`` bad lines are passed over instead, for data a program we run can
    write into, or a file the project appends to whose last line may have been cut short.
    """
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number == 1:
            raw = raw.removeprefix(_BOM)
        value, problem = _line_value(raw, example)
        if problem is not None:
            if skip_bad:
                continue
            raise DataError(f"{name}:{number}: {problem}")
        if value is not _BLANK:
            yield number, value


def json_objects(name: str, data: bytes, example: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of ``data``, read line by line.

    ``name`` is how messages refer to the file; ``example`` shows what one line should look
    like (``'{"task_id": ..., "completion": ...}'``).
    """
    return json_values(name, data, example=example)


def read_objects(
    path: str | os.PathLike[str], example: str, what: str = "the file"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`json_objects` of the file at ``path`` (read by :func:`read_bytes`, so a
    missing or unreadable file raises here, before the first line)."""
    return json_objects(os.fspath(path), read_bytes(path, what), example)


def parse_all(name: str, data: bytes, *, example: str | None = None) -> Iterator[tuple[int, Any]]:
    """What :func:`json_values` gives, for a large file: all lines parsed in one go, here
    (a bad line raises before anything is yielded).

    The non-blank lines are joined into one JSON array and parsed at once, about twice as
    fast as line by line; when that fails, or gives other than one value (one object, with
    ``example``) per line, the file is read again line by line, to raise the error
    :func:`json_values` raises for its first bad line. A file whose every line holds one
    JSON value gives the same values both ways. Meant for files written that way (benchmark
    data, the project's own caches): broken lines that make up for each other (one holding
    two values, another half of one) could still join into one value per line.
    """
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return iter(list(json_values(name, data, example=example)))
    lines = text.split("\n")
    kept = list(filter(str.strip, lines))
    try:
        values = json.loads("[" + ",".join(kept) + "]")
    except (json.JSONDecodeError, RecursionError):
        return iter(list(json_values(name, data, example=example)))
    if len(values) != len(kept) or (
        example is not None and not all(isinstance(v, dict) for v in values)
    ):
        return iter(list(json_values(name, data, example=example)))
    if len(kept) == len(lines) or (len(kept) == len(lines) - 1 and not lines[-1].strip()):
        numbers: range | list[int] = range(1, len(kept) + 1)
    else:
        numbers = [n for n, line in enumerate(lines, start=1) if line.strip()]
    # pairs made as they are taken: no ten thousand tuples for the collector to walk
    return zip(numbers, values, strict=True)
