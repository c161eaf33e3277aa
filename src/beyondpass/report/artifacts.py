"""Files a report writes beside its Markdown and HTML: JSON that any reader can load."""

from __future__ import annotations

import json
import math
from typing import Any


def json_safe(value: Any) -> Any:
    """Non-finite floats become null: JSON has no NaN, and a reader must not see one."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def json_text(payload: Any) -> str:
    """``payload`` as strict JSON text (one space indent, UTF-8 kept, final newline)."""
    return json.dumps(json_safe(payload), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


__all__ = ["json_safe", "json_text"]
