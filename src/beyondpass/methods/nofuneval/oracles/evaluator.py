"""The ``nofuneval-oracle`` evaluator: the static oracle and DiffBLEU x oracle in study runs.

Adds metrics beside the ``nofuneval-edit`` verdict, for tasks whose row names a CodeQL
query (security, maintainability): ``oracle_pass`` (1/0) and ``diffbleu_x_oracle`` (this
sample's DiffBLEU times this sample's pass). A task without an oracle gets neither metric
(left out of the means, never counted as a pass) and says why in ``details``. The verdict
rules are in ``check.py`` (this package); docs/nofuneval-oracles.md has the query table. The
analysers run as batch work on the run's pool (``execution.BatchJob``): in this process by
default, on Ray workers with ``--executor ray``, with the same verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pydantic

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution import BatchJob, BatchPool, LocalPool


class OracleOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    #: ``nofuneval``: C edits that do not compile pass, as in NoFunEval's harness
    compat: Literal["nofuneval"] | None = None
    #: ``auto``: CodeQL when ``codeql`` is on PATH, else the open analysers
    engine: Literal["auto", "open", "codeql"] = "auto"


class OracleEvaluator(Evaluator):
    name = "nofuneval-oracle"
    metrics = ("oracle_pass", "diffbleu_x_oracle")

    def __init__(self, options: OracleOptions | None = None, pool: BatchPool | None = None) -> None:
        self.options = options or OracleOptions()
        self.pool = pool or LocalPool()

    @classmethod
    def build(cls, options: OracleOptions | None, ctx: Any) -> OracleEvaluator:
        return cls(options, getattr(ctx, "pool", None))

    def _use_codeql(self) -> bool | None:
        return {"auto": None, "open": False, "codeql": True}[self.options.engine]

    def job(self, items: Sequence[Any]) -> BatchJob:
        """The oracle of ``items`` as batch work: the engine is chosen here, once, and a
        machine that judges a batch must have every analyser the items need."""
        from beyondpass.methods.nofuneval.oracles import analysers, check, codeql

        use_codeql = check.engine(self._use_codeql()) == "codeql"
        return BatchJob(
            check.judge_batch,
            (self.options.compat is not None, use_codeql),
            analysers.PURPOSE,
            tools=check.tools(items, use_codeql),
            batch_size=64,
            item_timeout_s=2 * codeql.TIMEOUT_S if use_codeql else analysers.TIMEOUT_S,
            confinement=analysers.confinement(),  # what metadata() records for cppcheck
        )

    def metadata(self) -> dict[str, Any]:
        from beyondpass.methods.nofuneval.oracles.check import metadata

        return {
            "evaluator": self.name,
            "compat": self.options.compat,
            **metadata(self._use_codeql()),
        }

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        from beyondpass.methods.nofuneval.edit.diffbleu import DiffBleu
        from beyondpass.methods.nofuneval.oracles.check import NO_ORACLE, OracleItem

        judged = [i for i, c in enumerate(candidates) if c.task.metadata.get("codeql_check")]
        items = []
        for i in judged:
            cand = candidates[i]
            meta = cand.task.metadata
            code = cand.extraction.code if cand.extraction.ok else None
            items.append(
                OracleItem(str(meta["pl"]), str(meta["codeql_check"]), meta["source_code"], code)
            )
        found = self.pool.map(self.job(items), items)
        verdicts = dict(zip(judged, found, strict=True))
        out = []
        with DiffBleu() as scorer:
            for i, cand in enumerate(candidates):
                v = verdicts.get(i)
                if v is None:
                    ev = Evaluation(details={"oracle": "no_oracle", "reason": "no CodeQL query"})
                elif v.status == NO_ORACLE:
                    ev = Evaluation(details=_details(v))
                else:
                    meta = cand.task.metadata
                    score = 0.0
                    if cand.extraction.ok:
                        score = scorer.score(
                            meta["source_code"], meta["target_code"], cand.extraction.code,
                            str(meta["pl"]),
                        )  # fmt: skip
                    ev = Evaluation(
                        metrics={
                            "oracle_pass": int(v.passed),
                            "diffbleu_x_oracle": score * v.passed,
                        },
                        details=_details(v),
                    )
                out.append(ev)
                if on_result is not None:
                    on_result(i, ev)
        return out


def _details(verdict: Any) -> dict[str, Any]:
    """The verdict as stored: status, reason, and the analyser and rules found, if any
    (``nofuneval score`` exports them per answer)."""
    found = verdict.as_dict()
    return {"oracle": found.pop("status"), **found}
