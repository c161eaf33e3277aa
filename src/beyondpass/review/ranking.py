"""A Bradley-Terry ranking of the reviewed models from the reviewers' "which is better" choices.

With more than two models a study reviews several pairs, and per-pair tables no longer say
which model is best overall. The Bradley-Terry model gives each model a strength ``p`` with
P(i preferred to j) = p_i / (p_i + p_j), fitted by maximum likelihood with ``choix``'s
``ilsr_pairwise_dense`` (iterative Luce spectral ranking, Maystre & Grossglauser 2015,
without regularisation): its fixed point is the maximum-likelihood estimate, and it works
on the matrix of win counts, so a fit costs the same for 48 choices or 48,000. That matters
for the bootstrap below, a thousand fits (choix's ``opt_pairwise`` walks every choice in
Python for every Newton step: about three times as long for 48 choices, and growing with
them; ``benchmarks/bench_review_ranking.py``, docs/performance.md). Strengths are
reported normalised to a geometric mean of 1, as in the usual worked examples.

The maximum-likelihood estimate exists only when the "beat" graph is strongly connected
(every model beat, and lost to, some chain of others); otherwise a model's strength runs to
zero or infinity, and the ranking says so instead of printing a number. Confidence intervals
are percentile bootstrap intervals that resample *items* (all reviewers' choices on an item
stay together, since they judge the same two solutions); resamples whose graph is not
strongly connected are skipped and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: (winner, loser, item id): one reviewer's first choice on one item
Choice = tuple[str, str, int]

#: ILSR stops when no parameter moves by more than this (choix's default is 1e-8)
TOLERANCE = 1e-10


def _strongly_connected(n: int, data: Sequence[tuple[int, int]]) -> bool:
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    if n < 2:
        return False
    rows = [w for w, _ in data]
    cols = [loser for _, loser in data]
    graph = csr_matrix((np.ones(len(data)), (rows, cols)), shape=(n, n))
    count, _ = connected_components(graph, directed=True, connection="strong")
    return bool(count == 1)


def strengths(n: int, data: Sequence[tuple[int, int]]) -> list[float] | None:
    """Bradley-Terry strengths of ``n`` items from (winner, loser) index pairs, normalised to
    geometric mean 1; None when the maximum-likelihood estimate does not exist."""
    import choix
    import numpy as np

    if not _strongly_connected(n, data):
        return None
    wins = np.zeros((n, n))
    for winner, loser in data:
        wins[winner, loser] += 1
    try:
        params = choix.ilsr_pairwise_dense(wins, alpha=0.0, tol=TOLERANCE)
    except RuntimeError:  # no convergence in choix's 100 iterations (none seen on chains of
        params = choix.opt_pairwise(n, list(data))  # 100 models): its Newton optimiser
    params = params - params.mean()
    return [float(v) for v in np.exp(params)]


def bradley_terry(
    choices: Sequence[Choice], seed: int = 0, resamples: int = 1000
) -> dict[str, Any]:
    """Strength, 95% bootstrap CI, rank, wins and comparisons per model."""
    import numpy as np

    models = sorted({c[0] for c in choices} | {c[1] for c in choices})
    index = {m: i for i, m in enumerate(models)}
    data = [(index[w], index[lo]) for w, lo, _ in choices]
    out: dict[str, Any] = {"models": [], "comparisons": len(data), "resamples": resamples}
    point = strengths(len(models), data)
    if point is None:
        out["estimable"] = False
        out["reason"] = (
            "not every model both won and lost against the others (the comparison graph is "
            "not strongly connected), so Bradley-Terry strengths are not finite"
        )
        return out
    items = sorted({c[2] for c in choices})
    by_item: dict[int, list[tuple[int, int]]] = {i: [] for i in items}
    for (w, lo), (_, _, item) in zip(data, choices, strict=True):
        by_item[item].append((w, lo))
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(resamples):
        drawn = rng.integers(0, len(items), len(items))
        sample = [pair for k in drawn for pair in by_item[items[k]]]
        fitted = strengths(len(models), sample)
        if fitted is not None:
            boots.append(fitted)
    out["estimable"] = True
    out["resamples_used"] = len(boots)
    order = sorted(range(len(models)), key=lambda i: -point[i])
    for rank, i in enumerate(order, start=1):
        column = [b[i] for b in boots]  # empty with no resample that could be fitted
        ci = [float(np.percentile(column, q)) for q in (2.5, 97.5)] if column else None
        out["models"].append(
            {
                "model": models[i],
                "rank": rank,
                "strength": point[i],
                "ci": ci,
                "wins": sum(w == i for w, _ in data),
                "comparisons": sum(i in pair for pair in data),
            }
        )
    return out
