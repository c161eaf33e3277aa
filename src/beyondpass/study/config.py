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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from beyondpass import registry
from beyondpass.benchmarks.transforms import TransformChoice, parse_transform
from beyondpass.errors import ConfigError
from beyondpass.execution import DEFAULT_EXECUTOR, ExecutorChoice
from beyondpass.execution.base import ExecutionLimits
from beyondpass.models.base import SamplingParams
from beyondpass.models.factory import parse_spec
from beyondpass.prompts.plan import PromptPlan, builtin_plan, plan_by_name, plan_from_config
from beyondpass.study.builtin import (  # noqa: F401 - re-exported: the study loader's own API
    builtin_study_path,
    resolve_study_path,
)
from beyondpass.tomlfile import read_toml

_TOP_KEYS = {
    "name",
    "description",
    "seed",
    "benchmarks",
    "models",
    "prompts",
    "sampling",
    "execution",
    "report",
    "evaluation",
}


FUNCTIONAL = "functional"


@dataclass(frozen=True)
class BenchmarkChoice:
    name: str
    tasks: tuple[str, ...] | None = None
    limit: int | None = None
    transform: TransformChoice | None = None


@dataclass(frozen=True)
class EvaluatorChoice:
    """An evaluator a study runs, with its options (validated by its own schema)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    label: str
    max_concurrency: int = 4
    max_attempts: int = 5
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StudyConfig:
    name: str
    description: str
    seed: int
    benchmarks: tuple[BenchmarkChoice, ...]
    models: tuple[ModelChoice, ...]
    plan: PromptPlan
    sampling: SamplingParams
    n: int
    limits: ExecutionLimits
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)
    #: evaluators that add metrics, in order (the verdict evaluator is chosen per task)
    evaluators: tuple[EvaluatorChoice, ...] = ()
    #: options of verdict-deciding evaluators by name (``functional``: ``timing_repeats``)
    verdict_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def timing_repeats(self) -> int:
        """Timed re-runs of each passing test (``exec_time_ms``)."""
        return int(self.verdict_options.get(FUNCTIONAL, {}).get("timing_repeats", 0))

    def uses(self, evaluator: str) -> bool:
        return any(e.name == evaluator for e in self.evaluators)

    def config_hash(self) -> str:
        """Identity of the design: a run directory belongs to exactly one design."""
        # presentation (description, [report]) is not design: changing it keeps the run
        design = {k: v for k, v in self.raw.items() if k not in ("description", "report")}
        design["models"] = [{"spec": m.spec, "label": m.label} for m in self.models]
        blob = json.dumps(design, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _expect(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"{where}: expected {names}, got {value!r}")
    return value


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
    where = str(path)
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown} — valid: {sorted(_TOP_KEYS)}")
    base = path.parent.resolve()

    benchmarks = []
    for i, b in enumerate(_expect(raw.get("benchmarks", []), list, f"{where}: benchmarks"), 1):
        _expect(b, dict, f"{where}: benchmarks[{i}]")
        if "name" not in b:
            raise ConfigError(f"{where}: benchmarks[{i}] needs a name")
        name = str(b["name"])
        if name.startswith("file:") and not Path(name[5:]).is_absolute():
            name = f"file:{(base / name[5:]).resolve()}"
        tasks = b.get("tasks")
        limit = b.get("limit")
        if tasks is not None:
            tasks = tuple(str(t) for t in _expect(tasks, list, f"{where}: benchmarks[{i}].tasks"))
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise ConfigError(f"{where}: benchmarks[{i}].limit must be a positive integer")
        transform = None
        if "transform" in b:
            study_seed = raw.get("seed", 0) if isinstance(raw.get("seed", 0), int) else 0
            transform = parse_transform(
                b["transform"], study_seed, f"{where}: benchmarks[{i}].transform"
            )
        benchmarks.append(BenchmarkChoice(name, tasks, limit, transform))
    if not benchmarks:
        raise ConfigError(f"{where}: no [[benchmarks]] — name at least one (e.g. humaneval)")

    model_tables = raw.get("models", [])
    model_base = base
    if extra_models:
        model_tables = [{"spec": s} for s in extra_models]
        model_base = Path.cwd()
    models = []
    for i, m in enumerate(_expect(model_tables, list, f"{where}: models"), 1):
        _expect(m, dict, f"{where}: models[{i}]")
        if "spec" not in m:
            raise ConfigError(f"{where}: models[{i}] needs a spec (e.g. openai:gpt-4o)")
        spec = _resolve_spec(str(m["spec"]), model_base)
        client_keys = ("spec", "label", "max_concurrency", "max_attempts")
        options = {k: v for k, v in m.items() if k not in client_keys}
        models.append(
            ModelChoice(
                spec=spec,
                label=str(m.get("label") or default_label(spec)),
                max_concurrency=int(m.get("max_concurrency", 4)),
                max_attempts=int(m.get("max_attempts", 5)),
                options=options,
            )
        )
    if not models:
        raise ConfigError(f"{where}: no [[models]] — add one or pass --model SPEC")
    labels = [m.label for m in models]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{where}: model labels must be unique, got {labels}")

    prompts = dict(_expect(raw.get("prompts", {}), dict, f"{where}: prompts"))
    answer_format = prompts.pop("answer_format", None)
    if "conditions" in prompts:
        conds = _expect(prompts["conditions"], list, f"{where}: prompts.conditions")
        plan = plan_from_config(str(prompts.get("plan", "custom")), conds)
    else:
        name = str(prompts.get("plan", "function-only"))
        plan = plan_by_name(name, prompts, base, f"{where}: prompts") or builtin_plan(name)
    if answer_format is not None:  # what the prompts ask for: extraction reads it that way
        if not isinstance(answer_format, str) or answer_format not in registry.answer_formats():
            raise ConfigError(
                f"{where}: prompts.answer_format must be one of "
                f"{', '.join(registry.answer_formats())}, got {answer_format!r}"
            )
        plan = replace(plan, answer_format=answer_format)

    sampling_raw = dict(_expect(raw.get("sampling", {}), dict, f"{where}: sampling"))
    n = sampling_raw.pop("n", 1)
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"{where}: sampling.n must be a positive integer")
    if "stop" in sampling_raw:
        sampling_raw["stop"] = tuple(sampling_raw["stop"])
    try:
        sampling = SamplingParams(**sampling_raw)
    except TypeError as exc:
        raise ConfigError(f"{where}: sampling: {exc}") from exc

    execution_raw = dict(_expect(raw.get("execution", {}), dict, f"{where}: execution"))
    try:
        executor = ExecutorChoice(
            name=str(execution_raw.pop("executor", DEFAULT_EXECUTOR)),
            isolation=str(execution_raw.pop("isolation", "auto")),
            ray_address=execution_raw.pop("ray_address", None),
            process_budget=str(execution_raw.pop("process_budget", "auto")),
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}: execution: {exc}") from exc
    try:
        limits = ExecutionLimits(**execution_raw)
    except TypeError as exc:
        raise ConfigError(f"{where}: execution: {exc}") from exc

    evaluators, verdict_options = _evaluation(raw.get("evaluation", {}), where)

    seed = raw.get("seed", 0)
    if not isinstance(seed, int):
        raise ConfigError(f"{where}: seed must be an integer")
    _check_report_table(raw.get("report", {}), where)
    return StudyConfig(
        name=str(raw.get("name") or path.stem),
        description=str(raw.get("description", "")),
        seed=seed,
        benchmarks=tuple(benchmarks),
        models=tuple(models),
        plan=plan,
        sampling=sampling,
        n=n,
        limits=limits,
        executor=executor,
        evaluators=evaluators,
        verdict_options=verdict_options,
        source=str(path.resolve()),
        raw=raw,
    )


def _check_report_table(report: Any, where: str) -> None:
    """``[report] version_pairs = [["old-label", "new-label"], ...]`` (Table 4 pairs)."""
    _expect(report, dict, f"{where}: report")
    unknown = sorted(set(report) - {"version_pairs"})
    if unknown:
        raise ConfigError(f"{where}: report: unknown key(s) {unknown} — valid: ['version_pairs']")
    pairs = report.get("version_pairs", [])
    _expect(pairs, list, f"{where}: report.version_pairs")
    for i, pair in enumerate(pairs, 1):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(x, str) and x for x in pair)
            or pair[0] == pair[1]
        ):
            raise ConfigError(
                f"{where}: report.version_pairs[{i}] must be two different model labels "
                f'["old", "new"], got {pair!r}'
            )


def _evaluation(
    table: Any, where: str
) -> tuple[tuple[EvaluatorChoice, ...], dict[str, dict[str, Any]]]:
    """``[evaluation]``: the evaluators to run and each one's options.

    ``evaluators = ["nfr", ...]`` lists them; ``[evaluation.NAME]`` gives one its options
    (and turns it on); ``NAME = true`` is the short form; ``timing_repeats`` is the older
    spelling of ``[evaluation.functional] timing_repeats``. Options are checked by each
    evaluator's own schema.
    """
    table = _expect(table, dict, f"{where}: evaluation")
    known = registry.evaluator_names()
    unknown = sorted(set(table) - {"evaluators", "timing_repeats", *known})
    if unknown:
        valid = sorted({"evaluators", "timing_repeats", *known})
        raise ConfigError(f"{where}: evaluation: unknown key(s) {unknown} — valid: {valid}")
    chosen: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(_expect(table.get("evaluators", []), list, f"{where}: evaluators")):
        if isinstance(item, str):
            chosen.setdefault(item, {})
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            chosen[item["name"]] = {k: v for k, v in item.items() if k != "name"}
        else:
            raise ConfigError(
                f"{where}: evaluation.evaluators[{i + 1}]: expected an evaluator name or a "
                f"table with a name, got {item!r}"
            )
    for key, value in table.items():
        if key in ("evaluators", "timing_repeats"):
            continue
        if isinstance(value, bool):
            if value:
                chosen.setdefault(key, {})
            else:
                chosen.pop(key, None)
        elif isinstance(value, dict):
            chosen[key] = {**chosen.get(key, {}), **value}
        else:
            raise ConfigError(
                f"{where}: evaluation.{key}: expected bool (on/off) or a table of options, "
                f"got {value!r}"
            )
    add_ons: list[EvaluatorChoice] = []
    verdict: dict[str, dict[str, Any]] = {FUNCTIONAL: {}}
    for name, options in chosen.items():
        spec, _ = registry.evaluator(name)
        if spec.decides_verdict:
            verdict[name] = options
            continue
        for key, default in spec.verdict_options.items():  # e.g. nfr: timed test re-runs
            verdict[FUNCTIONAL].setdefault(key, default)
        add_ons.append(EvaluatorChoice(name, _options(name, options, where)))
    if "timing_repeats" in table:
        repeats = table["timing_repeats"]
        if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 0:
            raise ConfigError(f"{where}: evaluation.timing_repeats must be an integer >= 0")
        verdict[FUNCTIONAL]["timing_repeats"] = repeats
    if FUNCTIONAL in chosen:
        verdict[FUNCTIONAL].update(chosen[FUNCTIONAL])
    verdict = {name: _options(name, options, where) for name, options in verdict.items()}
    return tuple(add_ons), verdict


def _options(name: str, options: dict[str, Any], where: str) -> dict[str, Any]:
    return registry.evaluator_options(name, options, f"{where}: evaluation.{name}")
