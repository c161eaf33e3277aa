"""Time symbol obfuscation of HumanEval and sanitized MBPP: renaming, then verification.

Usage::

    python benchmarks/bench_obfuseval.py [--data-dir ../shared/data] [--variants 1]

Renaming (libcst parse, scope analysis, rename of reference, prompt and tests) is timed
in-process for every task; verification runs every variant's reference against its tests in
the sandbox executor. Prints one JSON line; record results in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import time

from _common import argument_parser

from beyondpass.benchmarks import load_benchmark
from beyondpass.methods.obfuseval.transform import ObfuscateOptions, obfuscate_benchmark


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--variants", type=int, default=1)
    args = parser.parse_args()
    out: dict[str, object] = {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load": os.getloadavg()[0],
        "variants": args.variants,
    }
    for name in ("humaneval", "mbpp"):
        bench = load_benchmark(name, args.data_dir)
        start = time.perf_counter()
        obfuscate_benchmark(bench, ObfuscateOptions(variants=args.variants, verify=False), 0)
        renamed = time.perf_counter() - start
        start = time.perf_counter()
        _, report = obfuscate_benchmark(bench, ObfuscateOptions(variants=args.variants), 0)
        total = time.perf_counter() - start
        out[name] = {
            "tasks": len(bench),
            "verified": len(report.verified),
            "rename_s": round(renamed, 2),
            "rename_and_verify_s": round(total, 2),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
