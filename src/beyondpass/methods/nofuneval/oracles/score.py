"""DiffBLEU x oracle: its summary over a run's answers (``nofuneval score``, Table 1).

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

from beyondpass.methods.nofuneval.edit.samples import score_at_ks
from beyondpass.methods.nofuneval.oracles.check import NO_ORACLE, PASS


def oracle_summary(lines: Sequence[Mapping[str, Any]], how: Mapping[str, Any]) -> dict[str, Any]:
    """The summary's oracle fields from per-answer lines (``row``, ``oracle`` with its
    ``status``, ``diffbleu_x_oracle``): ``how`` the verdicts were made (engine, analysers),
    how many answers had an oracle, its pass rate and DiffBLEU x oracle score@k (answers
    without an oracle left out)."""
    per_row: dict[int, list[float]] = defaultdict(list)
    passes: list[bool] = []
    for s in lines:
        status = s["oracle"]["status"]
        if status == NO_ORACLE:
            continue
        per_row[s["row"]].append(s["diffbleu_x_oracle"])
        passes.append(status == PASS)
    summary: dict[str, Any] = {
        **how,
        "oracle_samples": len(passes),
        "no_oracle_samples": len(lines) - len(passes),
        "oracle_pass_rate": mean(passes) if passes else None,
    }
    at_k = score_at_ks(per_row) or {1: None}
    summary.update({f"diffbleu_x_oracle_score@{k}": v for k, v in at_k.items()})
    return summary
