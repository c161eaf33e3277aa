"""Review results: the seed's Table 4 (sums per task, mean and stdev over tasks, overall and
restricted by pass rate), per-model summaries and paired tests for each reviewed pair; then,
over the whole study, agreement, consistency, position bias, time per item and, with more
than two models, a Bradley-Terry ranking.

Only first ratings count in Table 4 and the model comparison; repeated items serve the
intra-rater consistency alone.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from beyondpass.store.run_store import RunStore

from . import db


def load(run_dir: str | Path) -> dict[str, Any]:
    """Every stored rating and choice with its item, reviewer and position."""
    with db.connect(run_dir) as conn:
        study = db.get_meta(conn, "study", {})
        ratings = conn.execute(
            "SELECT r.name, a.item_id, a.repeat, x.side, x.property, x.value "
            "FROM ratings x JOIN assignments a ON a.id=x.assignment_id "
            "JOIN reviewers r ON r.id=a.reviewer_id"
        ).fetchall()
        choices = conn.execute(
            "SELECT r.name, a.item_id, a.repeat, c.better, c.better_left, c.seconds, "
            "c.active_seconds "
            "FROM choices c JOIN assignments a ON a.id=c.assignment_id "
            "JOIN reviewers r ON r.id=a.reviewer_id"
        ).fetchall()
        items = {
            row[0]: {
                "benchmark": row[1],
                "task_id": row[2],
                "condition": row[3],
                "index": row[4],
                "pair": (row[5], row[6]),
            }
            for row in conn.execute(
                "SELECT id, benchmark, task_id, condition, sample_index, model_a, model_b "
                "FROM items ORDER BY id"
            )
        }
    return {"study": study, "ratings": ratings, "choices": choices, "items": items}


def study_pairs(study: dict[str, Any]) -> list[tuple[str, str]]:
    """The study's model pairs (a study made before several pairs existed has ``pair``)."""
    pairs = study.get("pairs") or ([study["pair"]] if study.get("pair") else [])
    return [(a, b) for a, b in pairs]


def for_pair(data: dict[str, Any], pair: tuple[str, str]) -> dict[str, Any]:
    """The part of ``data`` about one pair's items, with that pair as the study's pair."""
    items = {i: info for i, info in data["items"].items() if info["pair"] == pair}
    return {
        "study": {**data["study"], "pair": list(pair)},
        "ratings": [r for r in data["ratings"] if r[1] in items],
        "choices": [c for c in data["choices"] if c[1] in items],
        "items": items,
    }


def pass_rates(run_dir: str | Path) -> dict[tuple[str, str, str, str], float]:
    """Share of passed samples per (benchmark, task, condition, model), among the samples
    whose verdict is a test run (``counts_for_pass``): an answer scored without tests (a
    NoFunEval edit of a row without tests, a RobustAPI answer) is neither a pass nor a
    fail, and a task with no such sample has no pass rate (never "0%")."""
    from beyondpass.evaluators.base import counts_for_pass

    counts: dict[tuple[str, str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    with RunStore(run_dir, create=False) as store:
        for row in store.rows():
            s = row.sample
            c = counts[(s.benchmark, s.task_id, s.condition, s.model)]
            if row.result is None or counts_for_pass(row.result):
                c[0] += bool(row.result and row.result.passed)
                c[1] += 1
    return {k: p / n for k, (p, n) in counts.items() if n}


def describe(values: Sequence[float]) -> dict[str, Any]:
    """sum, mean, sample standard deviation (n-1) and n."""
    n = len(values)
    return {
        "sum": sum(values) if n else None,
        "mean": statistics.fmean(values) if n else None,
        "stdev": statistics.stdev(values) if n > 1 else None,
        "n": n,
    }


def table4(data: dict[str, Any], rates: dict[tuple[str, str, str, str], float]) -> dict[str, Any]:
    """Per item: summed scores per model and property and the preference balance (number of
    times B was better minus A; negative favours A, as the seed's G/P column); then mean and
    stdev over items, for all items and for those where both models reach the pass rate."""
    pair = data["study"]["pair"]
    minimum = data["study"].get("min_pass_rate", 0.75)
    sums: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for _, item, repeat, side, prop, value in data["ratings"]:
        if not repeat:
            sums[item][f"{prop}_{side}"] += value
    for _, item, repeat, better, *_ in data["choices"]:
        if not repeat:
            sums[item]["preference"] += 1 if better == "b" else -1
    columns = [f"{p}_{s}" for p in db.PROPERTIES for s in ("a", "b")] + ["preference"]
    rows = []
    for item, info in data["items"].items():
        if item not in sums:
            continue
        ra = rates.get((info["benchmark"], info["task_id"], info["condition"], pair[0]))
        rb = rates.get((info["benchmark"], info["task_id"], info["condition"], pair[1]))
        label = info["task_id"] + (f" [{info['condition']}]" if info["condition"] else "")
        rows.append(
            {
                "item": label,
                "pass_rate_a": ra,
                "pass_rate_b": rb,
                "both_pass": ra is not None and rb is not None and ra >= minimum and rb >= minimum,
                **{c: sums[item].get(c, 0) for c in columns},
            }
        )

    def summary(selected: list[dict[str, Any]]) -> dict[str, Any]:
        return {c: describe([r[c] for r in selected]) for c in columns}

    return {
        "pair": pair,
        "min_pass_rate": minimum,
        "columns": columns,
        "rows": rows,
        "all": summary(rows),
        "restricted": summary([r for r in rows if r["both_pass"]]),
    }


def per_model(data: dict[str, Any]) -> dict[str, Any]:
    """Per model and property over individual first ratings: sum, mean, stdev, n; and
    preference counts."""
    pair = data["study"]["pair"]
    values: dict[tuple[str, str], list[int]] = defaultdict(list)
    for _, _, repeat, side, prop, value in data["ratings"]:
        if not repeat:
            values[(side, prop)].append(value)
    prefs = {"a": 0, "b": 0}
    for _, _, repeat, better, *_ in data["choices"]:
        if not repeat:
            prefs[better] += 1
    return {
        model: {
            "properties": {p: describe(values[(side, p)]) for p in db.PROPERTIES},
            "preferred": prefs[side],
        }
        for side, model in zip(("a", "b"), pair, strict=True)
    }


def cohen_kappa(x: Sequence[Any], y: Sequence[Any]) -> float | None:
    """Cohen's (unweighted) kappa of two raters' paired labels (statsmodels); None when it
    is undefined (no pairs, or both raters used one and the same label throughout)."""
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    if len(x) != len(y) or not x:
        return None
    labels = sorted(set(x) | set(y), key=str)
    if len(labels) < 2:
        return None
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for a, b in zip(x, y, strict=True):
        table[index[a], index[b]] += 1
    return float(cohens_kappa(table, return_results=False))


def agreement(data: dict[str, Any], seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """Krippendorff's alpha (ordinal) over units (item, model, property) with a percentile
    bootstrap CI over units, and Cohen's kappa per reviewer pair on their common units."""
    import krippendorff
    import numpy as np

    by_unit: dict[tuple[int, str, str], dict[str, int]] = defaultdict(dict)
    for name, item, repeat, side, prop, value in data["ratings"]:
        if not repeat:
            by_unit[(item, side, prop)][name] = value
    reviewers = sorted({r[0] for r in data["ratings"]})
    units = [u for u, v in sorted(by_unit.items()) if len(v) >= 2]
    out: dict[str, Any] = {"units": len(units), "alpha": None, "ci": None, "kappa": {}}
    if units and len(reviewers) >= 2:
        matrix = np.array(
            [[by_unit[u].get(r, np.nan) for u in units] for r in reviewers], dtype=float
        )
        domain = list(db.SCALE)

        def alpha(m: Any) -> float:
            return float(krippendorff.alpha(m, level_of_measurement="ordinal", value_domain=domain))

        if len({v for u in units for v in by_unit[u].values()}) > 1:
            out["alpha"] = alpha(matrix)
            rng = np.random.default_rng(seed)
            boots = []
            for _ in range(resamples):
                m = matrix[:, rng.integers(0, len(units), len(units))]
                if len(set(m[~np.isnan(m)].tolist())) > 1:
                    boots.append(alpha(m))
            if boots:
                out["ci"] = [float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))]
    for r1, r2 in combinations(reviewers, 2):
        common = [u for u in units if r1 in by_unit[u] and r2 in by_unit[u]]
        if common:
            k = cohen_kappa([by_unit[u][r1] for u in common], [by_unit[u][r2] for u in common])
            out["kappa"][f"{r1}/{r2}"] = {"kappa": k, "n": len(common)}
    return out


def consistency(data: dict[str, Any]) -> dict[str, Any]:
    """Intra-rater: for each reviewer's repeated items, the share of identical ratings and
    choices and the mean absolute rating difference between first and second time."""
    first: dict[tuple[str, int, str, str], int] = {}
    second: dict[tuple[str, int, str, str], int] = {}
    for name, item, repeat, side, prop, value in data["ratings"]:
        (second if repeat else first)[(name, item, side, prop)] = value
    for name, item, repeat, better, *_ in data["choices"]:
        (second if repeat else first)[(name, item, "choice", "better")] = better
    out: dict[str, Any] = {}
    for name in sorted({k[0] for k in second}):
        keys = [k for k in second if k[0] == name and k in first]
        if not keys:
            continue
        same = sum(first[k] == second[k] for k in keys) / len(keys)
        diffs = [abs(first[k] - second[k]) for k in keys if k[3] != "better"]
        out[name] = {
            "identical": same,
            "mean_abs_diff": statistics.fmean(diffs) if diffs else None,
            "answers": len(keys),
        }
    return out


def position_bias(data: dict[str, Any]) -> dict[str, Any]:
    """Share of first choices where the left solution was called better, with an exact
    binomial test against 1/2."""
    from scipy.stats import binomtest

    lefts = [c[4] for c in data["choices"] if not c[2]]
    if not lefts:
        return {"n": 0, "left_share": None, "p_value": None}
    k = sum(lefts)
    return {
        "n": len(lefts),
        "left_share": k / len(lefts),
        "p_value": float(binomtest(k, len(lefts), 0.5).pvalue),
    }


def paired_tests(data: dict[str, Any]) -> dict[str, Any]:
    """Per property: Wilcoxon signed-rank test of A's minus B's rating over first
    (reviewer, item) ratings."""
    from scipy.stats import wilcoxon

    pairs: dict[tuple[str, int, str], dict[str, int]] = defaultdict(dict)
    for name, item, repeat, side, prop, value in data["ratings"]:
        if not repeat:
            pairs[(name, item, prop)][side] = value
    out: dict[str, Any] = {}
    for prop in db.PROPERTIES:
        diffs = [v["a"] - v["b"] for k, v in pairs.items() if k[2] == prop and len(v) == 2]
        result: dict[str, Any] = {
            "n": len(diffs),
            "mean_diff": statistics.fmean(diffs) if diffs else None,
            "statistic": None,
            "p_value": None,
        }
        if any(diffs):
            test = wilcoxon(diffs)
            result.update(statistic=float(test.statistic), p_value=float(test.pvalue))
        out[prop] = result
    return out


def time_per_item(data: dict[str, Any]) -> dict[str, Any]:
    """Seconds per rated item: wall time from first showing to submission (breaks included)
    and active time (gaps between actions capped at ``db.IDLE_CAP_S``; items rated before
    activity was recorded have none)."""
    active = [c[6] for c in data["choices"] if c[6] is not None]
    return {
        "wall": describe([c[5] for c in data["choices"]]),
        "active": describe(active),
        "idle_cap_s": db.IDLE_CAP_S,
    }


def first_choices(data: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(winner, loser, item) for every first choice, in model labels."""
    out = []
    for _, item, repeat, better, *_ in data["choices"]:
        if not repeat:
            a, b = data["items"][item]["pair"]
            out.append((a, b, item) if better == "a" else (b, a, item))
    return out


def results(run_dir: str | Path, seed: int | None = None) -> dict[str, Any]:
    """Everything above for the run's review study."""
    from .ranking import bradley_terry

    data = load(run_dir)
    seed = data["study"].get("seed", 0) if seed is None else seed
    rates = pass_rates(run_dir)
    pairs = []
    for pair in study_pairs(data["study"]):
        part = for_pair(data, pair)
        pairs.append(
            {
                "pair": list(pair),
                "ratings": len(part["choices"]),
                "table4": table4(part, rates),
                "per_model": per_model(part),
                "paired_tests": paired_tests(part),
            }
        )
    models = {m for pair in study_pairs(data["study"]) for m in pair}
    return {
        "pairs": pairs,
        "ratings": len(data["choices"]),
        "agreement": agreement(data, seed),
        "consistency": consistency(data),
        "position_bias": position_bias(data),
        "time_per_item": time_per_item(data),
        "ranking": bradley_terry(first_choices(data), seed) if len(models) > 2 else None,
    }


def table4_csv(blocks: list[dict[str, Any]]) -> str:
    """Table 4 of every pair as one CSV: per pair, one row per item, then mean and stdev rows
    (all and restricted)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = blocks[0]["table4"]["columns"] if blocks else []
    w.writerow(["model_a", "model_b", "item", "pass_rate_a", "pass_rate_b", "both_pass", *cols])
    for block in blocks:
        table, pair = block["table4"], block["pair"]
        for r in table["rows"]:
            w.writerow(
                [*pair, r["item"], r["pass_rate_a"], r["pass_rate_b"], r["both_pass"]]
                + [r[c] for c in cols]
            )
        for scope in ("all", "restricted"):
            for stat in ("mean", "stdev"):
                w.writerow(
                    [*pair, f"{stat} ({scope})", "", "", ""] + [table[scope][c][stat] for c in cols]
                )
    return buf.getvalue()
