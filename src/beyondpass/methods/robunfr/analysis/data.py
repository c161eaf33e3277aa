"""A run's samples indexed for the RobuNFR analysis: roles, groups, per-task matrices.

The vocabulary (group, unit, per-task value) is in :mod:`beyondpass.methods.robunfr.analysis`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from beyondpass.analysis.cells import Matrix
from beyondpass.analysis.meta import as_dict
from beyondpass.analysis.ordering import natural_key, ordered_names
from beyondpass.analysis.stats import NAN
from beyondpass.methods.robunfr.analysis.metrics import PASS, sample_value
from beyondpass.methods.robunfr.prompts import ENHANCED, FUNCTION_ONLY, INTEGRATED, WORKFLOW_LABELS
from beyondpass.store.run_store import Row

OVERALL = "overall"


@dataclass(frozen=True)
class Role:
    """What a condition is in the RobuNFR design (from the run's recorded conditions)."""

    condition: str
    workflow: str
    nfr: str | None = None
    variant: int | None = None
    repeats: int = 1
    per_repeat: int = 1  # samples per task in one repeat (the study's n)


@dataclass(frozen=True)
class Group:
    """The conditions one table row aggregates, and what its units are."""

    key: str
    label: str
    workflow: str
    nfr: str | None
    conditions: tuple[str, ...]
    by_repeat: bool = False  # one condition whose repeats are the units

    @property
    def workflow_label(self) -> str:
        return WORKFLOW_LABELS.get(self.workflow, self.workflow)

    @property
    def display_label(self) -> str:
        """The group as ``compare`` names it: the NFR with its workflow."""
        return self.label if not self.nfr else f"{self.workflow_label} {self.label}"

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other names a ``--fail-on`` scope may use: ``integrated/design`` for
        ``nfr-integrated/design``."""
        return (self.key.removeprefix("nfr-"),) if self.key.startswith("nfr-") else ()


class RunData:
    """A run's samples indexed for the RobuNFR analysis."""

    def __init__(self, meta: Mapping[str, Any], rows: Iterable[Row], name: str = "run") -> None:
        self.name = name
        self.meta = dict(meta)
        self.rows = list(rows)
        n = as_dict(meta.get("sampling")).get("n", 1)
        self.n = n if isinstance(n, int) and n > 0 else 1
        cond_meta = as_dict(meta.get("conditions"))
        seen_conditions = {r.sample.condition for r in self.rows}
        order = [c for c in cond_meta if c in seen_conditions]
        order += sorted(seen_conditions - set(order), key=natural_key)
        self.condition_order = order
        self.roles: dict[str, Role] = {}
        self.nfr_order: list[str] = []
        self.nfr_labels: dict[str, str] = {}
        for cid in order:
            info = as_dict(cond_meta.get(cid))
            md = as_dict(info.get("metadata"))
            workflow = str(info.get("workflow") or "")
            repeats = info.get("repeats", 1)
            repeats = repeats if isinstance(repeats, int) and repeats > 0 else 1
            per_task = info.get("samples_per_task")
            per_repeat = per_task // repeats if isinstance(per_task, int) and per_task else self.n
            nfr = md.get("nfr") if workflow in (INTEGRATED, ENHANCED) else None
            variant = md.get("variant") if isinstance(md.get("variant"), int) else None
            self.roles[cid] = Role(
                cid,
                workflow,
                str(nfr) if nfr else None,
                variant,
                repeats,
                max(per_repeat, 1),
            )
            if nfr and str(nfr) not in self.nfr_labels:
                self.nfr_order.append(str(nfr))
                self.nfr_labels[str(nfr)] = str(md.get("nfr_label") or str(nfr).title())
        self.benchmarks = _ordered(list(as_dict(meta.get("benchmarks"))), self.rows, "benchmark")
        self.models = _ordered(list(as_dict(meta.get("models"))), self.rows, "model")
        self._index: dict[tuple[str, str, str], dict[str, list[Row]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for r in self.rows:
            s = r.sample
            self._index[(s.benchmark, s.model, s.condition)][s.task_id].append(r)
        self._tasks: dict[tuple[str, str], list[str]] = {}
        self._has_metric: dict[str, bool] = {}

    # -- design ----------------------------------------------------------------------------
    @property
    def function_only(self) -> Group | None:
        fo = [c for c, r in self.roles.items() if r.workflow == FUNCTION_ONLY]
        if not fo:
            return None
        role = self.roles[fo[0]]
        return Group(
            FUNCTION_ONLY,
            "Function-Only",
            FUNCTION_ONLY,
            None,
            (fo[0],),
            by_repeat=role.repeats > 1,
        )

    @property
    def workflows(self) -> list[str]:
        present = {r.workflow for r in self.roles.values() if r.nfr}
        return [w for w in (INTEGRATED, ENHANCED) if w in present]

    def nfr_group(self, workflow: str, nfr: str) -> Group | None:
        conds = [
            c
            for c, r in sorted(
                self.roles.items(), key=lambda kv: (kv[1].variant or 0, natural_key(kv[0]))
            )
            if r.workflow == workflow and r.nfr == nfr
        ]
        if not conds:
            return None
        return Group(
            f"{workflow}/{nfr}",
            self.nfr_labels.get(nfr, nfr),
            workflow,
            nfr,
            tuple(conds),
        )

    @property
    def is_robunfr(self) -> bool:
        """Function-Only plus at least one NFR group: the seed's tables apply."""
        return self.function_only is not None and bool(self.workflows)

    def design_groups(self) -> list[Group]:
        """Function-Only, then every workflow x NFR group, in the design's order."""
        out: list[Group] = []
        if (fo := self.function_only) is not None:
            out.append(fo)
        for w in self.workflows:
            for nfr in self.nfr_order:
                if (g := self.nfr_group(w, nfr)) is not None:
                    out.append(g)
        return out

    def comparison_groups(self) -> list[Group]:
        """What ``compare`` tests: every condition pooled, then the design's groups (or each
        condition on its own when the run is not a RobuNFR design)."""
        overall = Group(OVERALL, "all conditions", OVERALL, None, tuple(self.condition_order))
        if self.is_robunfr:
            return [overall, *self.design_groups()]
        singles = [
            Group(f"condition/{c}", c, "condition", None, (c,)) for c in self.condition_order
        ]
        return [overall, *singles] if len(singles) > 1 else singles

    def tasks(self, bench: str, model: str) -> list[str]:
        """Every task this model answered on this benchmark (the columns of its matrices)."""
        key = (bench, model)
        if key not in self._tasks:
            found = {
                t
                for (b, m, _), per_task in self._index.items()
                if b == bench and m == model
                for t in per_task
            }
            self._tasks[key] = sorted(found, key=natural_key)
        return self._tasks[key]

    def rows_of(self, bench: str, model: str, conditions: Iterable[str]) -> list[Row]:
        """Every sample of these conditions for one benchmark and model."""
        return [
            r
            for c in conditions
            for per_task in self._index.get((bench, model, c), {}).values()
            for r in per_task
        ]

    def has_metric(self, metric: str) -> bool:
        if metric not in self._has_metric:
            self._has_metric[metric] = any(sample_value(r, metric) is not None for r in self.rows)
        return self._has_metric[metric]

    # -- numbers ---------------------------------------------------------------------------
    def matrix(self, bench: str, model: str, group: Group, metric: str) -> Matrix:
        tasks = self.tasks(bench, model)
        units: list[str] = []
        columns: list[list[float]] = []
        per_unit_verdicts: list[dict[str, list[bool]]] = []

        def add_unit(label: str, pick: dict[str, list[Row]]) -> None:
            units.append(label)
            col: list[float] = []
            verdicts: dict[str, list[bool]] = {}
            for t in tasks:
                rows = pick.get(t, [])
                vals = [v for r in rows if (v := sample_value(r, metric)) is not None]
                col.append(sum(vals) / len(vals) if vals else NAN)
                if metric == PASS:
                    verdicts[t] = [bool(r.result.passed) for r in rows if r.result is not None]
            columns.append(col)
            per_unit_verdicts.append(verdicts)

        if group.by_repeat:
            cond = group.conditions[0]
            role = self.roles[cond]
            per_task = self._index.get((bench, model, cond), {})
            for rep in range(role.repeats):
                lo, hi = rep * role.per_repeat, (rep + 1) * role.per_repeat
                pick = {
                    t: [r for r in rs if lo <= r.sample.sample_index < hi]
                    for t, rs in per_task.items()
                }
                add_unit(f"run {rep + 1}", pick)
        elif group.workflow == OVERALL:
            # every condition weighs the same, whatever its sample count
            per_cond = [self._index.get((bench, model, c), {}) for c in group.conditions]
            col = []
            for t in tasks:
                means = []
                for per_task in per_cond:
                    vals = [
                        v for r in per_task.get(t, []) if (v := sample_value(r, metric)) is not None
                    ]
                    if vals:
                        means.append(sum(vals) / len(vals))
                col.append(sum(means) / len(means) if means else NAN)
            units, columns, per_unit_verdicts = ["all"], [col], [{}]
        else:
            for cond in group.conditions:
                add_unit(cond, self._index.get((bench, model, cond), {}))
        values = np.asarray(columns, dtype=float).reshape(len(units), len(tasks))
        verdicts = None
        if metric == PASS and len(units) == 1 and per_unit_verdicts[0]:
            one = per_unit_verdicts[0]
            if all(len(v) == 1 for v in one.values()):
                verdicts = {t: v[0] for t, v in one.items()}
        return Matrix(units, tasks, values, verdicts)


def own_rows(meta: Mapping[str, Any], rows: Iterable[Row]) -> list[Row]:
    """The samples of RobuNFR's own conditions when a run holds other methods' too (a
    study's arms); every sample of a run that has none of them (a run of custom conditions
    compared by version pairs)."""
    conditions = as_dict(meta.get("conditions"))
    ours = {
        cid
        for cid, info in conditions.items()
        if as_dict(as_dict(info).get("metadata")).get("method") == "robunfr"
    }
    return [r for r in rows if r.sample.condition in ours] if ours else list(rows)


def _ordered(preferred: list[str], rows: list[Row], attr: str) -> list[str]:
    return ordered_names(preferred, {getattr(r.sample, attr) for r in rows})


__all__ = ["OVERALL", "Group", "Role", "RunData", "own_rows"]
