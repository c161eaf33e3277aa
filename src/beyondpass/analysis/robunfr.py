"""RobuNFR analysis: the seed's Tables 2-6 with confidence intervals and paired tests.

Vocabulary. A *group* is what one table row aggregates: Function-Only, or one (workflow,
NFR) pair such as NFR-Integrated x Readability. A group's *units* are what its STDEV is
taken across: the 10 prompt variants of an NFR group, or the repeated runs of Function-Only
(``function_only_repeats``; a single run has no STDEV). For one benchmark, model, group and
metric:

* per (unit, task): the mean of the metric over that unit's samples of the task;
* unit value: the mean over tasks (Pass@1 of one prompt, in %, or e.g. its mean smell density);
* AVG: the mean of the unit values; STDEV: their sample standard deviation (ddof = 1);
* 95% CI of AVG: percentile bootstrap over tasks (seeded), the same task draw for every unit;
* per-task value: the mean over units — what paired tests compare, task by task.

Metric definitions follow the seed (section 3.2): Pass@1 over evaluated samples; the static
densities over samples that have them (code that could be analysed); execution time over
*passing* samples only (a failing sample's time measures a crash, not the algorithm), so
a paired time comparison uses the tasks both sides pass.

Significance: a difference is marked when its primary paired test (Wilcoxon signed-rank on
per-task values; McNemar's exact test when both sides are a single pass/fail verdict per
task) has a Holm-adjusted p below alpha, Holm being applied within each (workflow, metric)
family of a table. The seed's t-test (Welch, on unit values) and the paired t-test are
reported alongside, with effect sizes.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from beyondpass.analysis.stats import (
    NAN,
    StatResult,
    bootstrap_avg_ci,
    holm,
    mcnemar_exact,
    paired_t,
    welch_t,
    wilcoxon_paired,
)
from beyondpass.analysis.tables import MISSING, Cell, PaperTable, fmt_delta, fmt_num
from beyondpass.methods.robunfr.prompts import ENHANCED, FUNCTION_ONLY, INTEGRATED, WORKFLOW_LABELS
from beyondpass.store.run_store import Row

PASS = "pass@1"
DEFAULT_ALPHA = 0.05
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class MetricDef:
    """How a metric is read, shown and judged."""

    key: str
    label: str  # column label, as in the seed's tables
    higher_is_better: bool
    decimals: int
    scale: float = 1.0  # display scale (pass@1 in %)
    passing_only: bool = False  # only passing samples carry it


METRICS: dict[str, MetricDef] = {
    PASS: MetricDef(PASS, "Pass@1", True, 2, scale=100.0),
    "smell_density": MetricDef("smell_density", "code smell", False, 2),
    "unreadability_density": MetricDef("unreadability_density", "unreadability", False, 2),
    "exception_density": MetricDef("exception_density", "exception-handling", True, 3),
    "exec_time_ms": MetricDef("exec_time_ms", "execution time", False, 2, passing_only=True),
    # the same time in reference units (docs/performance.md): steady on a noisy machine
    "exec_time_ref": MetricDef(
        "exec_time_ref", "execution time (ref. units)", False, 3, passing_only=True
    ),
}
NFR_METRICS = ("smell_density", "unreadability_density", "exception_density", "exec_time_ms")
ALL_METRICS = (PASS, *NFR_METRICS)

BENCHMARK_LABELS = {
    "humaneval": "HumanEval",
    "humaneval-et": "HumanEval-ET",
    "mbpp": "MBPP",
    "mbpp-et": "MBPP-ET",
}
OVERALL = "overall"


def metric_def(key: str) -> MetricDef:
    """A known metric, or a generic one (higher is better is unknown: treated as True)."""
    return METRICS.get(key) or MetricDef(key, key, True, 3)


def bench_label(name: str) -> str:
    return BENCHMARK_LABELS.get(name, name)


def sample_value(row: Row, metric: str) -> float | None:
    """The metric of one evaluated sample, or None when it has none."""
    res = row.result
    if res is None:
        return None
    if metric == PASS:
        return 1.0 if res.passed else 0.0
    if metric_def(metric).passing_only and not res.passed:
        return None
    value = res.metrics.get(metric) if isinstance(res.metrics, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


# -- roles and groups ------------------------------------------------------------------------
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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _natural(text: str) -> list[tuple[int, int | str]]:
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text)]


@dataclass
class Matrix:
    """Per (unit, task) values of one metric; ``nan`` where a unit has no value for a task."""

    units: list[str]
    tasks: list[str]
    values: np.ndarray
    verdicts: dict[str, bool] | None = None  # one unit, one sample per task: the verdicts


class RunData:
    """A run's samples indexed for the RobuNFR analysis."""

    def __init__(self, meta: Mapping[str, Any], rows: Iterable[Row], name: str = "run") -> None:
        self.name = name
        self.meta = dict(meta)
        self.rows = list(rows)
        n = _dict(meta.get("sampling")).get("n", 1)
        self.n = n if isinstance(n, int) and n > 0 else 1
        cond_meta = _dict(meta.get("conditions"))
        seen_conditions = {r.sample.condition for r in self.rows}
        order = [c for c in cond_meta if c in seen_conditions]
        order += sorted(seen_conditions - set(order), key=_natural)
        self.condition_order = order
        self.roles: dict[str, Role] = {}
        self.nfr_order: list[str] = []
        self.nfr_labels: dict[str, str] = {}
        for cid in order:
            info = _dict(cond_meta.get(cid))
            md = _dict(info.get("metadata"))
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
        self.benchmarks = _ordered(list(_dict(meta.get("benchmarks"))), self.rows, "benchmark")
        self.models = _ordered(list(_dict(meta.get("models"))), self.rows, "model")
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
                self.roles.items(), key=lambda kv: (kv[1].variant or 0, _natural(kv[0]))
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
            self._tasks[key] = sorted(found, key=_natural)
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


def _ordered(preferred: list[str], rows: list[Row], attr: str) -> list[str]:
    seen = {getattr(r.sample, attr) for r in rows}
    return [n for n in preferred if n in seen] + sorted(seen - set(preferred))


# -- cell statistics -------------------------------------------------------------------------
@dataclass
class CellStats:
    """AVG, STDEV and CI of one (benchmark, model, group, metric), in display scale."""

    metric: str
    avg: float | None
    sd: float | None
    ci: tuple[float, float] | None
    unit_values: list[float]
    task_values: dict[str, float]
    verdicts: dict[str, bool] | None
    n_tasks: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "avg": self.avg,
            "sd": self.sd,
            "ci95": list(self.ci) if self.ci else None,
            "units": len(self.unit_values),
            "unit_values": self.unit_values,
            "tasks": self.n_tasks,
        }


def cell_stats(m: Matrix, metric: str, *, seed: int = 0) -> CellStats:
    scale = metric_def(metric).scale
    data = m.values * scale
    unit_values = []
    for row in data:
        finite = row[np.isfinite(row)]
        if len(finite):
            unit_values.append(float(finite.mean()))
    task_values: dict[str, float] = {}
    for j, t in enumerate(m.tasks):
        col = data[:, j]
        finite = col[np.isfinite(col)]
        if len(finite):
            task_values[t] = float(finite.mean())
    avg = statistics.fmean(unit_values) if unit_values else None
    sd = statistics.stdev(unit_values) if len(unit_values) >= 2 else None
    ci = None
    if unit_values:
        lo, hi = bootstrap_avg_ci(data, seed=seed, resamples=BOOTSTRAP_RESAMPLES)
        ci = (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None
    return CellStats(metric, avg, sd, ci, unit_values, task_values, m.verdicts, len(task_values))


@dataclass
class Comparison:
    """``other`` against ``base`` on the tasks both have, with every test."""

    metric: str
    base: CellStats
    other: CellStats
    delta: float | None
    delta_pct: float | None
    primary: StatResult
    t_paired: StatResult
    t_seed: StatResult
    p_adj: float = NAN
    alpha: float = DEFAULT_ALPHA

    @property
    def significant(self) -> bool:
        return math.isfinite(self.p_adj) and self.p_adj < self.alpha

    @property
    def direction(self) -> str:
        """``improved``, ``regressed`` or ``unchanged`` (by the metric's better direction)."""
        if self.delta is None or self.delta == 0:
            return "unchanged"
        better = (self.delta > 0) == metric_def(self.metric).higher_is_better
        return "improved" if better else "regressed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "base": self.base.as_dict(),
            "other": self.other.as_dict(),
            "delta": self.delta,
            "delta_pct": self.delta_pct,
            "direction": self.direction,
            "primary": self.primary.as_dict(),
            "paired_t": self.t_paired.as_dict(),
            "seed_t": self.t_seed.as_dict(),
            "p_holm": self.p_adj if math.isfinite(self.p_adj) else None,
            "significant": self.significant,
        }


def pct_change(base: float | None, other: float | None) -> float | None:
    if base is None or other is None or base == 0:
        return None
    return (other - base) / abs(base) * 100.0


def compare_cells(base: CellStats, other: CellStats, *, alpha: float = DEFAULT_ALPHA) -> Comparison:
    common = sorted(set(base.task_values) & set(other.task_values), key=_natural)
    a = [base.task_values[t] for t in common]
    b = [other.task_values[t] for t in common]
    if (
        base.metric == PASS
        and base.verdicts is not None
        and other.verdicts is not None
        and all(t in base.verdicts and t in other.verdicts for t in common)
    ):
        primary = mcnemar_exact(
            [base.verdicts[t] for t in common], [other.verdicts[t] for t in common]
        )
    else:
        primary = wilcoxon_paired(a, b)
    delta = None if base.avg is None or other.avg is None else other.avg - base.avg
    return Comparison(
        metric=base.metric,
        base=base,
        other=other,
        delta=delta,
        delta_pct=pct_change(base.avg, other.avg),
        primary=primary,
        t_paired=paired_t(a, b),
        t_seed=welch_t(base.unit_values, other.unit_values),
        alpha=alpha,
    )


def adjust(comparisons: Sequence[Comparison]) -> None:
    """Holm-adjust one family of comparisons in place."""
    for c, p in zip(comparisons, holm([c.primary.p for c in comparisons]), strict=True):
        c.p_adj = p


def pooled_compare(
    pairs: Sequence[tuple[CellStats, CellStats]], metric: str, *, alpha: float = DEFAULT_ALPHA
) -> Comparison:
    """One comparison pooled over several models: (model, task) pairs for the paired tests,
    every model's unit values for the seed's t-test, model-averaged AVG and STDEV."""
    a: list[float] = []
    b: list[float] = []
    for base, other in pairs:
        for t in sorted(set(base.task_values) & set(other.task_values), key=_natural):
            a.append(base.task_values[t])
            b.append(other.task_values[t])

    def merged(cells: list[CellStats]) -> CellStats:
        avgs = [c.avg for c in cells if c.avg is not None]
        sds = [c.sd for c in cells if c.sd is not None]
        return CellStats(
            metric,
            statistics.fmean(avgs) if avgs else None,
            statistics.fmean(sds) if sds else None,
            None,
            [v for c in cells for v in c.unit_values],
            {},
            None,
            sum(c.n_tasks for c in cells),
        )

    base = merged([p[0] for p in pairs])
    other = merged([p[1] for p in pairs])
    delta = None if base.avg is None or other.avg is None else other.avg - base.avg
    return Comparison(
        metric=metric,
        base=base,
        other=other,
        delta=delta,
        delta_pct=pct_change(base.avg, other.avg),
        primary=wilcoxon_paired(a, b),
        t_paired=paired_t(a, b),
        t_seed=welch_t(base.unit_values, other.unit_values),
        alpha=alpha,
    )


# -- the analysis of one run -----------------------------------------------------------------
@dataclass
class Analysis:
    """Every cell and every comparison against Function-Only, computed once."""

    data: RunData
    seed: int = 0
    alpha: float = DEFAULT_ALPHA
    cells: dict[tuple[str, str, str, str], CellStats] = field(default_factory=dict)
    vs_baseline: dict[tuple[str, str, str, str], Comparison] = field(default_factory=dict)

    def cell(self, bench: str, model: str, group: Group, metric: str) -> CellStats:
        key = (bench, model, group.key, metric)
        if key not in self.cells:
            m = self.data.matrix(bench, model, group, metric)
            self.cells[key] = cell_stats(m, metric, seed=self.seed)
        return self.cells[key]

    def metrics(self) -> list[str]:
        return [PASS] + [m for m in NFR_METRICS if self.data.has_metric(m)]

    def compute(self) -> Analysis:
        fo = self.data.function_only
        if fo is None:
            return self
        families: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
        for metric in self.metrics():
            for bench in self.data.benchmarks:
                for model in self.data.models:
                    base = self.cell(bench, model, fo, metric)
                    for g in self.data.design_groups()[1:]:
                        comp = compare_cells(
                            base, self.cell(bench, model, g, metric), alpha=self.alpha
                        )
                        self.vs_baseline[(bench, model, g.key, metric)] = comp
                        families[(g.workflow, metric)].append(comp)
        for family in families.values():
            adjust(family)
        return self


def analyse(
    meta: Mapping[str, Any],
    rows: Iterable[Row],
    *,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    name: str = "run",
) -> Analysis:
    return Analysis(RunData(meta, rows, name), seed=seed, alpha=alpha).compute()


# -- paper tables ----------------------------------------------------------------------------
def _label_cells(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


def _avg_sd(stats: CellStats, decimals: int) -> str:
    if stats.avg is None:
        return MISSING
    text = fmt_num(stats.avg, decimals)
    if stats.sd is not None:
        text += f" ± {fmt_num(stats.sd, decimals)}"
    return text


def _delta_cell(comp: Comparison | None) -> Cell:
    if comp is None:
        return Cell(MISSING)
    return Cell(
        fmt_delta(comp.delta_pct, comp.significant),
        value=comp.delta_pct,
        p=comp.p_adj if math.isfinite(comp.p_adj) else None,
        significant=comp.significant,
    )


def _metric_cell(stats: CellStats, comp: Comparison | None, decimals: int) -> Cell:
    text = _avg_sd(stats, decimals)
    if comp is not None and stats.avg is not None:
        text += f" ({fmt_delta(comp.delta_pct, comp.significant)})"
    return Cell(
        text,
        value=stats.avg,
        sd=stats.sd,
        delta_pct=comp.delta_pct if comp else None,
        p=comp.p_adj if comp and math.isfinite(comp.p_adj) else None,
        significant=bool(comp and comp.significant),
        extra={"ci95": list(stats.ci)} if stats.ci else {},
    )


def _sig_note(alpha: float, family: str) -> str:
    return (
        f"* = significant at α = {alpha:g} after Holm adjustment within {family}: Wilcoxon "
        "signed-rank test on per-task values (McNemar's exact test when both sides are one "
        "pass/fail verdict per task). The statistics table gives every test, p-value, "
        "effect size and the 95% bootstrap CI of every AVG."
    )


def table2(an: Analysis, workflow: str) -> PaperTable:
    """Seed Table 2: Pass@1 AVG, STDEV across prompts and Δ% vs Function-Only."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    header = ["NFR Dimension", "Model"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in d.benchmarks:
        header += ["Pass@1", "STDEV", "Δ(%)"]
        groups.append((bench_label(b), 3))
    rows: list[list[Cell]] = []
    for g in [fo] + [x for n in d.nfr_order if (x := d.nfr_group(workflow, n))]:
        for i, model in enumerate(d.models):
            row = _label_cells(g.label if i == 0 else "", model)
            for b in d.benchmarks:
                st = an.cell(b, model, g, PASS)
                comp = an.vs_baseline.get((b, model, g.key, PASS))
                row.append(Cell(fmt_num(st.avg, 2), value=st.avg, extra=_ci(st)))
                row.append(Cell(fmt_num(st.sd, 2), value=st.sd))
                row.append(_delta_cell(comp) if g is not fo else Cell(MISSING))
            rows.append(row)
    return PaperTable(
        key=f"table2-{workflow}",
        title=f"Table 2 ({WORKFLOW_LABELS[workflow]}): Pass@1 across semantically equivalent "
        "prompts",
        caption=(
            "Pass@1 (%) is the AVG over the prompts of each NFR dimension, STDEV its sample "
            "standard deviation across them (for Function-Only: across repeated runs, — "
            "when it ran once). Δ(%) is the relative difference of the AVG to Function-Only "
            "of the same model."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[_sig_note(an.alpha, "each workflow's Pass@1 comparisons")],
    )


def _ci(st: CellStats) -> dict[str, Any]:
    return {"ci95": list(st.ci)} if st.ci else {}


def _static_benchmarks(d: RunData) -> list[str]:
    """The seed's Table 3 shows HumanEval and MBPP: an -ET benchmark only adds tests to the
    same problems, so its static metrics repeat its base's; it is shown only without one."""
    names = set(d.benchmarks)
    return [b for b in d.benchmarks if not (b.endswith("-et") and b[:-3] in names)]


def table3(an: Analysis, workflow: str) -> PaperTable | None:
    """Seed Table 3: NFR metrics AVG ± STDEV (Δ% vs Function-Only)."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    metrics = [m for m in NFR_METRICS if d.has_metric(m)]
    if not metrics:
        return None
    benches = _static_benchmarks(d)
    header = ["NFR Dimension", "Model"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in benches:
        header += [f"{METRICS[m].label} (Δ%)" for m in metrics]
        groups.append((bench_label(b), len(metrics)))
    rows: list[list[Cell]] = []
    for g in [fo] + [x for n in d.nfr_order if (x := d.nfr_group(workflow, n))]:
        for i, model in enumerate(d.models):
            row = _label_cells(g.label if i == 0 else "", model)
            for b in benches:
                for m in metrics:
                    st = an.cell(b, model, g, m)
                    comp = None if g is fo else an.vs_baseline.get((b, model, g.key, m))
                    row.append(_metric_cell(st, comp, METRICS[m].decimals))
            rows.append(row)
    return PaperTable(
        key=f"table3-{workflow}",
        title=f"Table 3 ({WORKFLOW_LABELS[workflow]}): NFR metrics across prompts",
        caption=(
            "Code smell density (pylint Refactor messages per 10 LOC), unreadability density "
            "(pylint Convention messages per 10 LOC), exception-handling density (statements "
            "per 10 LOC) and execution time (ms, passing samples only): AVG ± STDEV across "
            "the prompts, (Δ% vs Function-Only of the same model)."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[_sig_note(an.alpha, "each workflow and metric")],
    )


def _pooled(an: Analysis, bench: str, base: Group, other: Group, metric: str) -> Comparison:
    pairs = [
        (an.cell(bench, m, base, metric), an.cell(bench, m, other, metric)) for m in an.data.models
    ]
    return pooled_compare(pairs, metric, alpha=an.alpha)


def table5(an: Analysis) -> tuple[PaperTable, PaperTable | None]:
    """Seed Tables 5 and 6: workflows, averaged over the run's models."""
    d = an.data
    fo = d.function_only
    assert fo is not None
    rows_groups = [fo] + [g for w in d.workflows for n in d.nfr_order if (g := d.nfr_group(w, n))]
    comps: dict[tuple[str, str, str], Comparison] = {}
    families: dict[tuple[str, str], list[Comparison]] = defaultdict(list)
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    for metric in metrics:
        for b in d.benchmarks:
            for g in rows_groups:
                c = _pooled(an, b, fo, g, metric)
                comps[(b, g.key, metric)] = c
                if g is not fo:
                    families[(g.workflow, metric)].append(c)
    for fam in families.values():
        adjust(fam)

    def label(g: Group, i: int) -> list[Cell]:
        return _label_cells("-" if g is fo else (g.workflow_label if i == 0 else ""), g.label)

    header = ["Workflow", "NFR Dimension"]
    groups: list[tuple[str, int]] = [("", 2)]
    for b in d.benchmarks:
        header += ["Pass@1 AVG", "Δ(%)"]
        groups.append((bench_label(b), 2))
    rows = []
    previous = None
    for g in rows_groups:
        first = g.workflow != previous
        previous = g.workflow
        row = label(g, 0 if first else 1)
        for b in d.benchmarks:
            c = comps[(b, g.key, PASS)]
            row.append(Cell(_avg_sd(c.other, 2), value=c.other.avg, sd=c.other.sd))
            row.append(Cell(MISSING) if g is fo else _delta_cell(c))
        rows.append(row)
    t5 = PaperTable(
        key="table5",
        title="Table 5: Pass@1 by workflow, averaged over models",
        caption=(
            f"Pass@1 AVG ± STDEV across prompts, each averaged over the {len(d.models)} "
            "model(s) of the run; Δ(%) vs Function-Only."
        ),
        header=header,
        align=["l", "l"] + ["r"] * (len(header) - 2),
        rows=rows,
        groups=groups,
        notes=[
            _sig_note(an.alpha, "each workflow").replace(
                "per-task values", "per-(model, task) values"
            )
        ],
    )
    nfr_metrics = metrics[1:]
    if not nfr_metrics:
        return t5, None
    benches = _static_benchmarks(d)
    header6 = ["Workflow", "NFR Dimension"]
    groups6: list[tuple[str, int]] = [("", 2)]
    for b in benches:
        header6 += [f"{METRICS[m].label} (Δ%)" for m in nfr_metrics]
        groups6.append((bench_label(b), len(nfr_metrics)))
    rows6 = []
    previous = None
    for g in rows_groups:
        first = g.workflow != previous
        previous = g.workflow
        row = label(g, 0 if first else 1)
        for b in benches:
            for m in nfr_metrics:
                c = comps[(b, g.key, m)]
                row.append(_metric_cell(c.other, None if g is fo else c, METRICS[m].decimals))
        rows6.append(row)
    t6 = PaperTable(
        key="table6",
        title="Table 6: NFR metrics by workflow, averaged over models",
        caption="AVG ± STDEV across prompts averaged over the run's models (Δ% vs Function-Only).",
        header=header6,
        align=["l", "l"] + ["r"] * (len(header6) - 2),
        rows=rows6,
        groups=groups6,
        notes=[
            _sig_note(an.alpha, "each workflow and metric").replace(
                "per-task values", "per-(model, task) values"
            )
        ],
    )
    return t5, t6


def workflow_table(an: Analysis) -> PaperTable | None:
    """RQ3 beyond the seed: NFR-Enhanced vs NFR-Integrated per NFR, pooled over models."""
    d = an.data
    if len(d.workflows) < 2:
        return None
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    rows_data = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for b in d.benchmarks:
        for n in d.nfr_order:
            gi, ge = d.nfr_group(INTEGRATED, n), d.nfr_group(ENHANCED, n)
            if gi is None or ge is None:
                continue
            for m in metrics:
                c = _pooled(an, b, gi, ge, m)
                families[m].append(c)
                rows_data.append((b, n, m, c))
    for fam in families.values():
        adjust(fam)
    header = [
        "Benchmark",
        "NFR Dimension",
        "Metric",
        "Integrated AVG",
        "Enhanced AVG",
        "Δ(%)",
        "Wilcoxon p (Holm)",
        "r",
        "seed t-test p",
        "d",
    ]
    rows = []
    for b, n, m, c in rows_data:
        dec = metric_def(m).decimals
        rows.append(
            [
                Cell(bench_label(b)),
                Cell(d.nfr_labels.get(n, n)),
                Cell(metric_def(m).label),
                Cell(_avg_sd(c.base, dec), value=c.base.avg, sd=c.base.sd),
                Cell(_avg_sd(c.other, dec), value=c.other.avg, sd=c.other.sd),
                _delta_cell(c),
                _p_cell(c.p_adj),
                _num_cell(c.primary.effect, 2),
                _p_cell(c.t_seed.p),
                _num_cell(c.t_seed.effect, 2),
            ]
        )
    return PaperTable(
        key="workflows",
        title="Workflow comparison: NFR-Enhanced vs NFR-Integrated",
        caption=(
            "Same NFR, same prompts, two workflows, pooled over the run's models. Wilcoxon "
            "signed-rank on (model, task) pairs with matched-pairs rank-biserial r; the "
            "seed's t-test (Welch) on per-prompt values with Cohen's d. Positive Δ: "
            "NFR-Enhanced is higher."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 3),
        rows=rows,
        notes=[f"* = Holm-adjusted Wilcoxon p < {an.alpha:g} within each metric."],
    )


def _p_cell(p: float) -> Cell:
    if not math.isfinite(p):
        return Cell(MISSING)
    return Cell("<0.001" if p < 0.001 else f"{p:.3f}", value=p)


def _num_cell(x: float, decimals: int) -> Cell:
    return Cell(fmt_num(x, decimals), value=x if math.isfinite(x) else None)


def statistics_table(an: Analysis) -> PaperTable:
    """Every AVG with its CI, and every comparison with Function-Only with all tests."""
    d = an.data
    header = [
        "Benchmark",
        "Model",
        "Workflow",
        "NFR Dimension",
        "Metric",
        "AVG",
        "95% CI",
        "STDEV",
        "units",
        "Δ(%)",
        "test",
        "pairs",
        "p",
        "p (Holm)",
        "effect",
        "paired t p",
        "d_z",
        "seed t-test p",
        "d",
    ]
    rows = []
    for metric in an.metrics():
        dec = metric_def(metric).decimals
        for b in d.benchmarks:
            for model in d.models:
                for g in d.design_groups():
                    st = an.cell(b, model, g, metric)
                    c = an.vs_baseline.get((b, model, g.key, metric))
                    ci = (
                        f"[{fmt_num(st.ci[0], dec)}, {fmt_num(st.ci[1], dec)}]"
                        if st.ci
                        else MISSING
                    )
                    row = [
                        Cell(bench_label(b)),
                        Cell(model),
                        Cell(g.workflow_label),
                        Cell(g.label if g.nfr else "-"),
                        Cell(metric_def(metric).label),
                        Cell(fmt_num(st.avg, dec), value=st.avg),
                        Cell(ci, extra=_ci(st)),
                        Cell(fmt_num(st.sd, dec), value=st.sd),
                        Cell(str(len(st.unit_values))),
                    ]
                    if c is None:
                        row += [Cell(MISSING)] * 10
                    else:
                        row += [
                            _delta_cell(c),
                            Cell(c.primary.test),
                            Cell(str(c.primary.n)),
                            _p_cell(c.primary.p),
                            _p_cell(c.p_adj),
                            Cell(
                                f"{c.primary.effect_name} {fmt_num(c.primary.effect, 2)}",
                                value=c.primary.effect if math.isfinite(c.primary.effect) else None,
                            ),
                            _p_cell(c.t_paired.p),
                            _num_cell(c.t_paired.effect, 2),
                            _p_cell(c.t_seed.p),
                            _num_cell(c.t_seed.effect, 2),
                        ]
                    rows.append(row)
    return PaperTable(
        key="statistics",
        title="Statistics: every AVG and every comparison with Function-Only",
        caption=(
            f"AVG and STDEV across units (prompts, or Function-Only's repeated runs); 95% CI: "
            f"percentile bootstrap over tasks ({BOOTSTRAP_RESAMPLES} resamples, seed "
            f"{an.seed}). Comparisons are paired by task; p (Holm) is adjusted within each "
            "workflow and metric, as the marks in Tables 2 and 3."
        ),
        header=header,
        align=["l"] * 5 + ["r"] * (len(header) - 5),
        rows=rows,
    )


# -- version comparison (Table 4 and `compare`) ---------------------------------------------
@dataclass
class VersionPair:
    old_model: str
    new_model: str

    @property
    def label(self) -> str:
        return f"{self.old_model} vs {self.new_model}"


@dataclass
class VersionComparison:
    """Every (benchmark, group, metric) of two model versions, paired by task."""

    pair: VersionPair
    old: Analysis
    new: Analysis
    comparisons: dict[tuple[str, str, str], Comparison] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    benchmarks: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)


def compare_versions(
    old: Analysis,
    new: Analysis,
    pairs: Sequence[VersionPair],
    *,
    groups: str = "design",
    metrics: Sequence[str] | None = None,
) -> list[VersionComparison]:
    """Compare each pair on the benchmarks and groups both runs have; Holm within each
    metric across all pairs, benchmarks and groups."""
    out = []
    families: dict[str, list[Comparison]] = defaultdict(list)
    for pair in pairs:
        vc = VersionComparison(pair, old, new)
        vc.benchmarks = [b for b in old.data.benchmarks if b in new.data.benchmarks]
        new_groups = {
            g.key: g
            for g in (new.data.comparison_groups() if groups == "all" else new.data.design_groups())
        }
        old_groups = old.data.comparison_groups() if groups == "all" else old.data.design_groups()
        vc.groups = [g for g in old_groups if g.key in new_groups]
        wanted = list(metrics) if metrics else [PASS, *NFR_METRICS]
        vc.metrics = [
            m for m in wanted if m == PASS or (old.data.has_metric(m) and new.data.has_metric(m))
        ]
        for b in vc.benchmarks:
            for g in vc.groups:
                for m in vc.metrics:
                    c = compare_cells(
                        old.cell(b, pair.old_model, g, m),
                        new.cell(b, pair.new_model, new_groups[g.key], m),
                        alpha=old.alpha,
                    )
                    vc.comparisons[(b, g.key, m)] = c
                    families[m].append(c)
        out.append(vc)
    for fam in families.values():
        adjust(fam)
    return out


def _datasets(benches: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
    """(dataset label, base benchmark, -ET benchmark) as the seed's Table 4 pairs them."""
    names = set(benches)
    out = []
    for b in benches:
        if b.endswith("-et") and b[:-3] in names:
            continue
        if b.endswith("-et"):
            out.append((bench_label(b), None, b))
        else:
            out.append((bench_label(b), b, f"{b}-et" if f"{b}-et" in names else None))
    return out


def table4(vcs: Sequence[VersionComparison]) -> PaperTable:
    """Seed Table 4: old version AVG ± STDEV and Δ% of the new version, per dataset."""
    metrics = [m for m in NFR_METRICS if any(m in vc.metrics for vc in vcs)]
    header = ["Model", "Dataset", "NFR Dimension", "Pass@1 (Δ%)", "ET-Pass@1 (Δ%)"]
    header += [f"{METRICS[m].label} (Δ%)" for m in metrics]
    rows = []
    for vc in vcs:
        first_pair = True
        workflows = {g.workflow for g in vc.groups if g.nfr}
        for label, base, et in _datasets(vc.benchmarks):
            first_ds = True
            for g in vc.groups:
                name = g.label
                if g.nfr and len(workflows) > 1:
                    name = f"{g.label} ({g.workflow_label})"
                row = [
                    Cell(vc.pair.label if first_pair else ""),
                    Cell(label if first_ds else ""),
                    Cell(name),
                ]
                first_pair = first_ds = False
                for bench, metric in [(base, PASS), (et, PASS)] + [
                    (base or et, m) for m in metrics
                ]:
                    c = vc.comparisons.get((bench, g.key, metric)) if bench else None
                    if c is None:
                        row.append(Cell(MISSING))
                    else:
                        row.append(_metric_cell(c.base, c, metric_def(metric).decimals))
                rows.append(row)
    return PaperTable(
        key="table4",
        title="Table 4: model versions (old AVG ± STDEV, Δ% of the new version)",
        caption=(
            "Each cell: the older version's AVG ± STDEV across prompts and, in brackets, the "
            "relative change of the newer version on the same tasks and prompts."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 3),
        rows=rows,
        notes=[
            "* = significant paired difference between the versions (Wilcoxon signed-rank on "
            "per-task values, McNemar's exact test for single pass/fail verdicts), Holm-"
            "adjusted within each metric."
        ],
    )


# -- failure analysis ------------------------------------------------------------------------
FAILURE_COLUMNS = (
    ("no_code", "No code"),
    ("syntax_error", "Syntax error"),
    ("error", "Exception"),
    ("failed", "Wrong result"),
    ("timeout", "Timeout"),
)


def exception_type(row: Row) -> str:
    """The exception a non-passing sample raised (first failing test, else the message)."""
    res = row.result
    if res is None:
        return ""
    tests = res.details.get("tests") if isinstance(res.details, dict) else None
    if isinstance(tests, list):
        for t in tests:
            if isinstance(t, dict) and t.get("status") == "error" and t.get("error_type"):
                return str(t["error_type"])
    message = str(res.details.get("message", "")) if isinstance(res.details, dict) else ""
    m = re.match(r"(?:test \S+: )?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b", message)
    return m.group(1) if m else ""


def failure_counts(rows: Iterable[Row]) -> dict[str, Any]:
    counts: dict[str, int] = defaultdict(int)
    exc: dict[str, int] = defaultdict(int)
    evaluated = 0
    for r in rows:
        if r.result is None:
            continue
        evaluated += 1
        status = r.result.status
        key = status if status in dict(FAILURE_COLUMNS) or status == "passed" else "other"
        counts[key] += 1
        if status == "error" and (name := exception_type(r)):
            exc[name] += 1
    top = sorted(exc.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"evaluated": evaluated, "counts": dict(counts), "exceptions": top}


def failure_table(an: Analysis, bench: str) -> PaperTable:
    """Per model and group: how answers fail (MISSION §1; seed section 5.2)."""
    d = an.data
    groups = (
        d.design_groups()
        if d.is_robunfr
        else [Group(f"condition/{c}", c, "condition", None, (c,)) for c in d.condition_order]
    )
    header = ["Model", "Workflow", "Group", "Evaluated", "Passed"]
    header += [label for _, label in FAILURE_COLUMNS] + ["Other", "Exceptions raised"]
    rows = []
    for model in d.models:
        for g in groups:
            rs = d.rows_of(bench, model, g.conditions)
            if not rs:
                continue
            fc = failure_counts(rs)
            n = fc["evaluated"]

            def share(k: str, fc: dict[str, Any] = fc, n: int = n) -> Cell:
                v = fc["counts"].get(k, 0)
                return Cell(f"{v} ({100 * v / n:.1f}%)" if n else str(v), value=float(v))

            row = [
                Cell(model),
                Cell(g.workflow_label if g.workflow != "condition" else "-"),
                Cell(g.label if g.nfr or g.workflow == "condition" else "-"),
                Cell(str(n), value=float(n)),
                share("passed"),
            ]
            row += [share(k) for k, _ in FAILURE_COLUMNS] + [share("other")]
            top = ", ".join(f"{name} {count}" for name, count in fc["exceptions"][:4])
            row.append(Cell(top or MISSING, extra={"exceptions": dict(fc["exceptions"])}))
            rows.append(row)
    return PaperTable(
        key=f"failures-{bench}",
        title=f"Failure analysis: {bench_label(bench)}",
        caption=(
            "Evaluated samples by verdict: no code (the answer holds instructions or prose "
            "instead of code), syntax error, exception (the code raised where the task "
            "demands a return value), wrong result (an assertion failed), timeout, other "
            "(memory, output limit, killed); with the most frequent exception types."
        ),
        header=header,
        align=["l", "l", "l"] + ["r"] * (len(header) - 4) + ["l"],
        rows=rows,
    )


def robunfr_tables(an: Analysis, version_pairs: Sequence[VersionPair] = ()) -> list[PaperTable]:
    """Every table of the report, in the seed's order."""
    d = an.data
    tables: list[PaperTable] = []
    if d.is_robunfr:
        for w in d.workflows:
            tables.append(table2(an, w))
        for w in d.workflows:
            if (t3 := table3(an, w)) is not None:
                tables.append(t3)
    pairs = [p for p in version_pairs if p.old_model in d.models and p.new_model in d.models]
    if pairs:
        tables.append(table4(compare_versions(an, an, pairs)))
    if d.is_robunfr:
        t5, t6 = table5(an)
        tables.append(t5)
        if t6 is not None:
            tables.append(t6)
        if (wt := workflow_table(an)) is not None:
            tables.append(wt)
        tables.append(statistics_table(an))
    tables += [failure_table(an, b) for b in d.benchmarks]
    return tables


__all__ = [
    "ALL_METRICS",
    "METRICS",
    "NFR_METRICS",
    "PASS",
    "Analysis",
    "CellStats",
    "Comparison",
    "Group",
    "MetricDef",
    "RunData",
    "VersionComparison",
    "VersionPair",
    "analyse",
    "bench_label",
    "cell_stats",
    "compare_cells",
    "compare_versions",
    "failure_counts",
    "failure_table",
    "metric_def",
    "pct_change",
    "robunfr_tables",
    "sample_value",
    "statistics_table",
    "table2",
    "table3",
    "table4",
    "table5",
    "workflow_table",
]
