"""NoFunEval scoring speed: DiffBLEU per 1000 rows, sandboxed correctness per problem.

DiffBLEU: gpt-4's four published latency files (188 answers), NoFunEval's reading, scored
``--repeat`` times; reported per 1000 answers. Runtime efficiency: every row's target_code
on its CodeNet cases through the sandboxed executor (2 workers); reported per problem.
"""

from __future__ import annotations

import json
import os
import time

from _common import argument_parser

from beyondpass.execution import create_executor
from beyondpass.methods.nofuneval.benchmark import load_subset
from beyondpass.methods.nofuneval.diffbleu import DiffBleu
from beyondpass.methods.nofuneval.extraction import compat_extract, published_answer
from beyondpass.methods.nofuneval.runtime import check_programs

KINDS = ("base_prompt", "one_shot", "chain_of_thought", "coding_concepts")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = os.path.join(args.data_dir, "nofuneval", "generations", "latency", "gpt-4")
    answers = []
    for kind in KINDS:
        with open(os.path.join(root, kind, "generated_outputs.jsonl"), encoding="utf-8") as fh:
            answers += [(kind, json.loads(line)) for line in fh if line.strip()]
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        with DiffBleu() as scorer:
            for kind, g in answers:
                code = compat_extract(published_answer(g["generated_answers"]), kind, g["pl"])
                scorer.score(g["source_code"], g["target_code"], code.code, g["pl"])
        best = min(best, time.perf_counter() - start)
    print(
        f"DiffBLEU: {len(answers)} answers in {best:.2f} s "
        f"({1000 * best / len(answers):.1f} s per 1000), best of {args.repeat}"
    )

    bench = load_subset("runtime_efficiency", args.data_dir)
    tasks = list(bench.tasks.values())
    executor = create_executor("sandbox", workers=2)
    try:
        start = time.perf_counter()
        results = check_programs([(t, t.metadata["target_code"]) for t in tasks], executor)
        wall = time.perf_counter() - start
    finally:
        executor.close()
    print(
        f"runtime correctness: {len(tasks)} problems, {sum(r.correct for r in results)} "
        f"correct, {wall:.1f} s ({wall / len(tasks):.2f} s per problem, 2 workers)"
    )


if __name__ == "__main__":
    main()
