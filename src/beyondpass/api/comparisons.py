"""Compare two runs of the same design from Python: what ``beyondpass compare`` does.

:func:`compare` is the command's whole mechanism (``beyondpass compare`` parses its options,
calls it and prints the result; ``--json`` prints :meth:`ComparisonResult.to_json`): every
method's headline metrics (:mod:`beyondpass.analysis.headline_compare`), each run read in the
reading it was made with, plus what installed methods add
(:mod:`beyondpass.analysis.compare_section`); the changes, trade-offs and inconsistencies
across benchmarks; and the ``fail_on`` gate (syntax in :mod:`beyondpass.analysis.regression`).
No method is named here: the core alone compares pass@1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from beyondpass.analysis.meta import as_dict
from beyondpass.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pandas

    from beyondpass.analysis.compare_section import ComparedRun, CompareSection
    from beyondpass.analysis.headline_compare import RunHeadlines
    from beyondpass.analysis.regression import RegressionReport, VersionComparison, VersionPair

PathLike = str | os.PathLike[str]

#: ``compare``'s exit code when a ``fail_on`` rule is breached (1 incomplete, 2 bad input)
EXIT_GATE_FAILED = 4

#: a method's compare section and the comparisons it made (it tabulates and plots them)
Made = list[tuple["CompareSection", list["VersionComparison"]]]


@dataclass
class ComparisonResult:
    """What :func:`compare` found; :meth:`as_dict` is exactly what ``compare --json`` prints.

    ``comparisons`` has one record per compared cell (method, pair, benchmark, group,
    metric: old and new with their CIs, the change with its paired CI, the test and its
    Holm-adjusted p); ``changes``, ``trade_offs`` and ``inconsistencies`` are findings, each
    with its ``text``; ``gate`` holds the rules, their breaches and whether it ``passed``.
    """

    old_run: str
    new_run: str
    pairs: list[str]
    alpha: float
    seed: int
    readings: dict[str, dict[str, dict[str, str]]]
    notes: list[str]
    comparisons: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    trade_offs: list[dict[str, Any]]
    inconsistencies: list[dict[str, Any]]
    gate: dict[str, Any]
    #: the files :meth:`write` wrote (``compare --out``), by kind
    files: dict[str, str] | None = None
    #: the analysis behind the records, for printing tables and writing files
    report: RegressionReport | None = field(default=None, repr=False, compare=False)
    sections: Made = field(default_factory=list, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """Whether every ``fail_on`` rule held (true when there are none)."""
        return bool(self.gate["passed"])

    @property
    def violations(self) -> list[dict[str, Any]]:
        return list(self.gate["violations"])

    @property
    def exit_code(self) -> int:
        """``beyondpass compare``'s exit code: 0, or 4 when a rule was breached."""
        return 0 if self.passed else EXIT_GATE_FAILED

    def as_dict(self) -> dict[str, Any]:
        """The comparison as ``compare --json`` prints it (non-finite numbers as ``None``)."""
        from beyondpass.report.artifacts import json_safe

        return json_safe(self._payload())  # type: ignore[no-any-return]

    def _payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "old_run": self.old_run,
            "new_run": self.new_run,
            "pairs": list(self.pairs),
            "alpha": self.alpha,
            "seed": self.seed,
            "readings": self.readings,
            "notes": list(self.notes),
            "comparisons": self.comparisons,
            "changes": self.changes,
            "trade_offs": self.trade_offs,
            "inconsistencies": self.inconsistencies,
            "gate": self.gate,
        }
        if self.files is not None:
            payload["files"] = dict(self.files)
        return payload

    def to_json(self) -> str:
        """The text ``compare --json`` prints."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False, default=str)

    def to_pandas(self) -> pandas.DataFrame:
        """``comparisons`` as a DataFrame, one row per compared cell (needs pandas)."""
        from beyondpass.api.frames import records_frame

        return records_frame(self.comparisons)

    dataframe = to_pandas

    def write(self, out: PathLike) -> dict[str, str]:
        """Write compare.md, compare.tex, compare.json and compare.html into ``out``; the
        paths by kind (also kept in :attr:`files`)."""
        from beyondpass.api.comparison_files import write_outputs

        assert self.report is not None, "a ComparisonResult made by compare() writes its files"
        payload = self._payload()
        payload.pop("files", None)
        self.files = write_outputs(Path(out), self.report, payload, self.sections)
        return dict(self.files)


def compare(
    old: PathLike,
    new: PathLike,
    *,
    fail_on: Sequence[str] | str = (),
    pairs: Sequence[str] | str = (),
    alpha: float = 0.05,
    require_significance: bool = True,
    across_readings: bool = False,
    seed: int | None = None,
    out: PathLike | None = None,
) -> ComparisonResult:
    """Compare run ``old`` with run ``new`` (a model update on the same design).

    ``fail_on``: gate rules such as ``"pass@1:-2%"`` or ``"misuse_rate:+2pp"``; a breach
    (significant, unless ``require_significance=False``) makes ``result.passed`` false.
    ``pairs``: ``"OLD_MODEL=NEW_MODEL"`` when the runs' models do not pair up by themselves.
    ``across_readings`` compares runs a method read differently (else refused). ``seed``:
    the bootstrap seed (default: ``old``'s study seed). ``out``: also write the files.
    """
    from beyondpass.analysis.headline_compare import compare_headlines, reading_conflicts
    from beyondpass.analysis.regression import analyse_regression, check_gates, parse_gate

    _check_arguments(alpha, seed)
    rules = [fail_on] if isinstance(fail_on, str) else list(fail_on)
    gates = [parse_gate(text) for text in rules]  # bad rules fail before any work
    old_name, new_name = os.fspath(old), os.fspath(new)
    old_run, old_headlines = load_compared(old_name, seed, alpha)
    new_run, new_headlines = load_compared(
        new_name, seed if seed is not None else old_run.seed, alpha
    )
    conflicts = reading_conflicts(old_headlines, new_headlines)
    if conflicts and not across_readings:
        raise ConfigError(
            "the runs were read differently ("
            + "; ".join(conflicts)
            + ") — compare runs made the same way, or pass --across-readings"
        )
    given = [pairs] if isinstance(pairs, str) else list(pairs)
    version_pairs = pair_models(old_run, new_run, given)
    headline_metrics = {key[1] for key in old_headlines.cells}
    asked = [g.metric for g in gates if g.metric not in headline_metrics]
    made = _section_comparisons(old_run, new_run, version_pairs, asked)
    vcs = [vc for _, own in made for vc in own]
    from_sections = {id(vc) for vc in vcs}
    # a section's metric on the benchmarks it compared; the same metric of another arm's
    # benchmark (smells of PSB2 beside RobuNFR's) is still the headlines' to compare
    compared = {(m, b) for vc in vcs for b, _, m in vc.comparisons}
    vcs += compare_headlines(old_headlines, new_headlines, version_pairs, skip=compared)
    if not any(vc.benchmarks for vc in vcs):
        raise DataError(f"{old_name} and {new_name} share no benchmark: nothing to compare")
    check_gates(gates, vcs)
    report = analyse_regression(vcs, gates, require_significance=require_significance)
    result = ComparisonResult(
        old_run=old_name,
        new_run=new_name,
        pairs=[vc.pair.label for vc in vcs],
        alpha=alpha,
        seed=old_run.seed,
        readings=readings(old_headlines, new_headlines),
        notes=reading_notes(old_headlines, new_headlines) + design_notes(old_run, new_run),
        comparisons=delta_rows(report, old_run.seed, from_sections),
        changes=[f.data | {"text": f.text} for f in report.changes],
        trade_offs=[f.data | {"text": f.text} for f in report.trade_offs],
        inconsistencies=[f.data | {"text": f.text} for f in report.inconsistencies],
        gate={
            "rules": [g.text for g in gates],
            "require_significance": require_significance,
            "violations": [f.data | {"text": f.text} for f in report.violations],
            "passed": not report.gate_failed,
        },
        report=report,
        sections=made,
    )
    if out is not None:
        result.write(out)
    return result


def _section_comparisons(
    old_run: Any, new_run: Any, version_pairs: Sequence[Any], asked: Sequence[str]
) -> Made:
    """Each installed method's ``compare`` section with the comparisons it made."""
    from beyondpass import registry

    made: Made = []
    for ref, method in registry.specs("compare_sections"):
        section = registry.resolve(ref, method, needs_extra=False)()
        made.append((section, section.compare(old_run, new_run, version_pairs, asked)))
    return made


def _check_arguments(alpha: object, seed: object) -> None:
    """A precise one-line error for a significance level or seed that is none."""
    if not (isinstance(alpha, float | int) and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise ConfigError(f"alpha is a significance level between 0 and 1, not {alpha!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ConfigError(f"seed must be a whole number, not {seed!r}")


def load_compared(run_dir: str, seed: int | None, alpha: float) -> tuple[ComparedRun, RunHeadlines]:
    """A run as ``compare`` reads it, and its headline cells."""
    from beyondpass.analysis.compare_section import ComparedRun
    from beyondpass.analysis.headline_compare import RunHeadlines
    from beyondpass.analysis.meta import study_seed
    from beyondpass.store.run_store import RunStore

    path = Path(run_dir)
    if not path.is_dir():
        raise DataError(f"run directory {run_dir} does not exist")
    with RunStore(path, create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    if not any(r.result is not None for r in rows):
        raise DataError(f"{run_dir} has no evaluated samples — run or evaluate it before comparing")
    run_seed = seed if seed is not None else study_seed(meta)
    run = ComparedRun(str(path), meta, rows, run_seed, alpha)
    headlines = RunHeadlines.of(str(path), meta, rows, seed=run_seed, alpha=alpha)
    return run, headlines


def pair_models(old: ComparedRun, new: ComparedRun, given: Sequence[str]) -> list[VersionPair]:
    """Which model of ``old`` is compared with which of ``new``: ``given`` (``OLD=NEW``),
    else the only model of each, else the models both runs hold."""
    from beyondpass.analysis.regression import VersionPair

    old_models, new_models = old.models, new.models
    if given:
        pairs = []
        for text in given:
            a, sep, b = text.partition("=")
            if not sep or not a.strip() or not b.strip():
                raise ConfigError(f"--pair {text!r}: write OLD_MODEL=NEW_MODEL")
            a, b = a.strip(), b.strip()
            if a not in old_models:
                raise ConfigError(
                    f"--pair {text!r}: {a!r} is not a model of {old.name} "
                    f"(models: {', '.join(old_models)})"
                )
            if b not in new_models:
                raise ConfigError(
                    f"--pair {text!r}: {b!r} is not a model of {new.name} "
                    f"(models: {', '.join(new_models)})"
                )
            pairs.append(VersionPair(a, b))
        return pairs
    if len(old_models) == 1 and len(new_models) == 1:
        return [VersionPair(old_models[0], new_models[0])]
    shared = [m for m in old_models if m in new_models]
    if shared:
        return [VersionPair(m, m) for m in shared]
    raise ConfigError(
        f"cannot tell which models to compare ({', '.join(old_models)} vs "
        f"{', '.join(new_models)}) — give --pair OLD_MODEL=NEW_MODEL"
    )


def design_notes(old: ComparedRun, new: ComparedRun) -> list[str]:
    """What differs between the runs besides the model (reported, not fatal)."""
    notes = []
    om, nm = old.meta, new.meta
    ob = as_dict(om.get("benchmarks"))
    nb = as_dict(nm.get("benchmarks"))
    for b in sorted(set(ob) & set(nb)):
        ov = as_dict(ob[b]).get("version")
        nv = as_dict(nb[b]).get("version")
        if ov != nv:
            notes.append(f"benchmark {b} differs between the runs (version {ov} vs {nv})")
    only_old = sorted(set(old.benchmarks) - set(new.benchmarks))
    only_new = sorted(set(new.benchmarks) - set(old.benchmarks))
    if only_old or only_new:
        notes.append(
            "benchmarks in one run only are not compared: " + ", ".join(only_old + only_new)
        )
    oc = as_dict(om.get("conditions"))
    nc = as_dict(nm.get("conditions"))
    changed = sorted(c for c in set(oc) & set(nc) if _steps(oc[c]) != _steps(nc[c]))
    if changed:
        notes.append(
            f"{len(changed)} condition(s) have different prompt text in the two runs "
            f"(e.g. {changed[0]}): their differences are not the model's alone"
        )
    missing = sorted(set(oc) ^ set(nc))
    if missing:
        notes.append(f"{len(missing)} condition(s) are in one run only and not compared")
    notes.extend(_timing_notes(om, nm))
    for label, an in (("old", old), ("new", new)):
        if an.meta.get("status") not in (None, "complete"):
            notes.append(
                f"the {label} run is {an.meta.get('status')}: unscored samples are left out"
            )
    return notes


def _timing_notes(old_meta: dict[str, Any], new_meta: dict[str, Any]) -> list[str]:
    """Execution times compare only between runs timed the same way (call_timing.py)."""
    methods = []
    for meta in (old_meta, new_meta):
        executor = as_dict(meta.get("executor"))
        if not executor.get("timing_repeats"):
            return []  # a run without times: nothing to mix up
        methods.append(executor.get("timing"))
    if methods[0] == methods[1]:
        return []
    versions = [m.get("version") if isinstance(m, dict) else "unrecorded" for m in methods]
    return [
        f"the runs timed calls differently (timing method {versions[0]} vs {versions[1]}): "
        "their execution times are not the model's difference alone"
    ]


def _steps(info: Any) -> Any:
    return as_dict(info).get("steps")


def delta_rows(
    report: RegressionReport, seed: int, from_sections: set[int]
) -> list[dict[str, Any]]:
    """One record per compared cell; ``from_sections``: the ids of the comparisons a
    method's ``compare`` section made, which it tabulates itself (``"section": true``)."""
    from beyondpass.analysis.cells import delta_ci
    from beyondpass.analysis.formatting import bench_label
    from beyondpass.analysis.headline import arm_of
    from beyondpass.analysis.metrics import metric_def
    from beyondpass.analysis.regression import meta_of
    from beyondpass.analysis.stats import finite_or_none

    rows = []
    for vc in report.comparisons:
        labels = {g.key: g for g in vc.groups}
        meta = meta_of(vc)
        own_table = id(vc) in from_sections
        for (bench, gkey, metric), c in vc.comparisons.items():
            g = labels[gkey]
            rows.append(
                {
                    "method": vc.method,
                    "reading": vc.reading,
                    "section": own_table,
                    "arm": arm_of(meta, bench, gkey),
                    "pair": vc.pair.label,
                    "old_model": vc.pair.old_model,
                    "new_model": vc.pair.new_model,
                    "benchmark": bench,
                    "benchmark_label": bench_label(bench),
                    "group": gkey,
                    "group_label": g.display_label,
                    "metric": metric,
                    "metric_label": metric_def(metric).label,
                    "unit": metric_def(metric).unit,
                    "old": finite_or_none(c.base.avg),
                    "old_sd": finite_or_none(c.base.sd),
                    "old_ci95": list(c.base.ci) if c.base.ci else None,
                    "new": finite_or_none(c.other.avg),
                    "new_sd": finite_or_none(c.other.sd),
                    "new_ci95": list(c.other.ci) if c.other.ci else None,
                    "delta": finite_or_none(c.delta),
                    "delta_ci95": list(ci) if (ci := delta_ci(c, seed=seed)) else None,
                    "delta_pct": finite_or_none(c.delta_pct),
                    "direction": c.direction,
                    "test": c.primary.test,
                    "pairs": c.primary.n,
                    "p": finite_or_none(c.primary.p),
                    "p_holm": finite_or_none(c.p_adj),
                    "effect_name": c.primary.effect_name,
                    "effect": finite_or_none(c.primary.effect),
                    "paired_t_p": finite_or_none(c.t_paired.p),
                    "seed_t_p": finite_or_none(c.t_seed.p),
                    "significant": c.significant,
                }
            )
    return rows


def readings(old: RunHeadlines, new: RunHeadlines) -> dict[str, dict[str, dict[str, str]]]:
    """Per method both runs hold, the reading each was read in."""
    held = sorted((old.methods() & new.methods()) & (set(old.readings) | set(new.readings)))
    return {m: {"old": old.readings.get(m, {}), "new": new.readings.get(m, {})} for m in held}


def reading_notes(old: RunHeadlines, new: RunHeadlines) -> list[str]:
    """What ``compare`` read each method's values in, said before anything else."""
    from beyondpass.analysis.headline import reading_text

    notes = []
    for method, both in readings(old, new).items():
        a, b = reading_text(both["old"]), reading_text(both["new"])
        if a == b:
            notes.append(f"{method}: both runs read with {a}, as they were made")
        else:
            notes.append(
                f"{method}: the old run read with {a}, the new with {b} (--across-readings)"
            )
    return notes


__all__ = [
    "EXIT_GATE_FAILED",
    "ComparisonResult",
    "compare",
    "delta_rows",
    "design_notes",
    "load_compared",
    "pair_models",
    "reading_notes",
    "readings",
]
