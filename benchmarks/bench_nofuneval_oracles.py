"""NoFunEval static-oracle speed: the open analysers on every security row, per 1000 edits.

Every row of ``security.jsonl`` judged with its ``target_code`` and its ``source_code`` as
the edit (82 edits, 41 sources) in one batch, ``--repeat`` times; reports the best time,
per 1000 edits, and the time of each analyser call (bandit, cppcheck, gcc) in the best run.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict

from _common import argument_parser, machine_cpu_s

from beyondpass.jsonl import read_objects
from beyondpass.methods.nofuneval.oracles import analysers
from beyondpass.methods.nofuneval.oracles.check import OracleItem, judge


def _timed(name: str, fn, spent: dict[str, float]):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start

    return wrapper


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = os.path.join(args.data_dir, "nofuneval", "security.jsonl")
    rows = [row for _, row in read_objects(path, "{}", "NoFunEval's security subset")]
    items = [
        OracleItem(r["pl"], r["codeql_check"], r["source_code"], r[f])
        for f in ("target_code", "source_code")
        for r in rows
    ]
    best, best_spent = float("inf"), {}
    originals = {n: getattr(analysers, n) for n in ("bandit", "cppcheck", "compiles")}
    cpu0 = machine_cpu_s()
    wall0 = time.perf_counter()
    for _ in range(args.repeat):
        spent: dict[str, float] = defaultdict(float)
        for name, fn in originals.items():
            setattr(analysers, name, _timed(name, fn, spent))
        start = time.perf_counter()
        verdicts = judge(items, use_codeql=False)
        took = time.perf_counter() - start
        if took < best:
            best, best_spent = took, dict(spent)
    for name, fn in originals.items():
        setattr(analysers, name, fn)
    load = (machine_cpu_s() - cpu0) / (time.perf_counter() - wall0)
    judged = sum(v.status != "no_oracle" for v in verdicts)
    print(
        f"oracle: {len(items)} edits ({judged} with an oracle) in {best:.2f} s "
        f"({1000 * best / len(items):.1f} s per 1000 edits), best of {args.repeat}; "
        + ", ".join(f"{k} {v:.2f} s" for k, v in sorted(best_spent.items()))
        + f"; machine busy {load:.1f} cores"
    )


if __name__ == "__main__":
    main()
