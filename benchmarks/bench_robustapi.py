"""Time the RobustAPI checker on the 1208 recorded gpt-4-0613 answers, in both semantics.

Usage::

    python benchmarks/bench_robustapi.py [--data-dir ../shared/data] [--repeat 5] [--cli]

In-process: loads the rules once, then checks every answer (answer reading, tree-sitter
parsing, call-site facts, rule matching) and reports the median wall time of ``--repeat``
passes per semantics, and of the correct semantics on the same answers each preceded by
its echoed prompt (a completion model's form). ``--cli`` also times ``beyondpass robustapi
check`` end to end as a subprocess (interpreter start-up, dataset loading, writing
verdicts.jsonl). Prints one JSON line; record results in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, argument_parser

RECORDED = Path("recorded") / "robustapi-gpt-4-0613-zero_shot.jsonl"


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="also time the CLI end to end")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO / "src"))
    from beyondpass.jsonl import read_objects
    from beyondpass.methods.robustapi.benchmark import load_robustapi
    from beyondpass.methods.robustapi.checker import ApiMisuseChecker, load_ruleset
    from beyondpass.methods.robustapi.extraction.java_syntax import tool_versions
    from beyondpass.methods.robustapi.prompts import prompt_texts

    data_dir = Path(args.data_dir)
    answers = [row for _, row in read_objects(data_dir / RECORDED, '{"id": ..., "response": ...}')]
    bench = load_robustapi(data_dir)
    for a in answers:  # the question's prompt texts, for the echo check (as the CLI does)
        a["prompts"] = prompt_texts(bench.tasks[str(a["id"])])
    # the same answers as a completion model gives them: the zero-shot prompt repeated first
    echoed = [{**a, "response": a["prompts"][0] + a["response"]} for a in answers]
    result: dict[str, object] = {
        "answers": len(answers),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        **tool_versions(),
    }
    runs = [("correct", answers), ("original", answers), ("correct", echoed)]
    for semantics, batch in runs:
        checker = ApiMisuseChecker(load_ruleset(data_dir=data_dir, semantics=semantics), semantics)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            verdicts = [checker.check(a["response"], a["api"], a["prompts"]).verdict for a in batch]
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        result[semantics + ("_echoed" if batch is echoed else "")] = {
            "median_s": round(median, 3),
            "min_s": round(min(times), 3),
            "answers_per_s": round(len(answers) / median, 1),
            "violations": verdicts.count("violation"),
        }
    if args.cli:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "beyondpass",
                    "robustapi",
                    "check",
                    "--answers",
                    str(data_dir / RECORDED),
                    "--out",
                    tmp,
                    "--json",
                    "--data-dir",
                    str(data_dir),
                ],
                check=True,
                capture_output=True,
                env={**os.environ, "PYTHONPATH": str(REPO / "src")},
            )
            result["cli_s"] = round(time.perf_counter() - start, 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
