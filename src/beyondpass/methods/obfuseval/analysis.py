"""How much of a score survives obfuscation: decrease ratio, robust pass@k, rank stability.

Inputs are plain outcomes (task -> variant -> per-sample pass/fail), so the functions serve
any run; a variant's task id is ``TASK#vK`` (or ``TASK`` for one variant) and its original
task id is in ``metadata["obfuscation"]["original_task_id"]``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from beyondpass.analysis.passk import pass_at_k

#: task -> variant -> pass/fail of each sample index
Outcomes = Mapping[str, Mapping[int, Sequence[bool]]]


def decrease_ratio(original: float, obfuscated: float) -> float | None:
    """``(original - obfuscated) / original`` (the seed's measure); None when original is 0."""
    if original == 0:
        return None
    return (original - obfuscated) / original


def robust_pass_at_k(outcomes: Outcomes, k: int) -> float:
    """ReCode's robust pass@k: sample ``i`` of a task counts as correct only when it passes on
    every variant (the worst case per task); then the unbiased pass@k over tasks."""
    if not outcomes:
        raise ValueError("no tasks to average")
    values = []
    for task, variants in outcomes.items():
        lengths = {len(s) for s in variants.values()}
        if len(lengths) != 1:
            raise ValueError(f"{task}: variants have different numbers of samples {lengths}")
        n = lengths.pop()
        correct = sum(all(s[i] for s in variants.values()) for i in range(n))
        values.append(pass_at_k(n, correct, k))
    return sum(values) / len(values)


def rank_stability(
    original: Mapping[str, Mapping[str, bool]],
    obfuscated: Mapping[str, Mapping[str, bool]],
    *,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, float | None]:
    """Kendall tau between the models' rankings by pass rate on original and obfuscated
    tasks (model -> task -> passed), with a percentile bootstrap CI over tasks."""
    models = sorted(original)
    if sorted(obfuscated) != models or len(models) < 2:
        raise ValueError("need the same two or more models on original and obfuscated tasks")
    tasks = sorted(set.intersection(*(set(original[m]) & set(obfuscated[m]) for m in models)))
    if not tasks:
        raise ValueError("no task was scored for every model on both sides")

    from scipy.stats import kendalltau  # a second's import: only when ranks are compared

    def tau(sample: Sequence[str]) -> float | None:
        a = [sum(original[m][t] for t in sample) for m in models]
        b = [sum(obfuscated[m][t] for t in sample) for m in models]
        value = kendalltau(a, b).statistic
        return None if value != value else float(value)  # NaN: a side with all ties

    rng = random.Random(seed)
    draws = [tau([rng.choice(tasks) for _ in tasks]) for _ in range(resamples)]
    finite = sorted(d for d in draws if d is not None)
    low = high = None
    if finite:
        low = finite[int((1 - level) / 2 * (len(finite) - 1))]
        high = finite[int((1 + level) / 2 * (len(finite) - 1))]
    return {"tau": tau(tasks), "ci_low": low, "ci_high": high, "n_tasks": float(len(tasks))}
