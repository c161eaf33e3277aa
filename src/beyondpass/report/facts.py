"""The generic facts of a run's report: provenance, models, benchmarks, conditions, method."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from beyondpass.analysis.meta import as_dict
from beyondpass.analysis.stats import BOOTSTRAP_RESAMPLES
from beyondpass.analysis.summary import GroupSummary
from beyondpass.report.table import Table, text_rows
from beyondpass.report.text import as_text, fmt
from beyondpass.store.run_store import Row


def run_facts(
    meta: dict[str, Any], study: dict[str, Any], total: int, evaluated: int, seed: int
) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    status = as_text(meta.get("status")) or "unknown"
    counts = f"{evaluated} of {total} samples evaluated"
    if evaluated < total:
        counts += f" ({total - evaluated} not evaluated)"
    facts.append(("Status", f"{status} — {counts}"))
    if "kind" in meta:
        facts.append(("Kind", fmt(meta["kind"])))
    for key, label in (("study_file", "Study file"), ("config_hash", "Config hash")):
        if key in study:
            facts.append((label, fmt(study[key])))
    seeds = f"bootstrap CI seed {seed}"
    if "seed" in study:
        seeds = f"study seed {fmt(study['seed'])}; " + seeds
    facts.append(("Seeds", seeds))
    for key, label in (("created_at", "Created"), ("updated_at", "Updated")):
        if key in meta:
            facts.append((label, fmt(meta[key])))
    return facts


def models_table(
    model_meta: dict[str, Any], rank: dict[str, int], summaries: Sequence[GroupSummary]
) -> Table:
    versions: dict[str, set[str]] = defaultdict(set)
    for s in summaries:
        versions[s.model].update(s.model_versions)
    rows = []
    for label in sorted(rank, key=rank.__getitem__):
        info = as_dict(model_meta.get(label))
        rows.append(
            [
                label,
                fmt(info.get("spec")),
                ", ".join(sorted(versions.get(label, ()))) or "—",
                fmt(info.get("identity")),
            ]
        )
    return Table(["Model", "Spec", "Versions reported", "Identity"], text_rows(rows), ["l"] * 4)


def benchmarks_table(
    bench_meta: dict[str, Any], rank: dict[str, int], rows: Sequence[Row]
) -> Table:
    tasks_in_run: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        tasks_in_run[r.sample.benchmark].add(r.sample.task_id)
    out = []
    for name in sorted(rank, key=rank.__getitem__):
        info = as_dict(bench_meta.get(name))
        broken = known_broken(info)
        out.append(
            [
                name,
                fmt(info.get("version")),
                fmt(info.get("source")),
                fmt(info.get("n_tasks")),
                str(len(tasks_in_run.get(name, ()))),
                fmt(info.get("coverage")),
                str(len(broken)) if broken or "known_broken" in info else "—",
            ]
        )
    header = ["Benchmark", "Version", "Source", "Tasks", "Tasks in run", "Coverage"]
    return Table([*header, "Known broken"], text_rows(out), ["l", "l", "l", "r", "r", "l", "r"])


def conditions_table(cond_meta: dict[str, Any], rank: dict[str, int]) -> Table:
    rows = []
    for cid in sorted(rank, key=rank.__getitem__):
        info = as_dict(cond_meta.get(cid))
        steps = info.get("steps")
        rows.append(
            [
                cid,
                fmt(info.get("workflow")),
                str(len(steps)) if isinstance(steps, list) else "—",
                fmt(info.get("description")),
            ]
        )
    return Table(
        ["Condition", "Workflow", "Steps", "Description"], text_rows(rows), ["l", "l", "r", "l"]
    )


def condition_steps(cond_meta: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    out = []
    for cid, info in cond_meta.items():
        steps = as_dict(info).get("steps")
        if not isinstance(steps, list):
            continue
        texts: list[tuple[str, str]] = []
        for i, step in enumerate(steps, start=1):
            step = as_dict(step)
            for part in ("system", "user"):
                if step.get(part):
                    texts.append((f"Step {i} · {part}", as_text(step[part])))
        out.append((str(cid), texts))
    return out


def execution_facts(meta: dict[str, Any]) -> list[tuple[str, str]]:
    facts = []
    if "executor" in meta:
        facts.append(("Executor", fmt(meta["executor"])))
    evaluators = meta.get("evaluators")
    if isinstance(evaluators, list):
        for ev in evaluators:
            ev = as_dict(ev)
            name = as_text(ev.get("evaluator")) or "evaluator"
            rest = {k: v for k, v in ev.items() if k != "evaluator"}
            facts.append((f"Evaluator {name}", fmt(rest) if rest else "—"))
    elif evaluators is not None:
        facts.append(("Evaluators", fmt(evaluators)))
    return facts


def environment_facts(env: dict[str, Any]) -> list[tuple[str, str]]:
    facts = []
    for key, label in (
        ("beyondpass", "beyondpass"),
        ("python", "Python"),
        ("platform", "Platform"),
    ):
        if key in env:
            facts.append((label, fmt(env[key])))
    packages = env.get("packages")
    if isinstance(packages, dict) and packages:
        facts.append(("Packages", ", ".join(f"{k} {v}" for k, v in sorted(packages.items()))))
    for key, value in env.items():
        if key not in ("beyondpass", "python", "platform", "packages"):
            facts.append((str(key), fmt(value)))
    return facts


def method_lines(seed: int) -> list[str]:
    return [
        "pass@k is the unbiased estimator of Chen et al. (2021), computed per task and "
        "averaged over tasks (each task weighs the same); only evaluated samples count.",
        f"95% CI: percentile bootstrap of mean per-task pass@1 over tasks "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {seed}).",
        "Status percentages are shares of a group's evaluated samples.",
    ]


def known_broken(info: dict[str, Any]) -> dict[str, str]:
    kb = info.get("known_broken")
    if isinstance(kb, dict):
        return {str(k): as_text(v) for k, v in kb.items()}
    if isinstance(kb, list):
        return {str(k): "" for k in kb}
    return {}


__all__ = [
    "benchmarks_table",
    "condition_steps",
    "conditions_table",
    "environment_facts",
    "execution_facts",
    "known_broken",
    "method_lines",
    "models_table",
    "run_facts",
]
