"""DiffBLEU x oracle, per sample, and its summary (``nofuneval score``, the evaluator).

Each sample's DiffBLEU is multiplied by *that sample's* oracle pass (NoFunEval's
``codeql-diffbleu`` sorts the oracle scores of a row before multiplying, so with n > 1 it
pairs one sample's DiffBLEU with another sample's verdict). Rows without an oracle get
``diffbleu_x_oracle = null`` and are left out of its mean, never counted as passes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any

from beyondpass.methods.nofuneval.oracles.check import NO_ORACLE, OracleItem, judge, metadata
from beyondpass.methods.nofuneval.samples import score_at_k


def oracle_scores(
    scores: list[dict[str, Any]],
    metas: Sequence[Mapping[str, Any]],
    programs: Sequence[str | None],
    compat: bool,
) -> dict[str, Any]:
    """Add ``oracle`` and ``diffbleu_x_oracle`` to every score line; return the summary."""
    items = [
        OracleItem(str(m["pl"]), str(m.get("codeql_check", "")), str(m["source_code"]), p)
        for m, p in zip(metas, programs, strict=True)
    ]
    verdicts = judge(items, compat)
    per_row: dict[int, list[float]] = defaultdict(list)
    passes: list[bool] = []
    for s, v in zip(scores, verdicts, strict=True):
        s["oracle"] = v.as_dict()
        if v.status == NO_ORACLE:
            s["diffbleu_x_oracle"] = None
            continue
        s["diffbleu_x_oracle"] = s["diffbleu"] * v.passed
        per_row[s["row"]].append(s["diffbleu_x_oracle"])
        passes.append(v.passed)
    summary: dict[str, Any] = {
        **metadata(),
        "oracle_samples": len(passes),
        "no_oracle_samples": len(scores) - len(passes),
        "oracle_pass_rate": mean(passes) if passes else None,
    }
    sizes = {len(v) for v in per_row.values()}
    n = sizes.pop() if len(sizes) == 1 else 1
    for k in sorted({1, n}):
        summary[f"diffbleu_x_oracle_score@{k}"] = (
            mean(score_at_k(v, k) if k > 1 else mean(v) for v in per_row.values())
            if per_row
            else None
        )
    return summary
