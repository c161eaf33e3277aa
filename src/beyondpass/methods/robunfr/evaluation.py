"""RobuNFR's evaluator as the registry builds it: options, factory, ``evaluate`` summary.

Kept apart from :mod:`.evaluators.nfr` so that reading a study file (validating
``[evaluation.nfr]``) does not import pylint.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pydantic


class NfrOptions(pydantic.BaseModel):
    """``[evaluation.nfr]``: limits of the supervised pylint workers (docs/nfr-metrics.md)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    file_timeout_s: float = pydantic.Field(default=60.0, gt=0)
    memory_mb: int = pydantic.Field(default=4096, ge=256)


def nfr_evaluator(options: NfrOptions | None, ctx: Any) -> Any:
    from beyondpass.methods.robunfr.evaluators.nfr import NfrEvaluator

    options = options or NfrOptions()
    pool = getattr(ctx, "pool", None)  # the run's batch pool: here or on Ray
    if options == NfrOptions():
        return NfrEvaluator(ctx.workers, pool=pool)
    return NfrEvaluator(
        ctx.workers, file_timeout_s=options.file_timeout_s, memory_mb=options.memory_mb, pool=pool
    )


def nfr_summary(values: dict[str, list[float]], statuses: Counter[str]) -> dict[str, Any]:
    """Mean of each metric over the samples where it is defined, and how many those are.

    Answers without code (prose, instructions instead of code: seed 5.2.3) and code that does
    not compile have no metrics; their numbers are reported next to the means.
    """
    return {
        "means": {k: (sum(v) / len(v) if v else None) for k, v in values.items()},
        "n": {k: len(v) for k, v in values.items()},
        "over": (
            "samples where the metric is defined: static metrics exclude no_code and "
            "syntax_error samples (pylint counts and their densities also samples pylint could "
            "not analyse, densities also samples with 0 LOC); the exec_time fields cover "
            "passing samples whose timing runs all passed"
        ),
        "without_metrics": {s: statuses.get(s, 0) for s in ("no_code", "syntax_error")},
    }
