"""PSB2's headline metrics: the pass ratio of a task's edge and random cases (exact output
matching), per task, as the method's report tabulates them for the first answer of each
task (:func:`.analysis.collect`); the mean over tasks is the report's mean pass ratio, and
``compare`` pairs two runs task by task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from beyondpass.analysis.headline import Observation
from beyondpass.methods.psb2.analysis import collect
from beyondpass.store.run_store import Row

Values = Callable[[Sequence[Row], Mapping[str, Any]], Iterator[Observation]]


def _ratio(kind: str) -> Values:
    def values(rows: Sequence[Row], meta: Mapping[str, Any]) -> Iterator[Observation]:
        for (bench, condition, model), results in collect(list(rows)).items():
            for r in results:
                ratio = r.ratio(kind, epsilon=False)
                if ratio is not None:
                    yield Observation(bench, model, condition, r.task_id, ratio)

    return values


edge_pass_ratio = _ratio("edge")
random_pass_ratio = _ratio("random")
