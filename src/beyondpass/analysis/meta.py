"""Tolerant readers of a run's recorded metadata (any value may be missing or malformed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one: meta written by older runs may lack it."""
    return value if isinstance(value, dict) else {}


def study_seed(meta: Mapping[str, Any]) -> int:
    """The study's seed (drives every bootstrap), 0 when the run recorded none."""
    seed = as_dict(meta.get("study")).get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


__all__ = ["as_dict", "study_seed"]
