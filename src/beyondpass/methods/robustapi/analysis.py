"""RobustAPI's metrics: API misuse rate, executable-sample share, overall misuse share.

With N answers split into ``misuse`` (the checker found a violation), ``pass``, and
non-executable ones (``unparsable`` code or ``no_code``), the seed defines

* API misuse rate = N_misuse / (N_misuse + N_pass) — among answers with executable code;
* executable sample % = (N_misuse + N_pass) / N;
* overall misuse % = N_misuse / N.

Rates with an empty denominator are ``None`` (not 0): "no executable answer" is not "no
misuse". Groups: per model x setting, and within them per API and per domain.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from beyondpass.store.run_store import Row


@dataclass
class MisuseCounts:
    n_misuse: int = 0
    n_pass: int = 0
    n_unparsable: int = 0
    n_no_code: int = 0

    def add(self, verdict: str) -> None:
        if verdict == "violation":
            self.n_misuse += 1
        elif verdict == "pass":
            self.n_pass += 1
        elif verdict == "no_code":
            self.n_no_code += 1
        else:
            self.n_unparsable += 1

    @property
    def n(self) -> int:
        return self.n_misuse + self.n_pass + self.n_unparsable + self.n_no_code

    @property
    def n_executable(self) -> int:
        return self.n_misuse + self.n_pass

    @property
    def misuse_rate(self) -> float | None:
        return self.n_misuse / self.n_executable if self.n_executable else None

    @property
    def executable_rate(self) -> float | None:
        return self.n_executable / self.n if self.n else None

    @property
    def overall_misuse_rate(self) -> float | None:
        return self.n_misuse / self.n if self.n else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "n_misuse": self.n_misuse,
            "n_pass": self.n_pass,
            "n_unparsable": self.n_unparsable,
            "n_no_code": self.n_no_code,
            "misuse_rate": self.misuse_rate,
            "executable_rate": self.executable_rate,
            "overall_misuse_rate": self.overall_misuse_rate,
        }


def verdict_in(result: Any, semantics: str) -> str:
    """An answer's verdict (``result``: its stored ``ResultRecord``) in the checker semantics
    asked for: the store holds both, the published checker's under ``details["original"]``."""
    if semantics == "original":
        return str(result.details.get("original", {}).get("verdict", result.status))
    return str(result.status)


def count(verdicts: Iterable[str]) -> MisuseCounts:
    out = MisuseCounts()
    for v in verdicts:
        out.add(v)
    return out


@dataclass
class MisuseSummary:
    """One group's counts overall, per API and per domain."""

    total: MisuseCounts = field(default_factory=MisuseCounts)
    by_api: dict[str, MisuseCounts] = field(default_factory=lambda: defaultdict(MisuseCounts))
    by_domain: dict[str, MisuseCounts] = field(default_factory=lambda: defaultdict(MisuseCounts))

    def add(self, verdict: str, api: str, domain: str) -> None:
        self.total.add(verdict)
        self.by_api[api].add(verdict)
        self.by_domain[domain].add(verdict)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.total.as_dict(),
            "by_api": {k: v.as_dict() for k, v in sorted(self.by_api.items())},
            "by_domain": {k: v.as_dict() for k, v in sorted(self.by_domain.items())},
        }


@dataclass
class MisuseGroup:
    """A model x setting of a run, in both checker semantics."""

    model: str
    condition: str
    correct: MisuseSummary
    original: MisuseSummary


def summarize_rows(rows: Iterable[Row]) -> list[MisuseGroup]:
    """Misuse summaries of a run's RobustAPI rows (those scored by the misuse evaluator)."""
    groups: dict[tuple[str, str], MisuseGroup] = {}
    for row in rows:
        result = row.result
        if result is None or "verdict_original" not in result.metrics:
            continue
        s = row.sample
        key = (s.model, s.condition)
        group = groups.setdefault(
            key, MisuseGroup(s.model, s.condition, MisuseSummary(), MisuseSummary())
        )
        api = str(result.metrics.get("api") or "?")
        domain = str(result.metrics.get("domain") or "Other")
        group.correct.add(result.status, api, domain)
        group.original.add(str(result.metrics["verdict_original"]), api, domain)
    return [groups[k] for k in sorted(groups)]
