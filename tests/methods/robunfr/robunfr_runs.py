"""Write synthetic RobuNFR runs into a real run store, for analysis and compare tests.

The analysis reads only the store, so a run whose verdicts and metrics the test *chose* is
the honest way to know every expected number: the test computes them from the same values
it wrote, with its own code. The meta mirrors what ``StudyRunner`` records (conditions with
workflow, metadata, repeats and samples per task), built from the real RobuNFR plan.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.methods.robunfr.prompts import load_templates, robunfr_plan
from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key
from beyondpass.study.config import condition_records


@dataclass
class Sample:
    """What the test decided about one sample."""

    status: str
    metrics: dict[str, float]
    error_type: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


#: (benchmark, model, condition, task, sample_index) -> Sample
Values = dict[tuple[str, str, str, str, int], Sample]


def write_run(
    run_dir: Path,
    *,
    benchmarks: Sequence[str],
    models: Sequence[str],
    tasks: Sequence[str],
    decide: Callable[[str, str, str, str, int], Sample],
    nfrs: Sequence[str] = ("design", "reliability"),
    workflows: Sequence[str] = ("integrated", "enhanced"),
    variants: Sequence[int] = (1, 2, 3),
    function_only_repeats: int = 3,
    seed: int = 0,
    report: dict[str, Any] | None = None,
) -> Values:
    plan = robunfr_plan(
        load_templates(),
        nfrs=list(nfrs),
        workflows=list(workflows),
        variants=list(variants),
        function_only_repeats=function_only_repeats,
    )
    values: Values = {}
    with RunStore(run_dir) as store:
        store.set_meta("kind", "study")
        store.set_meta(
            "study",
            {
                "name": run_dir.name,
                "seed": seed,
                "config_hash": "synthetic",
                "config": {"report": report or {}},
            },
        )
        store.set_meta("benchmarks", {b: {"version": f"{b}-v1"} for b in benchmarks})
        store.set_meta("models", {m: {"spec": f"synthetic:{m}"} for m in models})
        store.set_meta("conditions", condition_records(plan.conditions, 1))
        store.set_meta("sampling", {"n": 1, "temperature": 0.0})
        store.set_meta("status", "complete")
        for b in benchmarks:
            for m in models:
                for c in plan.conditions:
                    for t in tasks:
                        for i in range(c.repeats):
                            s = decide(b, m, c.id, t, i)
                            values[(b, m, c.id, t, i)] = s
                            key = sample_key(b, t, m, c.id, i)
                            store.put_sample(
                                SampleRecord(
                                    key=key,
                                    benchmark=b,
                                    task_id=t,
                                    model=m,
                                    condition=c.id,
                                    sample_index=i,
                                    raw="synthetic",
                                    code="pass" if s.status != "no_code" else "",
                                    program="",
                                    extraction={"status": "ok", "kind": "full"},
                                )
                            )
                            tests = []
                            if s.status == "error":
                                tests = [
                                    {"name": "t0", "status": "error", "error_type": s.error_type}
                                ]
                            store.put_result(
                                ResultRecord(
                                    key=key,
                                    status=s.status,
                                    passed=s.passed,
                                    metrics=dict(s.metrics),
                                    details={"message": "", "tests": tests},
                                )
                            )
    return values


def invoke(args: Sequence[str], capsys: Any) -> tuple[int, str, str]:
    """Run the real CLI entry point in-process; returns (exit code, stdout, stderr)."""
    from beyondpass.cli.app import main

    old = sys.argv
    sys.argv = ["beyondpass", *map(str, args)]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err
