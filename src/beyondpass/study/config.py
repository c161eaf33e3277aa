"""Study files: benchmarks x models x prompt conditions, as TOML.

A study file is the whole design of an experiment in one place, so it can be versioned,
reviewed and re-run. Example::

    name = "my-study"
    seed = 0

    [[benchmarks]]
    name = "humaneval"            # or humaneval-et, mbpp, mbpp-et, demo, file:PATH.jsonl
    # tasks = ["HumanEval/0"]     # optional subset
    # limit = 20                  # optional: the first N tasks

    [[models]]
    spec = "openai:gpt-4o-mini"   # provider:model[@base_url] or replay:PATH
    # label = "gpt-4o-mini"       # name in tables (default: derived from the spec)
    # max_concurrency = 4          # requests in flight at once
    # max_attempts = 5             # tries per request (429/5xx/timeouts back off and retry)
    # request_timeout = 120        # seconds per request

    [prompts]
    plan = "function-only"        # a built-in plan, or [[prompts.conditions]] tables

    [sampling]
    n = 1                         # samples per task and condition (pass@k needs n >= k)
    temperature = 0.0
    max_tokens = 2048

    [execution]
    timeout_s = 10
    memory_mb = 2048

    [evaluation]                  # evaluators besides the verdict (docs/study-files.md)
    evaluators = ["nfr"]          # RobuNFR metrics (docs/nfr-metrics.md); or: nfr = true
    # [evaluation.functional]     # each evaluator's options, checked by its own schema
    # timing_repeats = 5          # per passing test, for exec_time_ms (default 5 with nfr)

Relative paths (``replay:answers.jsonl``, ``file:tasks.jsonl``) are relative to the study file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from beyondpass import registry
from beyondpass.benchmarks.transforms import TransformChoice, parse_transform
from beyondpass.errors import ConfigError
from beyondpass.execution import DEFAULT_EXECUTOR, ExecutorChoice
from beyondpass.execution.base import ExecutionLimits
from beyondpass.models.base import SamplingParams
from beyondpass.models.factory import parse_spec
from beyondpass.prompts.plan import (
    Condition,
    PromptPlan,
    builtin_plan,
    plan_by_name,
    plan_from_config,
)
from beyondpass.study.builtin import (  # noqa: F401 - re-exported: the study loader's own API
    builtin_study_path,
    resolve_study_path,
)
from beyondpass.study.config_model import (
    BenchmarkTable,
    ExecutionTable,
    ModelTable,
    PromptsTable,
    SamplingTable,
    StudyFile,
    parse_model_table,
    parse_study_file,
)
from beyondpass.study.evaluation_config import (
    FUNCTIONAL,
    EvaluatorChoice,
    read_evaluation,
    verdict_options,
)
from beyondpass.tomlfile import read_toml


@dataclass(frozen=True)
class BenchmarkChoice:
    name: str
    tasks: tuple[str, ...] | None = None
    limit: int | None = None
    transform: TransformChoice | None = None


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    label: str
    max_concurrency: int = 4
    max_attempts: int = 5
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Arm:
    """One part of a study: its benchmarks, asked under its plan with its sampling, scored by
    its evaluators. A study file without ``[[arms]]`` is one arm named ``""``."""

    name: str
    benchmarks: tuple[BenchmarkChoice, ...]
    plan: PromptPlan
    sampling: SamplingParams
    n: int
    #: evaluators that add metrics to this arm's samples, in order
    evaluators: tuple[EvaluatorChoice, ...] = ()
    description: str = ""

    @property
    def label(self) -> str:
        """How messages name the arm (``arm 'psb2'``; nothing for a one-arm study)."""
        return f"arm {self.name!r}" if self.name else "the study"

    def record(self) -> dict[str, Any]:
        """How a run records the arm (meta ``arms``): what a report and ``compare`` read."""
        return {
            "description": self.description,
            "benchmarks": [b.name for b in self.benchmarks],
            "plan": self.plan.name,
            "conditions": [c.id for c in self.plan.conditions],
            "evaluators": [e.name for e in self.evaluators],
            "sampling": {"n": self.n, **self.sampling.as_dict()},
        }


@dataclass(frozen=True)
class StudyConfig:
    name: str
    description: str
    seed: int
    arms: tuple[Arm, ...]
    models: tuple[ModelChoice, ...]
    limits: ExecutionLimits
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)
    #: options of verdict-deciding evaluators by name (``functional``: ``timing_repeats``);
    #: one verdict evaluator scores every arm
    verdict_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def timing_repeats(self) -> int:
        """Timed re-runs of each passing test (``exec_time_ms``)."""
        return int(self.verdict_options.get(FUNCTIONAL, {}).get("timing_repeats", 0))

    @property
    def benchmarks(self) -> tuple[BenchmarkChoice, ...]:
        """Every arm's benchmarks, in order."""
        return tuple(b for arm in self.arms for b in arm.benchmarks)

    @property
    def evaluators(self) -> tuple[EvaluatorChoice, ...]:
        """Every evaluator some arm adds, once each, in order."""
        seen: dict[str, EvaluatorChoice] = {}
        for arm in self.arms:
            for e in arm.evaluators:
                seen.setdefault(e.name, e)
        return tuple(seen.values())

    @property
    def only_arm(self) -> Arm:
        """The arm of a one-arm study (its plan, sampling and n are the study's)."""
        if len(self.arms) != 1:
            raise ConfigError(
                f"{self.source}: study {self.name!r} has {len(self.arms)} arms "
                f"({', '.join(a.name for a in self.arms)}); name the arm"
            )
        return self.arms[0]

    @property
    def plan(self) -> PromptPlan:
        return self.only_arm.plan

    @property
    def sampling(self) -> SamplingParams:
        return self.only_arm.sampling

    @property
    def n(self) -> int:
        return self.only_arm.n

    def uses(self, evaluator: str) -> bool:
        return any(e.name == evaluator for e in self.evaluators)

    def config_hash(self) -> str:
        """Identity of the design: a run directory belongs to exactly one design."""
        # presentation (description, [report]) is not design: changing it keeps the run
        design = {k: v for k, v in self.raw.items() if k not in ("description", "report")}
        design["models"] = [{"spec": m.spec, "label": m.label} for m in self.models]
        blob = json.dumps(design, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _resolve_spec(spec: str, base: Path) -> str:
    parsed = parse_spec(spec)
    if parsed.provider == "replay":
        path = Path(parsed.model).expanduser()
        return f"replay:{path if path.is_absolute() else (base / path).resolve()}"
    return spec


def default_label(spec: str) -> str:
    parsed = parse_spec(spec)
    return Path(parsed.model).stem if parsed.provider == "replay" else parsed.model


def load_study(path: str | Path, extra_models: list[str] | None = None) -> StudyConfig:
    """Parse and validate a study file; ``extra_models`` (from ``--model``) replace its models.

    ``extra_models`` come from the command line, so a relative ``replay:`` path in them is
    relative to the working directory, not to the study file.
    """
    path, _ = resolve_study_path(path)
    return study_from_dict(read_toml(path, "study file"), path, extra_models)


def study_from_dict(
    raw: dict[str, Any], path: Path, extra_models: list[str] | None = None
) -> StudyConfig:
    """The study ``raw`` (read from ``path``): its shape checked by :class:`StudyFile`, then
    each concept built and checked against the registry, errors naming file and key."""
    where = str(path)
    study = parse_study_file(raw, path)
    base = path.parent.resolve()
    arms, verdict_options = _arms(study, base, where)
    return StudyConfig(
        name=study.name or path.stem,
        description=study.description,
        seed=study.seed,
        arms=arms,
        models=_models(study.models, extra_models, base, path),
        limits=_limits(study.execution),
        executor=_executor(study.execution, where),
        verdict_options=verdict_options,
        source=str(path.resolve()),
        raw=raw,
    )


_ARM_KEYS = ("benchmarks", "prompts", "evaluation")


def _arms(
    study: StudyFile, base: Path, where: str
) -> tuple[tuple[Arm, ...], dict[str, dict[str, Any]]]:
    """The study's arms (``[[arms]]``, or the whole file as one arm named ``""``) and the
    options of the one verdict evaluator that scores them all."""
    if not study.arms:
        evaluation = read_evaluation(study.evaluation, where, base)
        arm = Arm(
            name="",
            benchmarks=_benchmarks(study.benchmarks, study.seed, base, where),
            plan=_plan(study.prompts, base, where),
            sampling=_sampling(study.sampling),
            n=study.sampling.n,
            evaluators=evaluation["evaluators"],
        )
        return (arm,), verdict_options([(where, evaluation)], base)
    set_above = [k for k in _ARM_KEYS if k in study.model_fields_set]
    if set_above:
        raise ConfigError(
            f"{where}: a study with [[arms]] gives each arm its own {', '.join(_ARM_KEYS)} — "
            f"move [{set_above[0]}] into the arms"
        )
    arms: list[Arm] = []
    parts: list[tuple[str, dict[str, Any]]] = []
    for i, table in enumerate(study.arms, 1):
        at = f"{where}: arms[{i}] ({table.name})"
        evaluation = read_evaluation(table.evaluation, at, base)
        parts.append((at, evaluation))
        sampling = {**_set(study.sampling), **_set(table.sampling)}
        arms.append(
            Arm(
                name=table.name,
                benchmarks=_benchmarks(table.benchmarks, study.seed, base, at),
                plan=_plan(table.prompts, base, at),
                sampling=_sampling(SamplingTable(**sampling)),
                n=int(sampling.get("n", 1)),
                evaluators=evaluation["evaluators"],
                description=table.description,
            )
        )
    check_arms(arms, where)
    return tuple(arms), verdict_options(parts, base)


def check_arms(arms: list[Arm], where: str) -> None:
    """Arms share one store, so what names a sample or an evaluator must mean one thing:
    arm names are unique; a benchmark's condition is asked by one arm; a condition id has
    one definition; an evaluator has one set of options."""
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ConfigError(f"{where}: two arms are named {dup!r} — arm names must be unique")
    asked: dict[tuple[str, str], str] = {}
    defined: dict[str, tuple[str, dict[str, Any]]] = {}
    options: dict[str, tuple[str, dict[str, Any]]] = {}
    for arm in arms:
        records = condition_records(arm.plan.conditions, arm.n)
        for bench in arm.benchmarks:
            for cid in records:
                other = asked.setdefault((bench.name, cid), arm.name)
                if other != arm.name:
                    raise ConfigError(
                        f"{where}: arms {other!r} and {arm.name!r} both ask condition "
                        f"{cid!r} of benchmark {bench.name!r} — a sample belongs to one arm"
                    )
        for cid, record in records.items():
            first = defined.setdefault(cid, (arm.name, record))
            if first[1] != record:
                raise ConfigError(
                    f"{where}: arms {first[0]!r} and {arm.name!r} define condition {cid!r} "
                    "differently (prompts, repeats or n) — give one of them another id"
                )
        for e in arm.evaluators:
            seen = options.setdefault(e.name, (arm.name, e.options))
            if seen[1] != e.options:
                raise ConfigError(
                    f"{where}: evaluator {e.name!r} has other options in arm {arm.name!r} "
                    f"than in arm {seen[0]!r} — one evaluator, one configuration per run"
                )


def condition_records(conditions: Sequence[Condition], n: int) -> dict[str, dict[str, Any]]:
    """How a run records its prompt conditions (full template text included): the analysis
    and the report read them back from here."""
    return {
        c.id: {
            "workflow": c.workflow,
            "description": c.description,
            "steps": [asdict(s) for s in c.steps],
            "metadata": dict(c.metadata),
            "repeats": c.repeats,
            "samples_per_task": n * c.repeats,
        }
        for c in conditions
    }


def _set(table: BaseModel, exclude: set[str] | None = None) -> dict[str, Any]:
    """The keys a table sets: the defaults stay with the dataclasses the values go to."""
    return table.model_dump(exclude_unset=True, exclude=exclude)


def _sampling(sampling: SamplingTable) -> SamplingParams:
    values = _set(sampling, exclude={"n"})
    if "stop" in values:
        values["stop"] = tuple(values["stop"])
    return SamplingParams(**values)


def _benchmarks(
    tables: list[BenchmarkTable], seed: int, base: Path, where: str
) -> tuple[BenchmarkChoice, ...]:
    """``[[benchmarks]]``: ``file:`` paths relative to the study file, transforms checked."""
    benchmarks = []
    for i, b in enumerate(tables, 1):
        name = b.name
        if name.startswith("file:") and not Path(name[5:]).is_absolute():
            name = f"file:{(base / name[5:]).resolve()}"
        transform = None
        if b.transform is not None:
            transform = parse_transform(b.transform, seed, f"{where}: benchmarks[{i}].transform")
        tasks = tuple(b.tasks) if b.tasks is not None else None
        benchmarks.append(BenchmarkChoice(name, tasks, b.limit, transform))
    if not benchmarks:
        raise ConfigError(f"{where}: no [[benchmarks]] — name at least one (e.g. humaneval)")
    return tuple(benchmarks)


def _models(
    tables: list[ModelTable], extra_models: list[str] | None, base: Path, path: Path
) -> tuple[ModelChoice, ...]:
    """``[[models]]``, or the ``--model`` specs that replace them (relative to the cwd)."""
    if extra_models:
        tables = [parse_model_table({"spec": s}, path) for s in extra_models]
        base = Path.cwd()
    models = []
    for m in tables:
        spec = _resolve_spec(m.spec, base)
        models.append(
            ModelChoice(
                spec=spec,
                label=m.label or default_label(spec),
                max_concurrency=m.max_concurrency,
                max_attempts=m.max_attempts,
                options=dict(m.model_extra or {}),
            )
        )
    if not models:
        raise ConfigError(f"{path}: no [[models]] — add one or pass --model SPEC")
    labels = [m.label for m in models]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{path}: model labels must be unique, got {labels}")
    return tuple(models)


def _plan(prompts: PromptsTable, base: Path, where: str) -> PromptPlan:
    """``[prompts]``: a registered plan (given the table) or ``[[prompts.conditions]]``."""
    if prompts.conditions is not None:
        plan = plan_from_config(prompts.plan or "custom", prompts.conditions)
    else:
        name = prompts.plan or "function-only"
        table = _set(prompts, exclude={"answer_format"})
        plan = plan_by_name(name, table, base, f"{where}: prompts") or builtin_plan(name)
    if prompts.answer_format is not None:  # what the prompts ask for: extraction reads it so
        if prompts.answer_format not in registry.names("answer_formats"):
            raise ConfigError(
                f"{where}: prompts.answer_format must be one of "
                f"{', '.join(registry.names('answer_formats'))}, got {prompts.answer_format!r}"
            )
        plan = replace(plan, answer_format=prompts.answer_format)
    return plan


_EXECUTOR_KEYS = {"executor", "isolation", "ray_address", "process_budget"}


def _limits(execution: ExecutionTable) -> ExecutionLimits:
    return ExecutionLimits(**_set(execution, exclude=_EXECUTOR_KEYS))


def _executor(execution: ExecutionTable, where: str) -> ExecutorChoice:
    """The executor and how it isolates; the choice checks names against the registry."""
    try:
        return ExecutorChoice(
            name=execution.executor or DEFAULT_EXECUTOR,
            isolation=execution.isolation or "auto",
            ray_address=execution.ray_address,
            process_budget=execution.process_budget or "auto",
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}: execution: {exc}") from exc
