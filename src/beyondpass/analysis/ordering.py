"""Stable orders for names in tables: the study's own order first, digits sorted as numbers."""

from __future__ import annotations

import re
from collections.abc import Iterable


def natural_key(text: str) -> list[tuple[int, int | str]]:
    """Sort key putting 'HumanEval/2' before 'HumanEval/10'."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text)]


def ordered_names(preferred: Iterable[str], seen: Iterable[str]) -> list[str]:
    """The names in ``seen``: as ``preferred`` lists them (the study's order), then any
    others alphabetically."""
    seen_set = set(seen)
    preferred = list(preferred)
    return [n for n in preferred if n in seen_set] + sorted(seen_set - set(preferred))


__all__ = ["natural_key", "ordered_names"]
