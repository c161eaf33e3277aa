"""score@k,n: the expected best of k samples drawn from n without replacement.

score@k,n (NoFunEval, after MGCoder): with the n values sorted in decreasing order
``v_1 >= ... >= v_n``, ``sum_i v_i * C(n-i, k-1) / C(n, k)`` — the i-th best value is the
maximum of exactly ``C(n-i, k-1)`` of the ``C(n, k)`` subsets. For 0/1 values it is pass@k,n,
whose one implementation is :func:`beyondpass.analysis.passk.pass_at_k`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def score_at_k(values: Sequence[float], k: int) -> float:
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError(f"score@k needs 1 <= k <= n, got k={k}, n={n}")
    ordered = sorted(values, reverse=True)
    total = sum(v * math.comb(n - i, k - 1) for i, v in enumerate(ordered, 1))
    return total / math.comb(n, k)
