"""RobuNFR's static NFR metrics (seed section 3.2) for every candidate, added to its result.

Per sample, on the candidate program (``Extraction.program``: what the executor runs, without
the benchmark's tests — see docs/nfr-metrics.md for why the program and not the raw answer):

- ``loc`` and ``exception_handling``: :mod:`.code_metrics`;
- ``pylint_refactor`` / ``pylint_convention``: pylint's Refactor / Convention message counts
  (code smells / readability issues), from :mod:`pylint_batch` (pylint run by
  :mod:`beyondpass.analysers`);
- ``smell_density``, ``unreadability_density``, ``exception_density``: those counts per 10 LOC.

The execution-time metric of the seed is the verdict evaluator's ``exec_time_ms`` (timing
repeats), with ``exec_time_ref`` its twin in reference units (execution/call_timing.py);
this evaluator never runs candidate code. Samples without code (``no_code``) or
whose program does not compile (``syntax_error``) get no metrics at all: they are counted by
their status instead (seed 5.2.3). A metric that cannot be computed is absent, never zero.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution import BatchJob, BatchPool, LocalPool
from beyondpass.methods.robunfr import NFR_METRICS, TIMING_REPEATS  # noqa: F401 - re-exported
from beyondpass.methods.robunfr.evaluators.code_metrics import EXCEPTION_DEFINITION, LOC_DEFINITION
from beyondpass.methods.robunfr.evaluators.pylint_batch import (
    FileAnalysis,
    LintPool,
    LintSettings,
    analyse_batch,
    configuration,
    content_key,
)

PER_LOC = 10  # densities are per 10 lines of code, as in the seed


class NfrEvaluator(Evaluator):
    """Adds static NFR metrics; never decides a verdict.

    ``dedupe`` analyses identical programs once (their metrics are identical by construction:
    same text, same module name, same configuration); the programs go to ``pool`` (the run's
    batch pool: in this process, where ``workers`` pylint processes share the batches, or on
    Ray, ``batch_size`` programs per task).
    """

    name = "nfr"
    decides_verdict = False
    version = "1"
    metrics = NFR_METRICS

    def __init__(
        self,
        workers: int | None = None,
        *,
        dedupe: bool = True,
        batch_size: int = 512,
        file_timeout_s: float = 60.0,
        memory_mb: int = 4096,
        pool: BatchPool | None = None,
    ) -> None:
        self.workers = workers or min(4, os.cpu_count() or 1)
        self.dedupe = dedupe
        self.batches = pool or LocalPool()
        self.settings = LintSettings(batch_size, file_timeout_s, memory_mb)
        self.pool = LintPool(
            self.workers,
            batch_size=batch_size,
            file_timeout_s=file_timeout_s,
            memory_mb=memory_mb,
        )
        self._configuration: dict[str, Any] | None = None

    def metadata(self) -> dict[str, Any]:
        if self._configuration is None:
            with tempfile.TemporaryDirectory(prefix="beyondpass-pylint-config-") as tmp:
                self._configuration = configuration(Path(tmp))
        return {
            "evaluator": self.name,
            "metrics": list(NFR_METRICS),
            "analysed": "Extraction.program (the candidate program, without the tests)",
            "loc": LOC_DEFINITION,
            "exception_handling": EXCEPTION_DEFINITION,
            "density": f"count / loc * {PER_LOC}; absent when loc is 0",
            "pylint": self._configuration,
            "run": {
                **{k: v for k, v in self.pool.pylint.record().items() if k != "pylintrc"},
                "dedupe_identical_programs": self.dedupe,
            },
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out: list[Evaluation | None] = [None] * len(candidates)
        waiting: dict[str, list[int]] = {}
        sources: dict[str, str] = {}  # one program per key, in first-seen order
        for i, cand in enumerate(candidates):
            ext = cand.extraction
            if ext.status != "ok" or cand.task.language != "python":
                reason = (
                    f"no NFR metrics: {ext.status}"
                    if ext.status != "ok"
                    else f"no NFR metrics for {cand.task.language}"
                )
                out[i] = Evaluation(details={"skipped": reason})
                if on_result:
                    on_result(i, out[i])  # type: ignore[arg-type]
                continue
            key = content_key(ext.program)
            if not self.dedupe:
                key = f"{key}_{i}"
            sources[key] = ext.program
            waiting.setdefault(key, []).append(i)

        keys = list(sources)

        def done(k: int, analysis: FileAnalysis) -> None:
            for i in waiting[keys[k]]:
                out[i] = nfr_evaluation(analysis)
                if on_result:
                    on_result(i, out[i])  # type: ignore[arg-type]

        self.batches.map(self.job(), list(sources.items()), done)
        return out  # type: ignore[return-value]

    def job(self) -> BatchJob:
        """The NFR metrics as batch work: pylint (supervised workers), LOC, exceptions."""
        return BatchJob(
            analyse_batch,
            self.settings,
            "RobuNFR's NFR metrics",
            tools=("pylint",),
            local_cpus=self.workers,
            batch_size=self.settings.batch_size,
            item_timeout_s=self.settings.file_timeout_s,
        )


def nfr_evaluation(analysis: FileAnalysis) -> Evaluation:
    """Metrics and audit details of one analysed program."""
    metrics: dict[str, Any] = {}
    loc = analysis.loc
    if loc is not None:
        metrics["loc"] = loc
    counts = analysis.counts
    if counts is not None:
        metrics["pylint_refactor"] = counts["refactor"]
        metrics["pylint_convention"] = counts["convention"]
    if analysis.exception_handling is not None:
        metrics["exception_handling"] = analysis.exception_handling
    if loc:  # a density needs at least one line of code
        for name, count in (
            ("smell_density", "pylint_refactor"),
            ("unreadability_density", "pylint_convention"),
            ("exception_density", "exception_handling"),
        ):
            if count in metrics:
                metrics[name] = metrics[count] * PER_LOC / loc
    details: dict[str, Any] = {}
    if counts is not None:
        details["pylint_counts"] = counts
        details["pylint_messages"] = [f"{line}:{symbol}" for symbol, line in analysis.messages]
    if analysis.suppressed:
        details["suppressed_by_pragmas"] = analysis.suppressed
    if analysis.file_ignored:
        details["file_ignored"] = True
    if analysis.pylint_error:
        details["pylint_error"] = analysis.pylint_error
    if analysis.code_error:
        details["code_error"] = analysis.code_error
    return Evaluation(metrics=metrics, details=details)
