"""score@k,n: the expected best of k samples drawn from n without replacement.

score@k,n (NoFunEval, after MGCoder): with the n values sorted in decreasing order
``v_1 >= ... >= v_n``, ``sum_i v_i * C(n-i, k-1) / C(n, k)`` — the i-th best value is the
maximum of exactly ``C(n-i, k-1)`` of the ``C(n, k)`` subsets. For 0/1 values it is pass@k,n,
whose one implementation is :func:`beyondpass.analysis.passk.pass_at_k`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any


def score_at_k(values: Sequence[float], k: int) -> float:
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError(f"score@k needs 1 <= k <= n, got k={k}, n={n}")
    ordered = sorted(values, reverse=True)
    total = sum(v * math.comb(n - i, k - 1) for i, v in enumerate(ordered, 1))
    return total / math.comb(n, k)


def score_at_ks(per_row: Mapping[Any, Sequence[float]]) -> dict[int, float]:
    """k -> the mean over rows of each row's score@k,n, for k = 1 (the plain mean) and, when
    every row has the same n > 1, k = n: the one averaging behind every score@k a NoFunEval
    summary reports (DiffBLEU, DiffBLEU x oracle, the runtime metrics). No rows: ``{}``."""
    if not per_row:
        return {}
    sizes = {len(v) for v in per_row.values()}
    n = sizes.pop() if len(sizes) == 1 else 1  # score@k needs the same n on every row
    return {
        k: mean(score_at_k(v, k) if k > 1 else mean(v) for v in per_row.values())
        for k in sorted({1, n})
    }
