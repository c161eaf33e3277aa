"""Read a run from Python: :func:`open_run` gives its design, rows, evaluations and headline
metrics, typed, and as pandas DataFrames.

A run directory (``beyondpass run`` or ``evaluate``, or :func:`beyondpass.run` /
:func:`beyondpass.evaluate`) is read from its store once, when opened: the object is a
snapshot, and holds no database open (reopen to see work done since). Everything is read
the way ``report`` and ``compare`` read it, never recomputed another way: a sample's result
is the store's merged result (:meth:`~beyondpass.store.run_store.RunStore.rows`), the
headline metrics are :func:`beyondpass.analysis.headline.headline_cells` with the run's
seed, and the group summaries :func:`beyondpass.analysis.summary.summarize`.

Rows come at two grains: :attr:`Run.rows`, one per sample with every evaluator's metrics
(the shape of ``results.jsonl`` and of the report); :attr:`Run.evaluations`, one per sample
and evaluator, each with that evaluator's own metrics and version.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from beyondpass.analysis.meta import as_dict, study_seed
from beyondpass.errors import ConfigError, DataError
from beyondpass.store.run_store import (
    EvaluationRecord,
    EvaluatorRecord,
    ResultRecord,
    Row,
    RunStore,
)

if TYPE_CHECKING:
    import pandas

    from beyondpass.analysis.headline import HeadlineCell
    from beyondpass.analysis.summary import GroupSummary

PathLike = str | os.PathLike[str]
Grain = Literal["sample", "evaluation", "headline"]

#: a row's identity columns, first in every DataFrame
ID_COLUMNS = ("key", "benchmark", "task_id", "model", "condition", "sample_index")
_SAMPLE_COLUMNS = ("status", "passed", "truncated", "message", "extraction", "known_broken")
_TEXT_COLUMNS = ("prompt", "raw", "code", "program")
_EVALUATION_COLUMNS = ("evaluator", "version", "decides_verdict", "status", "passed")


@dataclass(frozen=True)
class RunDesign:
    """What the run recorded of its design: the study (or the evaluated file), benchmarks
    and their versions, models, prompt conditions, sampling and evaluators."""

    name: str
    kind: str  # "study" (run) or "evaluate"
    seed: int
    status: str | None  # "complete", "incomplete", or None when not recorded
    description: str = ""
    study_file: str | None = None
    config_hash: str | None = None
    #: the study file's tables as written ({} for an evaluation)
    config: dict[str, Any] = field(default_factory=dict)
    benchmarks: dict[str, dict[str, Any]] = field(default_factory=dict)
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    conditions: dict[str, dict[str, Any]] = field(default_factory=dict)
    sampling: dict[str, Any] = field(default_factory=dict)
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)
    evaluators: tuple[str, ...] = ()

    @classmethod
    def of(cls, meta: dict[str, Any], fallback_name: str) -> RunDesign:
        study = as_dict(meta.get("study"))
        evaluators = meta.get("evaluators")
        return cls(
            name=str(study.get("name") or fallback_name),
            kind=str(meta.get("kind") or "study"),
            seed=study_seed(meta),
            status=meta.get("status"),
            description=str(study.get("description") or ""),
            study_file=study.get("study_file"),
            config_hash=study.get("config_hash"),
            config=as_dict(study.get("config")),
            benchmarks=as_dict(meta.get("benchmarks")),
            models=as_dict(meta.get("models")),
            conditions=as_dict(meta.get("conditions")),
            sampling=as_dict(meta.get("sampling")),
            arms=as_dict(meta.get("arms")),
            evaluators=tuple(
                str(as_dict(e).get("evaluator"))
                for e in (evaluators if isinstance(evaluators, list) else [])
                if as_dict(e).get("evaluator")
            ),
        )


@dataclass(frozen=True)
class RunRow:
    """One sample: what was asked, the answer and its code, the verdict, every metric."""

    key: str
    benchmark: str
    task_id: str
    model: str
    condition: str
    sample_index: int
    status: str | None  # None: not scored yet
    passed: bool | None  # None also where no test stands behind the verdict (a label)
    metrics: dict[str, Any]  # every evaluator's, merged
    details: dict[str, Any]  # the verdict's; another evaluator's under its name
    prompt: str | None  # the last user message asked (None: answers made elsewhere)
    raw: str  # the model's whole answer
    code: str  # the code extracted from it
    program: str  # the program that was run
    extraction: dict[str, Any]  # status, kind, error, notes
    known_broken: bool  # the benchmark's own test of this task is known to be wrong
    truncated: bool  # the answer was cut at the token budget
    transcript: list[dict[str, Any]] = field(default_factory=list, repr=False)
    generation: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def evaluated(self) -> bool:
        return self.status is not None

    @property
    def message(self) -> str:
        """The verdict's one-line explanation ("" when none)."""
        return str(self.details.get("message", "") or "")

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages of the last request asked for this sample."""
        return list(self.transcript[-1].get("messages", [])) if self.transcript else []


@dataclass(frozen=True)
class EvaluationRow:
    """One evaluator's scores of one sample; ``status``/``passed`` are the sample's verdict
    (decided by the verdict evaluator, whichever row this is)."""

    key: str
    benchmark: str
    task_id: str
    model: str
    condition: str
    sample_index: int
    evaluator: str
    version: str
    decides_verdict: bool
    status: str | None
    passed: bool | None
    metrics: dict[str, Any]  # this evaluator's own
    details: dict[str, Any] = field(repr=False, default_factory=dict)
    created_at: float = 0.0


@dataclass(frozen=True)
class Headline:
    """One headline metric of one benchmark x model x group, with its 95% bootstrap CI over
    its units (tasks, questions, rows), in display scale (a share in %)."""

    method: str
    metric: str
    label: str
    unit: str
    higher_is_better: bool
    benchmark: str
    model: str
    group: str  # a prompt condition, or "all" (every condition pooled)
    arm: str  # the study arm that asked it ("" without arms)
    value: float | None
    ci95: tuple[float, float] | None
    n_units: int
    cell: HeadlineCell = field(repr=False, compare=False)


class Run:
    """A run directory, read: :attr:`design`, :attr:`rows`, :attr:`evaluations`,
    :meth:`headlines`, :meth:`groups`, and :meth:`to_pandas` of any of them."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise DataError(f"run directory {self.path} does not exist")
        with RunStore(self.path, create=False) as store:
            self.meta: dict[str, Any] = store.all_meta()
            self._store_rows: list[Row] = list(store.rows())
            self.evaluators: tuple[EvaluatorRecord, ...] = tuple(store.evaluators())
            stored = store.evaluations()
        self.design = RunDesign.of(self.meta, self.path.name)
        self.rows: tuple[RunRow, ...] = tuple(_run_row(r, self.meta) for r in self._store_rows)
        self.evaluations: tuple[EvaluationRow, ...] = _evaluation_rows(
            stored, self._store_rows, self.evaluators
        )

    def __repr__(self) -> str:
        scored = sum(r.evaluated for r in self.rows)
        return (
            f"<Run {str(self.path)!r}: {self.design.kind} {self.design.name!r}, "
            f"{len(self.rows)} samples, {scored} scored>"
        )

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def store_rows(self) -> list[Row]:
        """The rows as the store gives them (``Row(sample, result)``), for the analysis
        functions of :mod:`beyondpass.analysis`."""
        return list(self._store_rows)

    def headlines(self, *, seed: int | None = None) -> list[Headline]:
        """Every method's headline metrics with their 95% CIs, as the report's profile and
        ``compare`` compute them (bootstrap seed: the study's, unless given)."""
        from beyondpass.analysis.headline import arm_of, headline_cells
        from beyondpass.analysis.metrics import metric_def

        chosen = self.design.seed if seed is None else _seed(seed)
        out = []
        for cell in headline_cells(self._store_rows, self.meta, seed=chosen):
            d = metric_def(cell.metric)
            out.append(
                Headline(
                    method=cell.method,
                    metric=cell.metric,
                    label=d.label,
                    unit=d.unit,
                    higher_is_better=d.higher_is_better,
                    benchmark=cell.benchmark,
                    model=cell.model,
                    group=cell.group,
                    arm=arm_of(self.meta, cell.benchmark, cell.group),
                    value=cell.stats.avg,
                    ci95=cell.stats.ci,
                    n_units=cell.stats.n_tasks,
                    cell=cell,
                )
            )
        return out

    def groups(self, *, seed: int | None = None) -> list[GroupSummary]:
        """One summary per benchmark x model x condition: pass@k, the pass@1 CI over tasks
        and the status counts, as the report's results table shows them."""
        from beyondpass.analysis.summary import summarize

        chosen = self.design.seed if seed is None else _seed(seed)
        return summarize(self._store_rows, seed=chosen)

    def records(self, per: Grain = "sample") -> list[dict[str, Any]]:
        """The rows as flat dicts, one per sample (``per="sample"``), per sample and
        evaluator (``"evaluation"``) or per headline cell (``"headline"``); each metric is
        a key of its own. :meth:`to_pandas` is these in a DataFrame."""
        return self._table(per)[1]

    def to_pandas(self, per: Grain = "sample") -> pandas.DataFrame:
        """:meth:`records` as a DataFrame (needs ``pip install 'beyondpass[pandas]'``)."""
        from beyondpass.api.frames import records_frame, require_pandas

        require_pandas()  # before the work, so a missing pandas is said at once
        columns, records = self._table(per)
        return records_frame(records, columns)

    dataframe = to_pandas

    def _table(self, per: Grain) -> tuple[list[str], list[dict[str, Any]]]:
        if per == "sample":
            return _sample_table(self.rows, self.evaluators)
        if per == "evaluation":
            return _evaluation_table(self.evaluations, self.evaluators)
        if per == "headline":
            return _headline_table(self.headlines())
        raise ConfigError(f"per={per!r}: choose 'sample', 'evaluation' or 'headline'")


def open_run(path: PathLike) -> Run:
    """The run in directory ``path``, read (a run made by an older release is migrated in
    place first, as every command does; a backup of it is kept)."""
    if not isinstance(path, str | os.PathLike):
        raise ConfigError(f"a run is a directory path, not {type(path).__name__}")
    return Run(path)


# -- reading ----------------------------------------------------------------------------------
def _run_row(row: Row, meta: dict[str, Any]) -> RunRow:
    from beyondpass.models.base import cut_off

    s, r = row.sample, row.result
    broken = as_dict(as_dict(as_dict(meta.get("benchmarks")).get(s.benchmark)).get("known_broken"))
    return RunRow(
        **_identity(s),
        status=r.status if r else None,
        passed=_passed(r),
        metrics=dict(r.metrics) if r else {},
        details=dict(r.details) if r else {},
        prompt=_prompt(s.transcript),
        raw=s.raw,
        code=s.code,
        program=s.program,
        extraction=dict(s.extraction),
        known_broken=s.task_id in broken,
        truncated=cut_off(s.generation),
        transcript=list(s.transcript),
        generation=dict(s.generation),
    )


def _identity(sample: Any) -> dict[str, Any]:
    """A stored sample's identity columns (:data:`ID_COLUMNS`), as every row kind has them."""
    return {name: getattr(sample, name) for name in ID_COLUMNS}


def _passed(result: ResultRecord | None) -> bool | None:
    """The verdict's pass/fail; None while not scored, or where no test stands behind it
    (a scored edit, a misuse check, a label), as ``results.jsonl`` writes it."""
    return result.passed if result is not None and result.checked else None


def _prompt(transcript: list[dict[str, Any]]) -> str | None:
    """The last user message of the last step (what the answer answers)."""
    if not transcript:
        return None
    for message in reversed(transcript[-1].get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else str(content)
    return None


def _evaluation_rows(
    stored: list[EvaluationRecord], rows: list[Row], evaluators: tuple[EvaluatorRecord, ...]
) -> tuple[EvaluationRow, ...]:
    """One row per stored evaluation, in the order of the samples, verdict evaluator first."""
    by_key = {r.sample.key: r for r in rows}
    position = {e.name: i for i, e in enumerate(evaluators)}
    verdicts = {e.name for e in evaluators if e.decides_verdict}
    order = {r.sample.key: i for i, r in enumerate(rows)}
    out = []
    for e in sorted(stored, key=lambda e: (order.get(e.key, -1), position.get(e.evaluator, -1))):
        row = by_key.get(e.key)
        if row is None:  # an evaluation of no stored sample: nothing to tie it to
            continue
        s, r = row.sample, row.result
        out.append(
            EvaluationRow(
                **_identity(s),
                evaluator=e.evaluator,
                version=e.version,
                decides_verdict=e.evaluator in verdicts,
                status=r.status if r else None,
                passed=_passed(r),
                metrics=dict(e.metrics),
                details=dict(e.details),
                created_at=e.created_at,
            )
        )
    return tuple(out)


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be a whole number, not {seed!r}")
    return seed


# -- flat tables ------------------------------------------------------------------------------
def _metric_names(
    evaluators: tuple[EvaluatorRecord, ...], found: list[dict[str, Any]]
) -> list[str]:
    """Every metric, in the order the evaluators declare them, then any other found."""
    declared = [m for e in evaluators for m in e.metrics]
    return list(dict.fromkeys([*declared, *(k for metrics in found for k in metrics)]))


def _metric_columns(names: list[str], taken: tuple[str, ...]) -> dict[str, str]:
    """Each metric's column: its name, or ``metric:NAME`` where a fixed column has it."""
    return {m: (f"metric:{m}" if m in taken else m) for m in names}


def _recorded_fields(rows: tuple[RunRow, ...]) -> list[str]:
    """What verdict evaluators record per sample in their details and ``results.jsonl``
    carries (``functional``: ``block_choice``), where some row has it."""
    from beyondpass import registry

    declared = [
        f
        for spec, _ in registry.specs("evaluators")
        if spec.decides_verdict
        for f in spec.result_fields
    ]
    return [f for f in dict.fromkeys(declared) if any(f in r.details for r in rows)]


def _sample_table(
    rows: tuple[RunRow, ...], evaluators: tuple[EvaluatorRecord, ...]
) -> tuple[list[str], list[dict[str, Any]]]:
    recorded = [f for f in _recorded_fields(rows) if f not in (*ID_COLUMNS, *_SAMPLE_COLUMNS)]
    fixed = (*ID_COLUMNS, *_SAMPLE_COLUMNS, *recorded, *_TEXT_COLUMNS)
    names = _metric_columns(_metric_names(evaluators, [r.metrics for r in rows]), fixed)
    columns = [*ID_COLUMNS, *_SAMPLE_COLUMNS, *names.values(), *recorded, *_TEXT_COLUMNS]
    records = []
    for r in rows:
        record: dict[str, Any] = {c: getattr(r, c) for c in ID_COLUMNS}
        record.update(
            status=r.status,
            passed=r.passed,
            truncated=r.truncated,
            message=r.message,
            extraction=r.extraction.get("status"),
            known_broken=r.known_broken,
        )
        record.update({column: r.metrics.get(m) for m, column in names.items()})
        record.update({f: r.details.get(f) for f in recorded})
        record.update({c: getattr(r, c) for c in _TEXT_COLUMNS})
        records.append(record)
    return columns, records


def _evaluation_table(
    rows: tuple[EvaluationRow, ...], evaluators: tuple[EvaluatorRecord, ...]
) -> tuple[list[str], list[dict[str, Any]]]:
    fixed = (*ID_COLUMNS, *_EVALUATION_COLUMNS, "created_at")
    names = _metric_columns(_metric_names(evaluators, [r.metrics for r in rows]), fixed)
    columns = [*ID_COLUMNS, *_EVALUATION_COLUMNS, *names.values(), "created_at"]
    records = []
    for r in rows:
        record = {c: getattr(r, c) for c in (*ID_COLUMNS, *_EVALUATION_COLUMNS)}
        record.update({column: r.metrics.get(m) for m, column in names.items()})
        record["created_at"] = r.created_at
        records.append(record)
    return columns, records


def _headline_table(cells: list[Headline]) -> tuple[list[str], list[dict[str, Any]]]:
    columns = ["method", "metric", "label", "unit", "higher_is_better", "benchmark", "model",
               "group", "arm", "value", "ci95_low", "ci95_high", "n_units"]  # fmt: skip
    records = []
    for h in cells:
        record = {c: getattr(h, c) for c in columns if hasattr(h, c)}
        record["ci95_low"], record["ci95_high"] = h.ci95 if h.ci95 else (None, None)
        records.append({c: record[c] for c in columns})
    return columns, records


__all__ = [
    "EvaluationRow",
    "Headline",
    "Run",
    "RunDesign",
    "RunRow",
    "open_run",
]
