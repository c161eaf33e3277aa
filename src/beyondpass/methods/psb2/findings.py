"""The PSB2 method's one severity scale and its unit of analysis, shared by the smells
evaluator (``smells``) and its language modules (``smells_python``, ``smells_cpp``,
``smells_java``), which import this module and never each other.

One scale for every language, pylint's message types (``SEVERITIES``): ``fatal`` (the
analyser could not read the code), ``error`` (a probable bug), ``warning`` (suspicious
code, a possible bug), ``refactor`` (a design or performance smell), ``convention`` (a
coding-standard or readability breach), ``info``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

SEVERITIES = ("fatal", "error", "warning", "refactor", "convention", "info")
METRICS = ("smells", *(f"smells_{s}" for s in SEVERITIES))


@dataclass(frozen=True)
class Finding:
    """One analyser message: its rule (``tool:rule``) and its level on ``SEVERITIES``."""

    rule: str
    severity: str


def tally(findings: Sequence[Finding]) -> tuple[dict[str, int], dict[str, int]]:
    """(metrics, per-rule counts) of one file's findings."""
    severities = Counter(f.severity for f in findings)
    metrics = {"smells": len(findings)}
    metrics.update({f"smells_{s}": severities.get(s, 0) for s in SEVERITIES})
    return metrics, dict(sorted(Counter(f.rule for f in findings).items()))
