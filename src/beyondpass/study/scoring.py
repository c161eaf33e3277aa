"""Shared by ``run`` and ``evaluate``: turn an answer into a stored sample, and score the
stored samples that have no result yet.

Scoring reads samples back from the store rather than from memory, so a run interrupted
between answering and scoring resumes exactly where it stopped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator
from beyondpass.extraction import extract
from beyondpass.extraction.result import Extraction
from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord
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
) -> SampleRecord:
    extraction = extract(answer, task)
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
        extraction={
            "status": extraction.status,
            "kind": extraction.kind,
            "error": extraction.error,
            "notes": list(extraction.notes),
        },
        transcript=transcript or [],
        generation=generation or {},
    )


def extraction_of(sample: SampleRecord) -> Extraction:
    e = sample.extraction
    return Extraction(
        status=e["status"],
        code=sample.code,
        program=sample.program,
        kind=e.get("kind", "none"),
        error=e.get("error", ""),
        notes=tuple(e.get("notes", ())),
    )


def score_pending(
    store: RunStore,
    tasks: Mapping[tuple[str, str], Task],
    evaluators: Sequence[Evaluator],
    keys: Sequence[str],
    progress: Progress | None = None,
    label: str = "evaluate",
) -> int:
    """Evaluate the samples among ``keys`` that have no result; returns how many were scored.

    The first evaluator decides the verdict; later ones add metrics. Each result is written
    as soon as all evaluators are done with that sample.
    """
    progress = progress or NullProgress()
    done = store.result_keys()
    samples = [s for k in keys if k not in done and (s := store.get_sample(k)) is not None]
    if not samples:
        return 0
    progress.start(label, len(samples))
    candidates = [
        Candidate(tasks[(s.benchmark, s.task_id)], extraction_of(s), s.raw) for s in samples
    ]
    extra: list[list[Evaluation]] = [ev.evaluate(candidates) for ev in evaluators[1:]]

    def store_one(i: int, verdict: Evaluation) -> None:
        metrics = dict(verdict.metrics)
        details = dict(verdict.details)
        for j, ev in enumerate(evaluators[1:]):
            metrics.update(extra[j][i].metrics)
            if extra[j][i].details:
                details[ev.name] = extra[j][i].details
        store.put_result(
            ResultRecord(
                key=samples[i].key,
                status=str(verdict.status),
                passed=bool(verdict.passed),
                metrics=metrics,
                details=details,
            )
        )
        progress.advance(label)

    evaluators[0].evaluate(candidates, on_result=store_one)
    return len(samples)


def evaluator_metadata(evaluators: Sequence[Evaluator]) -> list[dict[str, Any]]:
    return [ev.metadata() for ev in evaluators]


__all__ = ["evaluator_metadata", "extraction_of", "make_sample", "score_pending"]
