"""ObfusEval project mode's reach on real projects: which covered functions it can judge.

    python benchmarks/bench_obfuseval_project_reach.py --sdists DIR [--judge] [--out F.json]

``DIR`` holds the sdists of the five projects below (``pip download --no-binary :all:
--no-deps`` of the pins in ``PROJECTS``): functional style with callbacks and generators
(toolz, more-itertools), classes (cachetools, semver) and string data (inflection). Each
is prepared as ``obfuseval project tasks`` does it — coverage, the seeded selection of at
most ``--max-functions`` covered functions per project, three-plus baseline runs, the
crossing check with the original function behind the process boundary — and counted:
covered candidates, tasks kept, tasks dropped by reason, covering tests kept and left out
(with the reason of each). With ``--judge`` every kept task's own function is spliced back
and judged (it must pass: CPR = TPR = 100 %), timed per task. Run it once with the tree to
measure and once with an older tree on ``PYTHONPATH`` for before/after; the figures are in
docs/obfuseval.md and docs/performance.md.
"""

from __future__ import annotations

import json
import re
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from _common import argument_parser

#: name -> (pin, import roots, the module files whose functions are candidates)
PROJECTS = {
    "inflection": ("0.5.1", ["."], ["inflection/__init__.py"]),
    "cachetools": ("5.5.0", ["src"], ["src/cachetools/*.py"]),
    "toolz": ("0.12.1", ["."], ["toolz/*.py"]),
    "more-itertools": ("10.5.0", ["."], ["more_itertools/*.py"]),
    "semver": ("3.0.2", ["src"], ["src/semver/*.py"]),
}


def _reason(text: str) -> str:
    """A drop or a left-out test by the exception that caused it."""
    inner = text.split("(", 1)[1] if text.startswith("no covering test") else text
    found = re.match(r"\s*([A-Za-z_][\w.]*)", inner)
    return found.group(1) if found else inner[:40]


def measure(name: str, sdist: Path, scratch: Path, max_functions: int, judge: bool) -> dict:
    from beyondpass.execution import Sandboxes
    from beyondpass.methods.obfuseval.project.runner import evaluate, prepare
    from beyondpass.methods.obfuseval.project.spec import load_project
    from beyondpass.methods.obfuseval.project.tasks import reference_answer

    _, roots, paths = PROJECTS[name]
    with tarfile.open(sdist) as archive:
        archive.extractall(scratch / "unpacked", filter="data")
    checkout = next((scratch / "unpacked").iterdir())
    description = scratch / f"{name}.toml"
    description.write_text(
        f'name = "{name}"\n[source]\ncheckout = "{checkout}"\n'
        f"[build]\npythonpath = {json.dumps(roots)}\n[test]\ntimeout_s = 120\n"
        f"[select]\npaths = {json.dumps(paths)}\nmax_functions = {max_functions}\n"
    )
    spec = load_project(description)
    started = time.perf_counter()
    prepared = prepare(spec, scratch / "prepare", Sandboxes(announce=False))
    prepare_s = time.perf_counter() - started
    kept_tests = sum(len(t.tests) for t in prepared.tasks)
    left_out = len(prepared.not_crossing)
    flaky_dropped = sum(1 for d in prepared.dropped if "flaky" in d["reason"])
    out = {
        "pin": f"{name}=={PROJECTS[name][0]}",
        "candidates": len(prepared.tasks) + len(prepared.dropped),
        "kept": len(prepared.tasks),
        "dropped": len(prepared.dropped),
        "dropped_not_flaky": len(prepared.dropped) - flaky_dropped,
        "dropped_by_reason": dict(Counter(_reason(d["reason"]) for d in prepared.dropped)),
        "covering_tests": kept_tests + left_out,
        "covering_tests_kept": kept_tests,
        "left_out_by_reason": dict(Counter(_reason(r["reason"]) for r in prepared.not_crossing)),
        "left_out": prepared.not_crossing,
        "flaky": len(prepared.flaky),
        "prepare_s": round(prepare_s, 1),
        "tasks": {t.task_id: len(t.tests) for t in prepared.tasks},
        "dropped_tasks": prepared.dropped,
    }
    if judge:
        spec = replace(prepared.spec, repeats=5)
        prepared = replace(prepared, spec=spec)
        passed, seconds, failed = 0, {}, {}
        for task in prepared.tasks:
            started = time.perf_counter()
            result = evaluate(prepared, task, reference_answer(task), scratch / "work")
            seconds[task.task_id] = round(time.perf_counter() - started, 2)
            if result.passed and result.compiled:
                passed += 1
            else:
                failed[task.task_id] = {
                    "category": result.category,
                    "detail": result.detail[:300],
                    "failing_tests": result.failing_tests,
                }
        out["references_passed"] = passed
        out["references_failed"] = failed
        out["seconds_by_task"] = seconds  # to compare the tasks judged before and after
        out["seconds_per_judged_task"] = (
            round(sum(seconds.values()) / len(seconds), 2) if seconds else None
        )
    return out


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--sdists", type=Path, required=True)
    parser.add_argument("--projects", nargs="*", default=list(PROJECTS))
    parser.add_argument("--max-functions", type=int, default=10)
    parser.add_argument("--judge", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = {}
    for name in args.projects:
        pin = PROJECTS[name][0]
        sdist = next(args.sdists.glob(f"{name.replace('-', '[-_]')}-{pin}.tar.gz"), None)
        if sdist is None:
            raise SystemExit(f"{args.sdists}: no sdist of {name}=={pin}")
        with tempfile.TemporaryDirectory(prefix=f"reach-{name}-") as scratch:
            results[name] = measure(name, sdist, Path(scratch), args.max_functions, args.judge)
        r = results[name]
        print(
            f"{name}: {r['kept']}/{r['candidates']} kept, dropped {r['dropped_by_reason']}, "
            f"tests {r['covering_tests_kept']}/{r['covering_tests']} kept, left out "
            f"{r['left_out_by_reason']}, prepare {r['prepare_s']} s"
            + (
                f", references {r['references_passed']}/{r['kept']} pass, "
                f"{r['seconds_per_judged_task']} s per judged task"
                if args.judge
                else ""
            ),
            flush=True,
        )
        if args.out:  # after every project: a long run stopped keeps what it measured
            args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
