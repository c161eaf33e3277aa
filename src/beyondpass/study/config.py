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

    [evaluation]
    nfr = true                    # RobuNFR metrics (docs/nfr-metrics.md); default false
    # timing_repeats = 5          # per passing test, for exec_time_ms (default 5 with nfr)

Relative paths (``replay:answers.jsonl``, ``file:tasks.jsonl``) are relative to the study file.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.execution import DEFAULT_EXECUTOR, ExecutorChoice
from beyondpass.execution.base import ExecutionLimits
from beyondpass.methods.robunfr.evaluators.nfr import TIMING_REPEATS as NFR_TIMING_REPEATS
from beyondpass.models.base import SamplingParams
from beyondpass.models.factory import parse_spec
from beyondpass.prompts.plan import PromptPlan, builtin_plan, plan_from_config
from beyondpass.prompts.robunfr import plan_from_prompts_table
from beyondpass.studies import (  # noqa: F401 - re-exported: the study loader's own API
    BUILTIN_STUDIES,
    builtin_study_path,
    resolve_study_path,
)

#: Where built-in study files live (``beyondpass run studies/robunfr.toml`` finds them).

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


@dataclass(frozen=True)
class BenchmarkChoice:
    name: str
    tasks: tuple[str, ...] | None = None
    limit: int | None = None


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
    nfr: bool = False  # add the NFR metrics evaluator
    timing_repeats: int = 0  # timed re-runs of each passing test (exec_time_ms)
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

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
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"study file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read study file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from exc
    return study_from_dict(raw, path, extra_models)


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
        benchmarks.append(BenchmarkChoice(name, tasks, limit))
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

    prompts = _expect(raw.get("prompts", {}), dict, f"{where}: prompts")
    if "conditions" in prompts:
        conds = _expect(prompts["conditions"], list, f"{where}: prompts.conditions")
        plan = plan_from_config(str(prompts.get("plan", "custom")), conds)
    elif prompts.get("plan") == "robunfr":
        plan = plan_from_prompts_table(prompts, base, f"{where}: prompts")
    else:
        plan = builtin_plan(str(prompts.get("plan", "function-only")))

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
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}: execution: {exc}") from exc
    try:
        limits = ExecutionLimits(**execution_raw)
    except TypeError as exc:
        raise ConfigError(f"{where}: execution: {exc}") from exc

    nfr, timing_repeats = _evaluation(raw.get("evaluation", {}), where)

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
        nfr=nfr,
        timing_repeats=timing_repeats,
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


def _evaluation(table: Any, where: str) -> tuple[bool, int]:
    """``[evaluation]``: which evaluators add metrics, and how execution time is measured."""
    table = _expect(table, dict, f"{where}: evaluation")
    unknown = sorted(set(table) - {"nfr", "timing_repeats"})
    if unknown:
        raise ConfigError(
            f"{where}: evaluation: unknown key(s) {unknown} — valid: ['nfr', 'timing_repeats']"
        )
    nfr = _expect(table.get("nfr", False), bool, f"{where}: evaluation.nfr")
    repeats = table.get("timing_repeats", NFR_TIMING_REPEATS if nfr else 0)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 0:
        raise ConfigError(f"{where}: evaluation.timing_repeats must be an integer >= 0")
    return nfr, repeats
