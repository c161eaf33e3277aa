"""Shared by ``run``, ``evaluate`` and ``rescore``: turn an answer into a stored sample, and
let each evaluator score the stored samples it has not scored yet.

Scoring reads samples back from the store rather than from memory, so a run interrupted
between answering and scoring resumes exactly where it stopped; each evaluator's result is
its own row, stored as soon as it is known (docs/store.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from beyondpass.benchmarks.task import FunctionCall, Task
from beyondpass.errors import ConfigError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator
from beyondpass.extraction import extract
from beyondpass.extraction.result import Extraction
from beyondpass.store.run_store import EvaluationRecord, RunStore, SampleRecord
from beyondpass.study.legacy_samples import legacy_function_call
from beyondpass.study.progress import NullProgress, Progress


def make_sample(
    key: str,
    task: Task,
    model: str,
    condition: str,
    index: int,
    answer: str,
    transcript: list[dict[str, Any]] | None = None,
    generation: dict[str, Any] | None = None,
    answer_format: str | None = None,
) -> SampleRecord:
    """The stored sample of ``answer``, its code read once, in ``answer_format`` (the plan's;
    ``None``: the benchmark's default, for answers no plan asked for)."""
    extraction = extract(answer, task, answer_format, condition)
    return SampleRecord(
        key=key,
        benchmark=task.benchmark,
        task_id=task.task_id,
        model=model,
        condition=condition,
        sample_index=index,
        raw=answer,
        code=extraction.code,
        program=extraction.program,
        extraction=_stored_extraction(extraction),
        transcript=transcript or [],
        generation=generation or {},
    )


def _stored_extraction(extraction: Extraction, *, whole: bool = False) -> dict[str, Any]:
    """How a sample keeps its extraction (code and program are columns of their own); the
    other reading of a multi-block answer (``alternative``) is kept whole, so its verdict
    can be compared when the sample is scored or rescored."""
    out: dict[str, Any] = {
        "status": extraction.status,
        "kind": extraction.kind,
        "error": extraction.error,
        "notes": list(extraction.notes),
        **({"function": extraction.function.as_dict()} if extraction.function else {}),
    }
    if whole:
        out.update(code=extraction.code, program=extraction.program)
    if extraction.candidates > 1:
        out["candidates"] = extraction.candidates
    if extraction.alternative is not None:
        out["alternative"] = _stored_extraction(extraction.alternative, whole=True)
    return out


def _read_extraction(e: dict[str, Any], code: str, program: str, function: Any) -> Extraction:
    other = e.get("alternative")
    return Extraction(
        status=e["status"],
        code=code,
        program=program,
        kind=e.get("kind", "none"),
        error=e.get("error", ""),
        notes=tuple(e.get("notes", ())),
        function=function,
        candidates=int(e.get("candidates", 1)),
        alternative=_read_extraction(
            other,
            str(other.get("code", "")),
            str(other.get("program", "")),
            FunctionCall.from_dict(other.get("function")),
        )  # fmt: skip
        if isinstance(other, dict)
        else None,
    )


def extraction_of(sample: SampleRecord, task: Task | None = None) -> Extraction:
    """The stored sample's extraction; with its ``task``, a function-mode call that an
    older release stored as program text is read back (:mod:`legacy_samples`)."""
    e = sample.extraction
    function = FunctionCall.from_dict(e.get("function"))
    if function is None and task is not None and e.get("status") == "ok":
        function = legacy_function_call(sample.program, task)
    return _read_extraction(e, sample.code, sample.program, function)


def candidate_of(sample: SampleRecord, task: Task) -> Candidate:
    """What an evaluator scores: the stored sample with its task."""
    return Candidate(task, extraction_of(sample, task), sample.raw, sample.condition)


def score_pending(
    store: RunStore,
    tasks: Mapping[tuple[str, str], Task],
    evaluators: Sequence[Evaluator],
    keys: Sequence[str],
    progress: Progress | None = None,
    label: str = "evaluate",
    *,
    redo_before: Mapping[str, float] | None = None,
) -> int:
    """Run each evaluator on the samples among ``keys`` it has not scored, one after the
    other (the verdict evaluator first), storing each evaluation the moment the evaluator
    reports it (per sample or per batch, as its ``on_result`` fires): a kill loses only
    the work in flight. Returns how many samples got a new evaluation.

    ``redo_before`` maps an evaluator to a time: its evaluations stored before then count
    as not done (``rescore`` recomputing it, resumably).
    """
    check_evaluators(store, evaluators)
    progress = progress or NullProgress()
    redo_before = redo_before or {}
    register_evaluators(store, evaluators)
    loaded: dict[str, SampleRecord | None] = {}
    touched: set[str] = set()
    for ev in evaluators:
        done = store.evaluation_keys(ev.name, since=redo_before.get(ev.name))
        pending = [k for k in dict.fromkeys(keys) if k not in done]
        for k in pending:
            if k not in loaded:
                loaded[k] = store.get_sample(k)
        samples = [s for k in pending if (s := loaded[k]) is not None]
        if not samples:
            continue
        step = label if ev.decides_verdict else f"{label}: {ev.name}"
        progress.start(step, len(samples))
        candidates = [candidate_of(s, tasks[(s.benchmark, s.task_id)]) for s in samples]

        def store_one(
            i: int,
            evaluation: Evaluation,
            ev: Evaluator = ev,
            samples: list[SampleRecord] = samples,
            step: str = step,
        ) -> None:
            store.put_evaluation(evaluation_record(samples[i].key, ev, evaluation))
            touched.add(samples[i].key)
            progress.advance(step)

        ev.evaluate(candidates, on_result=store_one)
    return len(touched)


def check_evaluators(store: RunStore, evaluators: Sequence[Evaluator]) -> None:
    """Distinct names; one verdict evaluator, listed first or already in the run; no metric
    declared by two of them (the store checks against the run's other evaluators)."""
    names = [ev.name for ev in evaluators]
    if len(set(names)) != len(names):
        raise ConfigError(f"an evaluator is listed twice: {names}")
    if any(ev.decides_verdict for ev in evaluators[1:]):
        raise ConfigError("the evaluator deciding the verdict must come first")
    if not (evaluators and evaluators[0].decides_verdict) and not any(
        e.decides_verdict for e in store.evaluators()
    ):
        raise ConfigError("no evaluator decides the verdict of this run")
    owner: dict[str, str] = {}
    for ev in evaluators:
        for metric in ev.metrics:
            if owner.setdefault(metric, ev.name) != ev.name:
                raise ConfigError(
                    f"evaluators {owner[metric]!r} and {ev.name!r} both declare metric "
                    f"{metric!r} — metric names must be unique across evaluators"
                )


def register_evaluators(store: RunStore, evaluators: Sequence[Evaluator]) -> None:
    """Record each evaluator (name, version, role, metrics, metadata) in the run; the store
    refuses a second verdict evaluator or a metric another evaluator already produces."""
    for ev in evaluators:
        store.register_evaluator(
            ev.name,
            version=ev.version,
            decides_verdict=ev.decides_verdict,
            metrics=ev.metrics,
            metadata=ev.metadata(),
        )


def evaluation_record(key: str, ev: Evaluator, evaluation: Evaluation) -> EvaluationRecord:
    """How the store keeps one evaluator's evaluation of one sample."""
    verdict = ev.decides_verdict
    return EvaluationRecord(
        key=key,
        evaluator=ev.name,
        version=ev.version,
        metrics=dict(evaluation.metrics),
        details=dict(evaluation.details),
        status=str(evaluation.status) if verdict else None,
        # None from a verdict evaluator: no test stands behind the verdict (kept as such)
        passed=None if not verdict or evaluation.passed is None else bool(evaluation.passed),
    )


def evaluator_metadata(evaluators: Sequence[Evaluator]) -> list[dict[str, Any]]:
    return [ev.metadata() for ev in evaluators]


__all__ = [
    "check_evaluators",
    "evaluation_record",
    "evaluator_metadata",
    "extraction_of",
    "make_sample",
    "register_evaluators",
    "score_pending",
]
