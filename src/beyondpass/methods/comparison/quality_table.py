"""The seed's Table 3: per task and model, each quality metric, with the cells where a
model is at least 1.5x worse than the best model on that task marked.

Lower is better for every metric here (LLOC, NOS, McCabe, nesting, smells). A cell is
marked (``▲``) when its value is >= 1.5 x the lowest value of the row's other models and
that lowest value is > 0 (a ratio to 0 is undefined; such cells are not marked). The
per-model average over tasks closes the table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import fmean

from beyondpass.store.run_store import Row

QUALITY_METRICS = ("lloc", "nos", "mccabe", "nesting", "smells")
WORSE = 1.5
MARK = "▲"

Values = dict[str, dict[str, dict[str, float]]]  # task -> model -> metric -> value


def collect_quality(rows: Sequence[Row], benchmark: str, condition: str) -> Values:
    """Metric values of every first answer (sample 0) of one benchmark and condition."""
    out: Values = defaultdict(dict)
    for row in rows:
        s = row.sample
        if (s.benchmark, s.condition, s.sample_index) != (benchmark, condition, 0):
            continue
        metrics = row.result.metrics if row.result else {}
        vals = {m: float(metrics[m]) for m in QUALITY_METRICS if m in metrics}
        if vals:
            out[s.task_id][s.model] = vals
    return out


def worse(value: float, others: Sequence[float]) -> bool:
    """Whether ``value`` is >= 1.5x the best (lowest) of ``others``."""
    best = min(others, default=None)
    return best is not None and best > 0 and value >= WORSE * best


def quality_rows(values: Values, models: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: task, then per metric one column per model; an average row."""
    metrics = [
        m for m in QUALITY_METRICS if any(m in v for t in values.values() for v in t.values())
    ]
    head = ["Task"] + [f"{m} · {model}" for m in metrics for model in models]
    rows = []
    for task in sorted(values):
        row = [task]
        for metric in metrics:
            got = {md: values[task][md].get(metric) for md in models if md in values[task]}
            for model in models:
                v = got.get(model)
                if v is None:
                    row.append("—")
                    continue
                others = [x for md, x in got.items() if md != model and x is not None]
                row.append(f"{v:g}" + (f" {MARK}" if worse(v, others) else ""))
        rows.append(row)
    avg = ["average"]
    for metric in metrics:
        for model in models:
            xs = [values[t][model][metric] for t in values if metric in values[t].get(model, {})]
            avg.append(f"{fmean(xs):.2f}" if xs else "—")
    rows.append(avg)
    return head, rows
