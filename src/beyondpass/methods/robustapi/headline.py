"""RobustAPI's headline metrics, per question, for the profile report and ``compare``.

The seed's API misuse rate is pooled: misusing answers among the answers with executable
code. Each question contributes its own rate weighted by its executable answers, so the
weighted mean over questions is exactly the rate :mod:`.analysis` reports (and the pairing
unit of ``compare`` is the question). The executable share is pooled over all answers the
same way. Verdicts are read in the checker semantics the run was made with
(:func:`reading`): the corrected one, or the published checker's when ``robustapi check
--semantics original`` made the run, so each run's headline is the rate its summary prints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from beyondpass.analysis.headline import Observation
from beyondpass.analysis.meta import as_dict, recorded_evaluators
from beyondpass.methods.robustapi.analysis import MisuseCounts, verdict_in
from beyondpass.store.run_store import Row

#: the kind of answers file whose ``semantics`` option chooses the verdicts exported
_ANSWERS_KIND = "robustapi-answers"


def reading(meta: Mapping[str, Any]) -> dict[str, str]:
    """The checker semantics a run's verdicts are read in (nothing for a run the misuse
    checker did not score)."""
    if not any(e.get("evaluator") == "robustapi" for e in recorded_evaluators(meta)):
        return {}
    reader = as_dict(as_dict(meta.get("samples")).get("reader"))
    chosen = (
        as_dict(reader.get("options")).get("semantics")
        if reader.get("name") == _ANSWERS_KIND
        else None
    )
    return {"semantics": str(chosen or "correct")}


def _per_question(
    rows: Sequence[Row], meta: Mapping[str, Any]
) -> dict[tuple[str, str, str, str], MisuseCounts]:
    semantics = reading(meta).get("semantics", "correct")
    counts: dict[tuple[str, str, str, str], MisuseCounts] = defaultdict(MisuseCounts)
    for row in rows:
        result = row.result
        if result is None or "verdict_original" not in result.metrics:
            continue  # not scored by the misuse checker (the analysis's own rule)
        s = row.sample
        counts[(s.benchmark, s.model, s.condition, s.task_id)].add(verdict_in(result, semantics))
    return counts


def misuse_rate(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    """Each question's misuse rate among its executable answers, weighted by their number."""
    for (bench, model, condition, question), c in _per_question(rows, meta).items():
        if c.n_executable:
            yield Observation(
                bench, model, condition, question, c.n_misuse / c.n_executable, c.n_executable
            )


def executable_rate(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
    """Each question's share of answers with executable code, weighted by its answers."""
    for (bench, model, condition, question), c in _per_question(rows, meta).items():
        if c.n:
            yield Observation(bench, model, condition, question, c.n_executable / c.n, c.n)
