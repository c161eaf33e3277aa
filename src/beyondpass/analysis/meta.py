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


def recorded_evaluators(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The metadata each evaluator of the run recorded (``{"evaluator": name, ...}``)."""
    listed = meta.get("evaluators")
    return [as_dict(e) for e in listed] if isinstance(listed, list) else []


__all__ = ["as_dict", "recorded_evaluators", "study_seed"]
