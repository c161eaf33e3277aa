"""Metric definitions: how a metric is read, shown and judged (its better direction).

Analysis core knows only pass@1; every method brings the definitions of its own metrics
(RobuNFR: the NFR densities and execution time), so ``compare`` and its regression gate
judge any metric by its definition, never by its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

PASS = "pass@1"


@dataclass(frozen=True)
class MetricDef:
    """How a metric is read, shown and judged."""

    key: str
    label: str  # column label, as in the papers' tables
    higher_is_better: bool
    decimals: int
    scale: float = 1.0  # display scale (pass@1 in %)
    passing_only: bool = False  # only passing samples carry it
    unit: str = ""


PASS_METRIC = MetricDef(PASS, "Pass@1", True, 2, scale=100.0, unit="%")

#: how each unit of a headline metric is shown: display scale and suffix
UNITS: dict[str, tuple[float, str]] = {
    "share": (100.0, "%"),
    "points": (1.0, ""),
    "ratio": (1.0, "x"),
    "density": (1.0, ""),
    "ms": (1.0, " ms"),
}


def headline_metric_def(spec: Any) -> MetricDef:
    """How analyses present a headline metric (``spec``: a ``HeadlineSpec``)."""
    scale, suffix = UNITS[spec.unit]
    return MetricDef(
        spec.metric,
        spec.label,
        spec.direction == "higher",
        spec.decimals,
        scale=scale,
        unit=suffix.strip(),
    )


@cache
def metric_definitions() -> dict[str, MetricDef]:
    """Every known metric: pass@1, the metrics every registered method defines
    (``Method.analysis_metrics``), then its headline metrics (``Method.headlines``)."""
    from beyondpass import registry

    defs = {PASS: PASS_METRIC}  # pass@1 is core's; a method defines each of its own once
    for ref, m in registry.specs("analysis_metrics"):
        for d in registry.resolve(ref, m, needs_extra=False).values():
            defs.setdefault(d.key, d)
    for spec, _ in registry.specs("headlines"):
        defs.setdefault(spec.metric, headline_metric_def(spec))
    return defs


def metric_def(key: str) -> MetricDef:
    """A known metric, or a generic one (higher is better is unknown: treated as True)."""
    return metric_definitions().get(key) or MetricDef(key, key, True, 3)


def is_known(key: str) -> bool:
    """Whether a metric's better direction is defined (not guessed)."""
    return key in metric_definitions()


__all__ = [
    "PASS",
    "PASS_METRIC",
    "UNITS",
    "MetricDef",
    "headline_metric_def",
    "is_known",
    "metric_def",
    "metric_definitions",
]
