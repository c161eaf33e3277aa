"""Text helpers of the report: one-line meta values, clipping and Markdown escaping.

Everything from samples is hostile text: the Markdown filter escapes table syntax and HTML
(tables themselves render in :mod:`beyondpass.report.table`).
"""

from __future__ import annotations

import json
from typing import Any

from beyondpass.report.model import Clip
from beyondpass.report.table import md_cell


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def fmt(value: Any) -> str:
    """A meta value in one line: dicts as key=value pairs, lists comma-separated."""
    if value is None or value == "" or value == {} or value == []:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return ", ".join(
            f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
            for k, v in value.items()
        )
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    return str(value)


def clip(text: str, limit: int, *, tail: bool = False) -> Clip:
    if len(text) <= limit:
        return Clip(text)
    if tail:
        return Clip(text[-limit:], len(text) - limit, True)
    return Clip(text[:limit], len(text) - limit, False)


def md_escape(value: Any) -> str:
    """Make text safe for one Markdown table cell or line: no newlines, pipes or raw HTML."""
    return md_cell(as_text(value))


__all__ = ["as_text", "clip", "fmt", "md_escape"]
