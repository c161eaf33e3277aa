"""RobustAPI's components as the registry builds them (the rest of the package is the
method itself: benchmark, prompts, answer format, checker, ``robustapi check``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic


class MisuseOptions(pydantic.BaseModel):
    """``[evaluation.robustapi]``: the rule file (default: the dataset's pat_list.txt); in a
    study file a relative path is relative to the study file."""

    model_config = pydantic.ConfigDict(extra="forbid")

    rules: str | None = None

    @pydantic.field_validator("rules")
    @classmethod
    def _relative_to_study(cls, value: str | None, info: pydantic.ValidationInfo) -> str | None:
        base = (info.context or {}).get("base")
        if value is None or base is None or Path(value).is_absolute():
            return value
        return str((Path(base) / value).resolve())


def misuse_evaluator(options: MisuseOptions | None, ctx: Any) -> Any:
    from beyondpass.methods.robustapi.checker import ApiMisuseEvaluator

    rules = options.rules if options is not None else None
    return ApiMisuseEvaluator.from_data(ctx.data_dir, rules)


def robustapi_plan(table: Any, base: Path, where: str) -> Any:
    """``plan = "robustapi"``: the three settings of the seed (zero-shot, one-shot-*)."""
    from beyondpass.methods.robustapi.prompts import PLAN

    return PLAN
