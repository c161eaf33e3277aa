"""Aggregate a run's rows into one summary per (benchmark, model, condition).

Every figure is computed over tasks (each task weighs the same, whatever its sample count),
with a seeded percentile-bootstrap confidence interval over tasks for pass@1, so a reader
can see how much of a difference is noise.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from beyondpass.analysis.passk import mean_pass_at_k
from beyondpass.analysis.stats import bootstrap_ci
from beyondpass.evaluators.base import counts_for_pass
from beyondpass.models.base import cut_off
from beyondpass.store.run_store import Row

KS = (1, 5, 10, 100)


@dataclass
class GroupSummary:
    benchmark: str
    model: str
    condition: str
    n_tasks: int
    n_samples: int
    n_evaluated: int
    pass_at: dict[int, float]
    pass1_ci: tuple[float, float]
    status_counts: dict[str, int]
    model_versions: list[str] = field(default_factory=list)
    #: samples that did not pass and whose answer stopped at the token budget
    #: (``finish_reason`` ``length``): cut off, not necessarily wrong
    truncated: int = 0

    @property
    def label(self) -> str:
        return f"{self.model} / {self.condition}"


def summarize(rows: Iterable[Row], *, seed: int = 0) -> list[GroupSummary]:
    """One summary per (benchmark, model, condition), over evaluated samples only; pass@k
    and ``n_evaluated`` count only samples with a pass/fail verdict (a ``scored`` edit or a
    misuse check is in the status counts, not in pass@k)."""
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for row in rows:
        s = row.sample
        groups[(s.benchmark, s.model, s.condition)].append(row)
    out = []
    for (benchmark, model, condition), members in sorted(groups.items()):
        per_task: dict[str, list[bool]] = defaultdict(list)
        statuses: Counter[str] = Counter()
        versions = sorted(
            {
                str(m.sample.generation.get("model_version") or "")
                for m in members
                if isinstance(m.sample.generation, dict)
            }
            - {""}
        )
        tasks: set[str] = set()
        truncated = 0
        for m in members:
            if m.result is None:
                statuses["not evaluated"] += 1
                continue
            tasks.add(m.sample.task_id)
            statuses[m.result.status] += 1
            truncated += not m.result.passed and cut_off(m.sample.generation)
            if counts_for_pass(m.result):
                per_task[m.sample.task_id].append(m.result.passed)
        counts = [(len(v), sum(v)) for v in per_task.values()]
        min_n = min((n for n, _ in counts), default=0)
        pass_at = {k: mean_pass_at_k(counts, k) for k in KS if counts and k <= min_n}
        per_task_rate = [c / n for n, c in counts]
        out.append(
            GroupSummary(
                benchmark=benchmark,
                model=model,
                condition=condition,
                n_tasks=len(tasks),
                n_samples=len(members),
                n_evaluated=sum(len(v) for v in per_task.values()),
                pass_at=pass_at,
                pass1_ci=bootstrap_ci(per_task_rate, seed=seed),
                status_counts=dict(statuses.most_common()),
                model_versions=versions,
                truncated=truncated,
            )
        )
    return out
