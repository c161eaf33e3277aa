"""Regression testing of model versions (RobuNFR's RQ2) and the CI gate of ``compare``.

Given the paired comparisons of two versions (every method's headline metrics, and what a
method's ``compare`` section adds), this module names what changed:

* a *change* is a significant difference (Holm-adjusted primary paired test, see
  :mod:`beyondpass.analysis.cells`), an improvement or a regression by the metric's better
  direction as its definition states (:mod:`beyondpass.analysis.metrics`; e.g. higher Pass@1
  and exception-handling density, lower smell and unreadability density and execution
  time);
* a *trade-off* is one (benchmark, group) where one metric improves while another regresses;
* an *inconsistency* is one (group, metric) that improves on one benchmark and regresses on
  another — the seed's GPT-3.5 finding, where no single verdict on the update holds.

The gate (``--fail-on``) turns chosen regressions into a failing exit code. Its syntax::

    METRIC[SCOPE]:LIMIT
    METRIC  pass@1, smell_density, unreadability_density, exception_density, exec_time_ms,
            exec_time_ref (the steadier one on a shared machine), every method's headline
            metrics (misuse_rate, diffbleu, speedup, robust_pass@1, ...: docs/profile.md
            lists them), or any numeric metric the runs carry
    SCOPE   optional, e.g. [benchmark=humaneval,group=function-only,model=gpt-4o]; also
            method=NAME (the method whose metric it is) and arm=NAME (a study's arm)
    LIMIT   a signed threshold: -2% (relative change, Δ%), -1.5pp (absolute, in percentage
            points: metrics shown in %, e.g. pass@1, misuse_rate), +5 (absolute, in the
            metric's unit)

``pass@1:-2%`` fails when Pass@1 falls by more than 2% (relative) in any benchmark and group,
and the fall is significant; ``smell_density:+10%`` fails when smell density rises by more
than 10%. The sign is the direction of the regression, so it must match the metric's worse
direction. Without ``require_significance`` a change beyond the limit fails even when the
test cannot tell it from noise.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from beyondpass.analysis.cells import Comparison
from beyondpass.analysis.formatting import bench_label
from beyondpass.analysis.headline import arm_of
from beyondpass.analysis.metrics import PASS, is_known, metric_def, metric_definitions
from beyondpass.errors import ConfigError

_SPEC = re.compile(
    r"^\s*(?P<metric>[A-Za-z_][\w@.\-]*)\s*(?:\[(?P<scope>[^\]]*)\])?\s*:\s*"
    r"(?P<sign>[+-])\s*(?P<num>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>%|pp)?\s*$"
)
_SCOPE_KEYS = ("benchmark", "group", "model", "method", "arm")


@dataclass
class VersionPair:
    old_model: str
    new_model: str

    @property
    def label(self) -> str:
        return f"{self.old_model} vs {self.new_model}"


@dataclass
class VersionComparison:
    """Every (benchmark, group, metric) of two model versions, paired by task.

    ``old`` and ``new`` are the two runs' analyses (they carry ``alpha``); a group has a
    ``key`` and a ``display_label``.
    """

    pair: VersionPair
    old: Any
    new: Any
    comparisons: dict[tuple[str, str, str], Comparison] = field(default_factory=dict)
    groups: list[Any] = field(default_factory=list)
    benchmarks: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    #: the method whose analysis made it (a method's headline metrics, or a section it adds
    #: to ``compare``): what a ``--fail-on`` scope ``method=NAME`` selects
    method: str = ""
    #: the reading both runs' values were read in (``semantics=original``; empty: the
    #: method's numbers have one reading), or each run's when compared across readings
    reading: str = ""


@dataclass(frozen=True)
class GateSpec:
    """One ``--fail-on`` rule."""

    text: str
    metric: str
    limit: float  # signed: the direction and size of a change that fails
    unit: str  # "%" relative, "pp" percentage points, "" metric units
    scope: tuple[tuple[str, str], ...] = ()
    sign: int = -1  # -1: a fall fails, +1: a rise fails (kept apart from limit for -0%)

    def measure(self, c: Comparison) -> float | None:
        """The change of ``c`` in this rule's unit."""
        if self.unit == "%":
            return c.delta_pct
        return c.delta  # Pass@1 deltas are already in percentage points

    def breached(self, c: Comparison) -> bool:
        change = self.measure(c)
        if change is None or not math.isfinite(change):
            return False
        return change < self.limit if self.sign < 0 else change > self.limit

    def describe(self) -> str:
        unit = {"%": "%", "pp": " pp", "": ""}[self.unit]
        direction = "falls" if self.sign < 0 else "rises"
        where = ", ".join(f"{k}={v}" for k, v in self.scope) or "any benchmark and group"
        return f"{self.metric} {direction} by more than {abs(self.limit):g}{unit} ({where})"


def parse_gate(text: str) -> GateSpec:
    """Parse ``METRIC[SCOPE]:LIMIT``; errors say what a valid rule looks like."""
    m = _SPEC.match(text)
    example = "e.g. pass@1:-2% or smell_density[benchmark=mbpp]:+10%"
    if not m:
        raise ConfigError(
            f"--fail-on {text!r}: expected METRIC[SCOPE]:LIMIT with a signed limit, {example}"
        )
    metric = m.group("metric")
    unit = m.group("unit") or ""
    sign = -1 if m.group("sign") == "-" else 1
    limit = float(m.group("num")) * sign
    if unit == "pp" and not _is_share(metric):
        shares = ", ".join(k for k, d in metric_definitions().items() if d.unit == "%")
        raise ConfigError(
            f"--fail-on {text!r}: 'pp' (percentage points) is for metrics shown in % "
            f"({shares}); write % for a relative change"
        )
    if is_known(metric):
        worse_is_down = metric_def(metric).higher_is_better
        if (sign < 0) != worse_is_down:
            want = "-" if worse_is_down else "+"
            raise ConfigError(
                f"--fail-on {text!r}: {metric} regresses when it "
                f"{'falls' if worse_is_down else 'rises'}; write the limit as {want}"
                f"{abs(limit):g}{unit}"
            )
    scope: list[tuple[str, str]] = []
    if m.group("scope"):
        for part in m.group("scope").split(","):
            key, sep, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or key not in _SCOPE_KEYS or not value:
                raise ConfigError(
                    f"--fail-on {text!r}: scope entries are KEY=VALUE with KEY one of "
                    f"{', '.join(_SCOPE_KEYS)}, {example}"
                )
            scope.append((key, value))
    return GateSpec(text.strip(), metric, limit, unit, tuple(scope), sign)


def _is_share(metric: str) -> bool:
    return metric == PASS or (is_known(metric) and metric_def(metric).unit == "%")


def group_key(name: str, groups: Sequence[Any]) -> str:
    """The key of the group a ``--fail-on`` scope names: its key, or one of its ``aliases``
    (RobuNFR accepts ``integrated/design`` for ``nfr-integrated/design``)."""
    for g in groups:
        if name == g.key or name in getattr(g, "aliases", ()):
            return str(g.key)
    return name


@dataclass
class Finding:
    kind: str  # "change", "trade-off", "inconsistency", "gate"
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class RegressionReport:
    """Everything ``compare`` says about two versions."""

    comparisons: list[VersionComparison]
    alpha: float
    changes: list[Finding] = field(default_factory=list)
    trade_offs: list[Finding] = field(default_factory=list)
    inconsistencies: list[Finding] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    gates: list[GateSpec] = field(default_factory=list)

    @property
    def gate_failed(self) -> bool:
        return bool(self.violations)


def _fmt_change(c: Comparison) -> str:
    pct = f"{c.delta_pct:+.2f}%" if c.delta_pct is not None else f"{c.delta:+.3g}"
    return f"{metric_def(c.metric).label} {pct} (p={c.p_adj:.3g})"


def analyse_regression(
    vcs: Sequence[VersionComparison],
    gates: Sequence[GateSpec] = (),
    *,
    require_significance: bool = True,
) -> RegressionReport:
    """Significant changes of each version pair, and what they add up to: trade-offs within a
    cell, metrics that move both ways across benchmarks, and breached gates."""
    alpha = vcs[0].old.alpha if vcs else 0.05
    rep = RegressionReport(list(vcs), alpha, gates=list(gates))
    for vc in vcs:
        changes = _significant_changes(vc)
        rep.changes.extend(_change_finding(vc, key, c) for key, c in changes)
        rep.trade_offs.extend(_trade_offs(vc, changes))
        rep.inconsistencies.extend(_inconsistencies(vc, changes))
        rep.violations.extend(_gate_violations(vc, gates, require_significance))
    return rep


_Key = tuple[str, str, str]  # benchmark, group, metric


def _significant_changes(vc: VersionComparison) -> list[tuple[_Key, Comparison]]:
    """The comparisons that moved, significantly, in the pair's order."""
    return [
        (key, c)
        for key, c in vc.comparisons.items()
        if c.significant and c.direction != "unchanged"
    ]


def _change_finding(vc: VersionComparison, key: _Key, c: Comparison) -> Finding:
    bench, gkey, metric = key
    return Finding(
        "change",
        f"{vc.pair.label} · {bench_label(bench)} · {_group_label(vc, gkey)}: "
        f"{_fmt_change(c)} {c.direction}",
        {
            "pair": vc.pair.label,
            "benchmark": bench,
            "group": gkey,
            "metric": metric,
            "direction": c.direction,
            "delta_pct": c.delta_pct,
            "delta": c.delta,
            "p_holm": c.p_adj,
        },
    )


def _group_label(vc: VersionComparison, gkey: str) -> str:
    return {g.key: g.display_label for g in vc.groups}[gkey]


def _trade_offs(vc: VersionComparison, changes: list[tuple[_Key, Comparison]]) -> Iterator[Finding]:
    """A cell (benchmark, group) where one metric improves while another regresses."""
    by_cell: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    for (bench, gkey, _), c in changes:
        by_cell[(bench, gkey)].append(c)
    for (bench, gkey), cs in by_cell.items():
        up = [c for c in cs if c.direction == "improved"]
        down = [c for c in cs if c.direction == "regressed"]
        if up and down:
            yield Finding(
                "trade-off",
                f"{vc.pair.label} · {bench_label(bench)} · {_group_label(vc, gkey)}: "
                + ", ".join(_fmt_change(c) for c in up)
                + " improves while "
                + ", ".join(_fmt_change(c) for c in down)
                + " regresses",
                {
                    "pair": vc.pair.label,
                    "benchmark": bench,
                    "group": gkey,
                    "improved": [c.metric for c in up],
                    "regressed": [c.metric for c in down],
                },
            )


def _inconsistencies(
    vc: VersionComparison, changes: list[tuple[_Key, Comparison]]
) -> Iterator[Finding]:
    """A metric of a group that improves on some benchmarks and regresses on others."""
    by_metric: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(
        lambda: {"improved": [], "regressed": []}
    )
    for (bench, gkey, metric), c in changes:
        by_metric[(gkey, metric)][c.direction].append(bench)
    for (gkey, metric), dirs in by_metric.items():
        if dirs["improved"] and dirs["regressed"]:
            yield Finding(
                "inconsistency",
                f"{vc.pair.label} · {_group_label(vc, gkey)}: {metric_def(metric).label} "
                "improves on "
                + ", ".join(bench_label(b) for b in sorted(dirs["improved"]))
                + " but regresses on "
                + ", ".join(bench_label(b) for b in sorted(dirs["regressed"])),
                {
                    "pair": vc.pair.label,
                    "group": gkey,
                    "metric": metric,
                    "improved_on": sorted(dirs["improved"]),
                    "regressed_on": sorted(dirs["regressed"]),
                },
            )


def _gate_violations(
    vc: VersionComparison, gates: Sequence[GateSpec], require_significance: bool
) -> Iterator[Finding]:
    """Each comparison a gate covers that breaches it (significantly, unless not required)."""
    for gate in gates:
        for (bench, gkey, metric), c in vc.comparisons.items():
            if metric != gate.metric or not _in_scope(gate, vc, bench, gkey):
                continue
            if gate.breached(c) and (c.significant or not require_significance):
                yield Finding(
                    "gate",
                    f"FAIL {gate.text}: {vc.pair.label} · {bench_label(bench)} · "
                    f"{_group_label(vc, gkey)}: {_fmt_change(c)}",
                    {
                        "spec": gate.text,
                        "pair": vc.pair.label,
                        "benchmark": bench,
                        "group": gkey,
                        "metric": metric,
                        "change": gate.measure(c),
                        "p_holm": c.p_adj,
                    },
                )


def _in_scope(gate: GateSpec, vc: VersionComparison, bench: str, gkey: str) -> bool:
    for key, value in gate.scope:
        if key == "benchmark" and value != bench:
            return False
        if key == "group" and group_key(value, vc.groups) != gkey:
            return False
        if key == "model" and value not in (vc.pair.old_model, vc.pair.new_model):
            return False
        if key == "method" and value != vc.method:
            return False
        if key == "arm" and value != arm_of(meta_of(vc), bench, gkey):
            return False
    return True


def check_gates(gates: Sequence[GateSpec], vcs: Sequence[VersionComparison]) -> None:
    """Refuse rules that can never match these runs (a typo must not pass a CI gate)."""
    metrics = {m for vc in vcs for m in vc.metrics}
    benches = {b for vc in vcs for b in vc.benchmarks}
    all_groups = [g for vc in vcs for g in vc.groups]
    groups = {g.key for g in all_groups}
    models = {m for vc in vcs for m in (vc.pair.old_model, vc.pair.new_model)}
    methods = {vc.method for vc in vcs}
    arms = {a for vc in vcs for a in _arms(vc)}
    for gate in gates:
        if gate.metric not in metrics:
            raise ConfigError(
                f"--fail-on {gate.text!r}: no metric {gate.metric!r} in both runs "
                f"(compared: {', '.join(sorted(metrics))})"
            )
        for key, value in gate.scope:
            valid = {
                "benchmark": benches,
                "group": groups,
                "model": models,
                "method": methods,
                "arm": arms,
            }[key]
            if (group_key(value, all_groups) if key == "group" else value) not in valid:
                raise ConfigError(
                    f"--fail-on {gate.text!r}: no {key} {value!r} in both runs "
                    f"(have: {', '.join(sorted(valid))})"
                )


def meta_of(vc: VersionComparison) -> Any:
    """The old run's metadata (a run with ``meta``, or an analysis whose ``data`` has it)."""
    run = vc.old
    return getattr(run, "meta", None) or getattr(getattr(run, "data", None), "meta", {})


def _arms(vc: VersionComparison) -> set[str]:
    return {arm_of(meta_of(vc), b, g.key) for b in vc.benchmarks for g in vc.groups} - {""}


__all__ = [
    "Finding",
    "GateSpec",
    "RegressionReport",
    "VersionComparison",
    "VersionPair",
    "analyse_regression",
    "check_gates",
    "group_key",
    "meta_of",
    "parse_gate",
]
