"""``obfuseval project run`` as a study: the run store, the response cache, resumable.

The project is prepared once into the run directory (``project-tasks.json``, also kept by
content: ``benchmark.keep``), then the run is an ordinary study over the benchmark
``obfuseval-project:NAME@DIGEST`` with the
plan ``obfuseval-project`` (conditions ``original`` and/or ``obfuscated``) and the verdict
evaluator ``obfuseval-project``, run by :class:`~beyondpass.study.runner.StudyRunner`:
answers go through the response cache and the model's ``max_concurrency``, every sample
and every verdict is stored as it completes, and the same command resumes a killed run
(stored samples are not asked again, stored verdicts not judged again). ``report``,
``rescore`` and ``compare`` read the run like any other. ``results.jsonl`` and
``summary.json`` are written from the store at the end, for scripts.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution import ExecutorChoice, Sandboxes
from beyondpass.methods.obfuseval.project.benchmark import (
    BENCHMARK,
    ORIGINAL,
    TASKS_FILE,
    keep,
    project_record,
    read_record,
    reference_rows,
    write_record,
)
from beyondpass.methods.obfuseval.project.runner import TaskResult, prepare, summarise
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.models.cache import ResponseCache
from beyondpass.store.run_store import RunStore
from beyondpass.study.answer_files import write_json_atomic, write_jsonl_atomic
from beyondpass.study.config import study_from_dict
from beyondpass.study.progress import Progress
from beyondpass.study.runner import RunOutcome, StudyRunner

REFERENCE_FILE = "reference-answers.jsonl"
META_KEY = "obfuseval_project"


def _same_design(record: dict[str, Any], spec: ProjectSpec, seed: int) -> bool:
    described = {**spec.as_dict(), "descriptions": dict(spec.descriptions)}
    return record.get("seed") == seed and record.get("project") == described


def prepared_tasks(
    spec: ProjectSpec, out: Path, seed: int, sandboxes: Sandboxes, tools: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    """The run's prepared project and its ``NAME@DIGEST``: read back when ``out`` already
    holds this project with this seed (a resumed run prepares nothing), else prepared now
    and written; kept by content beside the response cache either way."""
    path = (out / TASKS_FILE).resolve()
    if path.exists():
        record = read_record(path)
        if not _same_design(record, spec, seed):
            raise ConfigError(
                f"{out} holds a run of another project description or seed "
                f"({record['project'].get('name')}, seed {record.get('seed')}); "
                "choose a new --out"
            )
        return keep(record), record
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="beyondpass-project-"))
    try:
        prepared = prepare(spec, scratch, sandboxes, seed)
        record = project_record(prepared, seed, tools)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    write_record(record, path)
    return keep(record), record


def design(
    ident: str,
    record: dict[str, Any],
    model: str,
    label: str,
    max_concurrency: int,
    variants: Sequence[str],
) -> dict[str, Any]:
    """The study a project run is, as a study file would say it (how its commands are
    confined is the executor choice, no part of the design)."""
    return {
        "name": f"obfuseval-project-{record['project']['name']}",
        "description": "ObfusEval project mode (obfuseval project run)",
        "seed": record["seed"],
        "benchmarks": [{"name": f"{BENCHMARK}:{ident}"}],
        "models": [{"spec": model, "label": label, "max_concurrency": max_concurrency}],
        "prompts": {"plan": BENCHMARK, "variants": list(variants)},
    }


def write_reference(out: Path, record: dict[str, Any], variants: Sequence[str]) -> str:
    """``--reference``: the project's own functions as a replay file; its model spec."""
    path = (out / REFERENCE_FILE).resolve()
    rows = reference_rows(record, variants)
    write_jsonl_atomic(path, rows)
    return f"replay:{path}"


def run(
    raw: dict[str, Any],
    out: Path,
    record: dict[str, Any],
    cache: ResponseCache | None,
    progress: Progress | None = None,
    executor: ExecutorChoice | None = None,
) -> RunOutcome:
    """Run (or resume) the study ``raw`` in ``out``; the project's record goes to meta.
    ``executor``: where the answers' test suites run (the batch pool of that choice: here,
    or on Ray) — how, not what, so no part of the design."""
    config = study_from_dict(raw, out / "project-study.toml")
    runner = StudyRunner(config, out, cache=cache, progress=progress, executor=executor)
    outcome = runner.run()
    with RunStore(out) as store:
        store.set_meta(META_KEY, {k: v for k, v in record.items() if k != "tasks"})
    return outcome


def _result(row: Any) -> TaskResult:
    """A stored verdict as the task result ``results.jsonl`` has always carried."""
    details = row.result.details if row.result is not None else {}
    metrics = row.result.metrics if row.result is not None else {}
    transcript = row.sample.transcript
    messages = transcript[-1].get("messages", []) if transcript else []
    return TaskResult(
        task_id=row.sample.task_id,
        compiled=bool(metrics.get("compiled")),
        passed=bool(row.result.passed) if row.result is not None else False,
        category=details.get("category"),
        detail=str(details.get("message", "not judged yet")),
        tests=int(metrics.get("tests_run", 0)),
        failing_tests=list(details.get("failing_tests", [])),
        prompt=str(messages[-1].get("content", "")) if messages else "",
        answer=row.sample.raw,
        model_version=str(row.sample.generation.get("model_version", "")),
        mapping=dict(details.get("mapping", {})),
        dropped=list(details.get("dropped_statements", [])),
    )


def export(out: Path, record: dict[str, Any], model: str) -> dict[str, Any]:
    """``results.jsonl`` (one row per task and condition) and ``summary.json`` from the
    store: CPR, TPR and the failure taxonomy per condition; the first condition's figures
    also at the top level, as a one-condition run always wrote them."""
    with RunStore(out, create=False) as store:
        rows = [r for r in store.rows() if r.sample.benchmark.startswith(f"{BENCHMARK}:")]
        study = store.get_meta("study", {})
    order = list(study.get("config", {}).get("prompts", {}).get("variants", [ORIGINAL]))
    by_condition: dict[str, list[TaskResult]] = {c: [] for c in order}
    lines = []
    for row in sorted(rows, key=lambda r: (order.index(r.sample.condition), r.sample.task_id)):
        result = _result(row)
        by_condition[row.sample.condition].append(result)
        lines.append({"condition": row.sample.condition, **vars(result)})
    write_jsonl_atomic(out / "results.jsonl", lines)
    conditions = {c: _summary(results) for c, results in by_condition.items()}
    summary = {
        "project": record["project"],
        "source_sha256": record["source_sha256"],
        "model": model,
        "obfuscated": order == ["obfuscated"],
        "seed": record["seed"],
        "isolation": record["isolation"],
        "tools": record["tools"],
        "interpreter": sys.executable,
        "flaky_excluded": record["flaky_excluded"],
        "dropped": record["dropped"],
        "not_crossing": record["not_crossing"],
        "run_dir": str(out),
        **conditions[order[0]],
        "conditions": conditions,
    }
    write_json_atomic(out / "summary.json", summary)
    return summary


def _summary(results: list[TaskResult]) -> dict[str, Any]:
    return {
        **summarise(results),
        "dropped_statements": sum(len(r.dropped) for r in results),
    }


__all__ = ["design", "export", "prepared_tasks", "run", "write_reference"]
