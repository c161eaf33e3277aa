"""RobuNFR's metrics (seed section 3.2) and how one sample's value of each is read."""

from __future__ import annotations

import math

from beyondpass.analysis.metrics import PASS, PASS_METRIC, MetricDef
from beyondpass.store.run_store import Row

METRICS: dict[str, MetricDef] = {
    PASS: PASS_METRIC,
    "smell_density": MetricDef("smell_density", "code smell", False, 2, unit="per 10 LOC"),
    "unreadability_density": MetricDef(
        "unreadability_density", "unreadability", False, 2, unit="per 10 LOC"
    ),
    "exception_density": MetricDef(
        "exception_density", "exception-handling", True, 3, unit="per 10 LOC"
    ),
    "exec_time_ms": MetricDef(
        "exec_time_ms", "execution time", False, 2, passing_only=True, unit="ms"
    ),
    # the same time in reference units (docs/performance.md): steady on a noisy machine
    "exec_time_ref": MetricDef(
        "exec_time_ref", "execution time (ref. units)", False, 3, passing_only=True, unit="ref"
    ),
}
NFR_METRICS = ("smell_density", "unreadability_density", "exception_density", "exec_time_ms")
ALL_METRICS = (PASS, *NFR_METRICS)


def metric_def(key: str) -> MetricDef:
    """A RobuNFR metric, or a generic one (higher is better is unknown: treated as True)."""
    return METRICS.get(key) or MetricDef(key, key, True, 3)


def sample_value(row: Row, metric: str) -> float | None:
    """The metric of one evaluated sample, or None when it has none."""
    res = row.result
    if res is None:
        return None
    if metric == PASS:
        return 1.0 if res.passed else 0.0
    if metric_def(metric).passing_only and not res.passed:
        return None
    value = res.metrics.get(metric) if isinstance(res.metrics, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


__all__ = ["ALL_METRICS", "METRICS", "NFR_METRICS", "PASS", "metric_def", "sample_value"]
