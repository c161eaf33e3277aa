"""Persistent runs: one SQLite database (WAL) per run directory."""

from beyondpass.store.run_store import (
    EvaluationRecord,
    EvaluatorRecord,
    ResultRecord,
    RunStore,
    SampleRecord,
    sample_key,
)

__all__ = [
    "EvaluationRecord",
    "EvaluatorRecord",
    "ResultRecord",
    "RunStore",
    "SampleRecord",
    "sample_key",
]
