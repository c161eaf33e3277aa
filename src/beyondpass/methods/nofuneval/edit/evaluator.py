"""The ``nofuneval-edit`` evaluator: DiffBLEU of each edited program against the commit's,
and, on runtime-efficiency rows, correctness and speed-up on the row's CodeNet cases.

It decides the verdict of NoFunEdit tasks: ``no_code`` when no program was read;
otherwise, on tasks without cases, ``scored``: nothing about the edit's behaviour was
checked, only its DiffBLEU, so it neither passed nor failed (``passed`` is None, and pass@k
is not computed over it, nor over a ``no_code`` answer to such a task); metric ``edited``
is 1 for a real edit (non-empty and different from the source after comment and blank-line
removal), 0 for a no-op. Runtime-efficiency tasks (tasks with I/O cases) run the edit and
the row's source in the executor (``runtime.py``, ``speedup.py``; option ``run = false``:
not at all, and the edit is only scored): an edit that fails a case gets the executor's
status (``failed``, ``error``, ``timeout``, ...), a correct one ``passed`` or, for a no-op
edit, ``failed``. The executor is the one the command was
given (``EvaluatorSpec.runs_code``: ``run``, ``evaluate`` and ``rescore`` build it from
``--executor``/``--isolation`` alike) and is recorded with the results (``executor`` in the
metadata, executor and isolation in each sample's timing record); without one, a runtime
row is a one-line error, never a sandbox of another kind started here. Each sample's
timing record also names the node and CPU model that ran its program and its source; a
speed-up is computed only from times of one node (``speedup.other_nodes``). Metrics
``speedup``, ``runtime_correct``, ``runtime_improved`` (every such sample has them, a sample
without code scoring 1.0 / 0 / 0, so score@k,n sees all n samples of a row), and details
with the timing method, the interpreter and the runs per case.

Each row's source is run and timed once per evaluator, i.e. once per study run however
many samples, prompts and models ask about it: the times are kept in the evaluator
(``_sources``) and every sample's details record the source times it was compared with, so
each stored speed-up can be checked on its own. In a study run the times are also written
to the run's folder (``program_times.py``), so a resumed run compares its new samples with
the same source times instead of timing the sources again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pydantic

from beyondpass.evaluators.base import (
    SCORED,
    Candidate,
    Evaluation,
    Evaluator,
    OnEvaluation,
)


class EditOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    #: runtime efficiency: timed runs per CodeNet case for the speed-up (0: correctness only)
    runs: int = pydantic.Field(default=25, ge=0, le=1000, strict=True)
    #: ``nofuneval``: NoFunEval's output comparison (1e-3, exit status and extra lines
    #: ignored) and wall-clock timing, for runtime rows (docs/nofuneval.md)
    compat: Literal["nofuneval"] | None = None
    #: runtime efficiency: run the edits at all (``False``: DiffBLEU alone, nothing runs,
    #: as ``nofuneval score --no-run``)
    run: bool = True
    #: where the sources' times are kept (default: the run's folder); ``nofuneval table1``
    #: names one folder for all its files, so each row's source is timed once for the table
    times_dir: str | None = None


class DiffBleuEvaluator(Evaluator):
    name = "nofuneval-edit"
    decides_verdict = True
    version = "3"
    metrics = (
        "diffbleu",
        "template_followed",
        "edited",
        "speedup",
        "runtime_correct",
        "runtime_improved",
    )

    def __init__(
        self,
        options: EditOptions | None = None,
        executor: Any = None,
        workers: int | None = None,
        run_dir: str | None = None,
    ) -> None:
        self.options = options or EditOptions()
        self.executor = executor
        self.workers = workers
        self.run_dir = run_dir
        #: the sources' Measurements for the whole run (kept in ``run_dir`` when given)
        self._sources: Any = None

    @classmethod
    def build(cls, options: EditOptions | None, ctx: Any) -> DiffBleuEvaluator:
        return cls(
            options,
            getattr(ctx, "executor", None),
            getattr(ctx, "workers", None),
            getattr(ctx, "run_dir", None),
        )

    @property
    def compat(self) -> bool:
        return self.options.compat is not None

    def metadata(self) -> dict[str, Any]:
        from importlib.metadata import version

        from beyondpass.methods.nofuneval.edit.diffbleu import git_version

        meta = {"evaluator": self.name, "compat": self.options.compat, "nltk": version("nltk")}
        meta["git"] = git_version()
        meta["runtime"] = self._timing()
        if self.executor is not None:  # where runtime rows ran (rescore reads it back)
            meta["executor"] = self.executor.metadata()
        return meta

    def _timing(self) -> dict[str, Any]:
        from beyondpass.methods.nofuneval.edit.speedup import timing_record

        if self.executor is None:
            return {"runs_per_case": self.options.runs, "compat": self.options.compat}
        return {**timing_record(self.executor, self.compat, self.options.runs),
                "compat": self.options.compat}  # fmt: skip

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        from beyondpass.methods.nofuneval.edit.diffbleu import DiffBleu, normalise

        out: list[Evaluation | None] = [None] * len(candidates)
        timed: list[int] = []

        def emit(i: int, ev: Evaluation) -> None:
            out[i] = ev
            if on_result is not None:
                on_result(i, ev)

        with DiffBleu() as scorer:
            for i, cand in enumerate(candidates):
                meta = cand.task.metadata
                followed = "template followed" in cand.extraction.notes
                code = cand.extraction.code
                runs = bool(cand.task.tests) and self.options.run  # runtime efficiency
                if not cand.extraction.ok:
                    metrics = {"diffbleu": 0.0, "template_followed": followed, "edited": 0}
                    # pass/fail only where the row's tests run (not run; its source is)
                    ev = Evaluation("no_code", False if runs else None, metrics)
                    if runs:
                        out[i] = ev
                        timed.append(i)
                    else:
                        emit(i, ev)
                    continue
                lang = str(meta.get("pl", cand.task.language))
                score = scorer.score(meta["source_code"], meta["target_code"], code, lang)
                edited = (
                    normalise(code, lang).split() != normalise(meta["source_code"], lang).split()
                )
                metrics = {"diffbleu": score, "template_followed": followed,
                           "edited": int(edited)}  # fmt: skip
                if runs:  # run on the row's cases, timed
                    out[i] = Evaluation("passed" if edited else "failed", edited, metrics)
                    timed.append(i)
                else:  # nothing runs: the edit is scored, neither passed nor failed
                    emit(i, Evaluation(SCORED, None, metrics))
        if timed:
            self._run_and_time([candidates[i] for i in timed], [out[i] for i in timed],
                               lambda j, ev: emit(timed[j], ev))  # fmt: skip
        return out  # type: ignore[return-value]

    def _run_and_time(
        self,
        candidates: list[Candidate],
        evaluations: list[Any],
        emit: OnEvaluation,
    ) -> None:
        """Runtime rows: each row's source once (cached for the run), every edit with a
        program, and the verdict, speed-up and timing record of each (an answer without a
        program is not run, but its row's source is: its record says whether that works)."""
        from beyondpass.methods.nofuneval.edit.runtime import measure_programs
        from beyondpass.methods.nofuneval.edit.speedup import edit_fields, placement

        if self.executor is None:
            from beyondpass.errors import ConfigError

            raise ConfigError(
                "nofuneval-edit: runtime-efficiency rows run the edit, but no executor was "
                "given — build the evaluator through beyondpass.evaluators.setup"
            )
        from beyondpass.methods.nofuneval.edit.program_times import ProgramTimes

        runs, timing = self.options.runs, self._timing()
        if self._sources is None:
            self._sources = ProgramTimes(self.options.times_dir or self.run_dir, timing)
        sources = self._sources.measure(
            [(c.task, str(c.task.metadata["source_code"])) for c in candidates],
            self.executor, self.compat, runs,
        )  # fmt: skip

        def done(j: int, measured: Any) -> None:
            cand, ev = candidates[j], evaluations[j]
            source = sources[j]
            if measured is None:  # no program: wrong, 1.0, its source's verdict recorded
                fields = {"correct": False, "status": ev.status, "speedup": 1.0,
                          "improved": False, "source_correct": source.correct}  # fmt: skip
            else:
                fields = edit_fields(
                    source, measured, str(cand.task.metadata["source_code"]),
                    cand.extraction.code, runs,
                )  # fmt: skip
            ev.metrics.update(
                speedup=fields["speedup"],
                runtime_correct=int(fields["correct"]),
                runtime_improved=int(fields["improved"]),
            )
            ev.details.update(runtime=fields, timing={**timing, **placement(measured, source)})
            if not fields["source_correct"]:  # the summary lists the row (status, message)
                ev.details["source_status"] = source.status
                ev.details["source_message"] = source.message[:300]
            if not fields["correct"]:  # the executor's verdict: failed, error, timeout, ...
                ev.status, ev.passed = fields["status"], False
            emit(j, ev)

        ran = [j for j, c in enumerate(candidates) if c.extraction.ok]
        for j in (j for j, c in enumerate(candidates) if not c.extraction.ok):
            done(j, None)
        items = [(candidates[j].task, candidates[j].extraction.code) for j in ran]
        measure_programs(items, self.executor, self.compat, runs,
                         on_result=lambda k, measured: done(ran[k], measured))  # fmt: skip
