"""ObfusEval's headline metric: robust pass@1 on every obfuscated benchmark of a run.

A task's value is the share of its sample indexes that pass on every variant (ReCode's
worst case, :func:`.analysis.robust_pass_at_k` with k = 1); the mean over tasks is the
robust pass@1 of the report section, and ``compare`` pairs two runs on the original task.
Tasks whose variants hold different numbers of samples are left out, as the report does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from beyondpass.analysis.headline import Observation
from beyondpass.methods.obfuseval.report import comparable, is_obfuscated, outcome_groups
from beyondpass.store.run_store import Row


def robust_pass(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    for (bench, model, condition), tasks in outcome_groups(rows).items():
        if not is_obfuscated(meta, bench):
            continue
        for task, variants in comparable(tasks).items():
            n = len(next(iter(variants.values())))
            correct = sum(all(s[i] for s in variants.values()) for i in range(n))
            yield Observation(bench, model, condition, task, correct / n)
