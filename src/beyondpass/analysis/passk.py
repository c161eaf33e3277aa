"""The unbiased pass@k estimator of Chen et al. (2021).

For a task with ``n`` samples of which ``c`` pass, pass@k = 1 - C(n-c, k) / C(n, k): the
probability that at least one of k samples drawn without replacement passes. Computed as a
running product so large n does not overflow.
"""

from __future__ import annotations

from collections.abc import Iterable


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if k < 1 or k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples per task, got {n}")
    if n - c < k:
        return 1.0
    prob_all_fail = 1.0
    for i in range(n - c + 1, n + 1):
        prob_all_fail *= 1.0 - k / i
    return 1.0 - prob_all_fail


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """Mean pass@k over tasks given ``(n, c)`` per task."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    if not values:
        raise ValueError("no tasks to average")
    return sum(values) / len(values)
