"""The review's Bradley-Terry ranking: choix's ILSR on win counts against its Newton optimiser.

Usage::

    python benchmarks/bench_review_ranking.py [--choices 48] [--resamples 1000] [--seed 0]

Simulates first choices among three models (seeded; strengths 4 : 2 : 1, one item per
choice) and times, one after the other in this process, the ranking as ``review results``
computes it (``review.ranking.bradley_terry``: the point estimate and ``--resamples``
bootstrap fits by ``choix.ilsr_pairwise_dense``) and the same ranking with every fit by
``choix.opt_pairwise`` (the fit before, over every choice in Python). Prints both times,
their ratio and the largest relative difference between the two estimates' strengths.
Record the figures in docs/performance.md.
"""

from __future__ import annotations

import random
import time

from _common import argument_parser


def simulated_choices(n: int, seed: int) -> list[tuple[str, str, int]]:
    rng = random.Random(seed)
    true = {"x": 4.0, "y": 2.0, "z": 1.0}
    out = []
    for item in range(n):
        a, b = rng.sample(sorted(true), 2)
        win = rng.random() < true[a] / (true[a] + true[b])
        out.append((a, b, item) if win else (b, a, item))
    return out


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--choices", type=int, default=48)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import choix
    import numpy as np

    from beyondpass.review import ranking

    choices = simulated_choices(args.choices, args.seed)
    ranking.bradley_terry(choices, resamples=0)  # imports (scipy's graph code) untimed
    start = time.perf_counter()
    ilsr = ranking.bradley_terry(choices, seed=args.seed, resamples=args.resamples)
    ilsr_s = time.perf_counter() - start

    def newton(n: int, data: list[tuple[int, int]]) -> list[float] | None:
        if not ranking._strongly_connected(n, data):
            return None
        params = choix.opt_pairwise(n, list(data))
        return [float(v) for v in np.exp(params - params.mean())]

    kept = ranking.strengths
    ranking.strengths = newton  # the fit before, in the same bootstrap
    try:
        start = time.perf_counter()
        before = ranking.bradley_terry(choices, seed=args.seed, resamples=args.resamples)
        newton_s = time.perf_counter() - start
    finally:
        ranking.strengths = kept
    differ = max(
        abs(a["strength"] / b["strength"] - 1)
        for a, b in zip(ilsr["models"], before["models"], strict=True)
    )
    print(f"{args.choices} choices, {args.resamples} resamples")
    print(f"ILSR on win counts: {ilsr_s:.2f} s; opt_pairwise: {newton_s:.2f} s")
    print(f"ratio: {newton_s / ilsr_s:.1f}x; largest relative difference: {differ:.1e}")


if __name__ == "__main__":
    main()
