"""Persistent runs: one SQLite database (WAL) per run directory."""

from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key

__all__ = ["ResultRecord", "RunStore", "SampleRecord", "sample_key"]
