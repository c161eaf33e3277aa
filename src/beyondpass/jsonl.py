"""Reading the JSONL files users hand us (answers, samples), one clear error per bad line.

Lines are decoded one by one from bytes, so an encoding error names its own line, and every
error says which file, which line, what is wrong and what to do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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


def json_objects(name: str, data: bytes, example: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of ``data``.

    ``name`` is how messages refer to the file; ``example`` shows what one line should look
    like (``'{"task_id": ..., "completion": ...}'``).
    """
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]  # a UTF-8 byte order mark
        where = f"{name}:{number}"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{where}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                f"{exc.start + 1}) — re-save the file as UTF-8"
            ) from None
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{where}: invalid JSON ({exc.msg}: column {exc.colno}) — the line may be "
                "truncated; fix or remove it"
            ) from None
        if not isinstance(row, dict):
            raise DataError(
                f"{where}: expected a JSON object, got {type_name(row)} — each line must be "
                f"one object like {example}"
            )
        yield number, row
