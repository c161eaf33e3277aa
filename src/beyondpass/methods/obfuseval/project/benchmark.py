"""A prepared project as a benchmark of the run store: one task per chosen function.

Preparing a project (coverage, choice, flaky and boundary checks) takes minutes, so its
outcome (the *record*) is written once into the run directory (``project-tasks.json``)
and kept, content-addressed, beside the response cache
(``~/.cache/beyondpass/projects/NAME@DIGEST.json``, or under ``$BEYONDPASS_CACHE_DIR``).
The run's benchmark is named by content, ``obfuseval-project:NAME@DIGEST``: a resumed
run and ``beyondpass rescore`` load exactly the same tasks by that name without preparing
again (``--data-dir RUN`` reads the run's own copy when the kept one is gone), and two
runs on the same prepared project share the name, so ``beyondpass compare`` pairs them.
Each task offers two prompts — the original as its ``prompt``, the
obfuscated one as the prompt field ``obfuscated_prompt`` — so original and obfuscated are
two conditions of one run (the plan ``obfuseval-project``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Benchmark, Task
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.obfuseval.project import BENCHMARK, EVALUATOR, OBFUSCATED, ORIGINAL
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.project.tasks import (
    ProjectTask,
    obfuscate_task,
    reference_answer,
)
from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate

TASKS_FILE = "project-tasks.json"
FORMAT = 1
OBFUSCATED_FIELD = "obfuscated_prompt"
CONDITIONS = {
    ORIGINAL: Condition(
        ORIGINAL,
        (PromptTemplate(user="{prompt}"),),
        description="the function as the project names it (project and file named)",
    ),
    OBFUSCATED: Condition(
        OBFUSCATED,
        (PromptTemplate(user="{" + OBFUSCATED_FIELD + "}"),),
        description="function, parameters and class renamed; neither project nor file named",
        metadata={"prompt_field": OBFUSCATED_FIELD},
    ),
}


def prompt_for(task: ProjectTask, project: str) -> str:
    """The instruction and the stub; an obfuscated task names neither project nor file."""
    where = "" if task.mapping else f" of the project {project} (file {task.path})"
    kind = "method" if len(task.scope) == 2 else "function"
    return (
        f"Implement the Python {kind} below{where}. Its docstring says what it does; the "
        "imports of its module are shown and may be used. Answer with the complete "
        f"definition of the {kind} only, in one ```python code block.\n\n"
        f"```python\n{task.stub}```\n"
    )


def project_record(prepared: Any, seed: int, tools: dict[str, str]) -> dict[str, Any]:
    """Everything a run needs of a prepared project (``runner.Prepared``), as data: the
    description, the source's sha256, the tasks in both renderings, and what was left out."""
    tasks = []
    for task in prepared.tasks:
        source = (prepared.pristine / task.path).read_text(encoding="utf-8")
        tasks.append(
            {ORIGINAL: asdict(task), OBFUSCATED: asdict(obfuscate_task(task, source, seed))}
        )
    return {
        "format": FORMAT,
        "project": {**prepared.spec.as_dict(), "descriptions": dict(prepared.spec.descriptions)},
        "source_sha256": prepared.source_digest,
        "seed": seed,
        "isolation": prepared.sandbox.level,
        "tools": tools,
        "flaky_excluded": list(prepared.flaky),
        "dropped": list(prepared.dropped),
        "not_crossing": list(prepared.not_crossing),
        "test_files": list(prepared.test_files),
        "tasks": tasks,
    }


def record_digest(record: dict[str, Any]) -> str:
    """The record's identity: sha256 of its canonical JSON (16 hex digits)."""
    blob = json.dumps(record, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def record_id(record: dict[str, Any]) -> str:
    """``NAME@DIGEST``: the argument of the run's benchmark name."""
    return f"{record['project']['name']}@{record_digest(record)}"


def kept_path(ident: str) -> Path:
    """Where the record ``NAME@DIGEST`` is kept (beside the response cache)."""
    from beyondpass.models.cache import default_cache_path

    return default_cache_path().parent / "projects" / f"{ident}.json"


def keep(record: dict[str, Any]) -> str:
    """Keep a copy of ``record`` by content (once); its ``NAME@DIGEST``."""
    ident = record_id(record)
    path = kept_path(ident)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_record(record, path)
    return ident


def write_record(record: dict[str, Any], path: Path) -> None:
    """Write atomically: a run killed while writing leaves no half file to resume from."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)


def read_record(path: Path) -> dict[str, Any]:
    """The record at ``path``; one-line errors for a missing or damaged file."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: the prepared project of this run is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a prepared project ({exc})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise DataError(f"{path}: not a prepared project of format {FORMAT}")
    return record


def spec_from_record(record: dict[str, Any]) -> ProjectSpec:
    """The project description as the run recorded it (not as its file reads today)."""
    p = record["project"]
    return ProjectSpec(
        name=p["name"],
        language=p["language"],
        file=Path(p["file"]),
        checkout=Path(p["checkout"]) if p.get("checkout") else None,
        sdist=Path(p["sdist"]) if p.get("sdist") else None,
        install=p["install"],
        pythonpath=tuple(p["pythonpath"]),
        test_command=tuple(p["test_command"]),
        repeats=int(p["repeats"]),
        timeout_s=float(p["timeout_s"]),
        paths=tuple(p["paths"]),
        functions=tuple(p["functions"]),
        max_functions=int(p["max_functions"]),
        min_lines=int(p["min_lines"]),
        descriptions=dict(p.get("descriptions") or {}),
    )


def project_task(data: dict[str, Any]) -> ProjectTask:
    return ProjectTask(
        **{**data, "scope": tuple(data["scope"]), "tests": tuple(data["tests"])},
    )


def reference_rows(record: dict[str, Any], variants: Any) -> list[dict[str, str]]:
    """The project's own functions as answers (renamed like each prompt): a replay file's
    rows, for ``--reference``, the check that the machinery is exact."""
    return [
        {
            "task_id": pair[ORIGINAL]["task_id"],
            "condition": variant,
            "response": reference_answer(project_task(pair[variant])),
        }
        for pair in record["tasks"]
        for variant in variants
    ]


def find_record(ident: str, data_dir: str | None) -> tuple[dict[str, Any], Path]:
    """The record ``NAME@DIGEST``: the kept copy, else ``data_dir``'s ``project-tasks.json``
    (a run directory); its content must have that digest."""
    name, at, digest = ident.rpartition("@")
    if not at or not name or len(digest) != 16:
        raise ConfigError(f"benchmark {BENCHMARK}:{ident}: the argument is NAME@DIGEST")
    places = [kept_path(ident)]
    if data_dir is not None:
        places.append(Path(data_dir) / TASKS_FILE)
    for path in places:
        if path.is_file():
            record = read_record(path)
            if record_digest(record) == digest:
                return record, path
    raise DataError(
        f"prepared project {ident} not found (looked in {', '.join(map(str, places))}) — "
        "pass --data-dir RUN, the run directory that holds its project-tasks.json"
    )


def load(data_dir: str | None, argument: str) -> Benchmark:
    """The benchmark ``obfuseval-project:NAME@DIGEST`` (see the module docstring)."""
    record, path = find_record(argument, data_dir)
    name = f"{BENCHMARK}:{argument}"
    project = record["project"]["name"]
    tasks: dict[str, Task] = {}
    for pair in record["tasks"]:
        original, obfuscated = project_task(pair[ORIGINAL]), project_task(pair[OBFUSCATED])
        tasks[original.task_id] = Task(
            benchmark=name,
            task_id=original.task_id,
            language="python",
            prompt=prompt_for(original, project),
            entry_point=original.name,
            reference_solution=original.original,
            tests=(),
            prompt_style="description",
            metadata={
                "evaluator": EVALUATOR,
                "prompt_fields": {OBFUSCATED_FIELD: prompt_for(obfuscated, project)},
                "project_task": {ORIGINAL: original, OBFUSCATED: obfuscated},
                "project_record": record,
            },
        )
    return Benchmark(
        name=name,
        version=record_digest(record),
        tasks=tasks,
        source=str(path),
        description=f"ObfusEval project mode: functions of {project}, judged by its own tests",
        coverage=f"{len(tasks)} functions of {project}",
    )


def project_plan(table: dict[str, Any], study_dir: Any, where: str) -> PromptPlan:
    """The plan ``obfuseval-project``: ``variants`` lists the conditions asked (default
    both, original first)."""
    unknown = sorted(set(table) - {"plan", "variants"})
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} — valid: plan, variants")
    variants = table.get("variants", [ORIGINAL, OBFUSCATED])
    if (
        not isinstance(variants, list)
        or not variants
        or any(v not in CONDITIONS for v in variants)
        or len(set(variants)) != len(variants)
    ):
        raise ConfigError(
            f"{where}: variants must list {ORIGINAL!r} and/or {OBFUSCATED!r}, got {variants!r}"
        )
    return PromptPlan(BENCHMARK, tuple(CONDITIONS[v] for v in variants), "fenced-code")
