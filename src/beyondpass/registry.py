"""The registry: every component beyondpass knows, found by name.

A *method* (RobuNFR, RobustAPI, a third-party one) is a package that exposes one
:class:`Method`: its benchmarks, prompt plans, answer formats, evaluators with their metric
definitions, headline metrics, benchmark transforms, report sections, CLI commands, built-in
studies, model providers and executors. beyondpass's own components are declared the same
way, as the method ``core`` (:mod:`beyondpass.core`), so this is the only table of components. The
generic stages (study, extraction, evaluators, models, execution, cli, report) never import a
method; they ask this module (e.g. :func:`evaluator`, :func:`plan`, :func:`answer_format`).

Components are named lazily, as ``"package.module:attribute"`` strings (or objects), and
resolved only when used, by :func:`resolve` alone: listing methods imports nothing heavy, and
a method whose optional dependencies are missing still lists and fails with one line naming
its extra (``pip install 'beyondpass[java]'``) only when one of its components is used.

Discovery: the built-in methods (:data:`BUILTIN_METHODS`, ``core`` first), then every entry
point of the group ``beyondpass.methods`` (a :class:`Method`, or a callable returning one).
Names are unique; the first registration of a name wins, so an editable install that exposes
its distribution twice registers once, and no plugin replaces a core component.

One module past 500 lines, on purpose: the spec of each kind of component and its lookup
are one table a method author reads top to bottom, and every method imports from here.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from beyondpass.errors import ConfigError

ENTRY_POINT_GROUP = "beyondpass.methods"
#: the name of the core components' method (``beyondpass.core``); no plugin may take it
CORE_NAME = "core"
#: ``module`` exposing ``METHOD`` for each method shipped with beyondpass
BUILTIN_METHODS = (
    "beyondpass.core",  # the core components, registered first like any method
    "beyondpass.methods.robunfr",
    "beyondpass.methods.robustapi",
    "beyondpass.methods.psb2",
    "beyondpass.methods.nofuneval",
    "beyondpass.methods.obfuseval",
)

#: a component: an object, or ``"package.module:attribute"`` resolved on first use
Ref = str | Callable[..., Any]


class MissingExtra(ConfigError):
    """A method's optional dependencies are not installed."""


# -- component specs --------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One metric an evaluator produces: how to read it and how it aggregates."""

    name: str
    unit: str = ""
    direction: Literal["higher", "lower", "none"] = "none"  # which way is better
    aggregation: Literal["mean", "sum", "rate", "none"] = "mean"  # over samples
    description: str = ""


@dataclass(frozen=True)
class EvaluatorContext:
    """What a study gives every evaluator factory."""

    #: beyondpass.execution.base.Executor: the one the user chose, given to evaluators whose
    #: spec says ``runs_code`` (``None`` for the others)
    executor: Any = None
    limits: Any = None  # beyondpass.execution.base.ExecutionLimits
    workers: int | None = None
    data_dir: str | None = None
    seed: int = 0
    run_dir: str | None = None  # the study run's folder, for evaluators that keep state
    #: beyondpass.execution.pool.BatchPool: where batch work (analysers, metrics) runs —
    #: on Ray with ``--executor ray``, else in this process; ``None``: in this process
    pool: Any = None
    #: beyondpass.execution.ExecutorChoice: the isolation level and process budget the user
    #: chose, for evaluators that start sandboxes of their own (ObfusEval's project mode)
    executor_choice: Any = None


@dataclass(frozen=True)
class EvaluatorSpec:
    """An evaluator as study files name it (``[evaluation]``).

    ``factory(options, context)`` builds it; ``options`` is a pydantic model (its own schema:
    unknown keys are errors). ``decides_verdict`` evaluators are chosen per task (a task's
    ``metadata["evaluator"]`` names one, default ``functional``); the others add metrics.
    ``verdict_options`` are defaults this evaluator asks of the verdict evaluator (RobuNFR's
    execution time needs timed test re-runs). ``result_fields`` and ``summary`` shape what the
    ``evaluate`` command writes per answer and prints at the end; ``label`` names the
    evaluator in that output, ``cli_flag`` gives ``evaluate`` a flag that adds it.
    ``runs_code``: it runs programs, so every command gives it the executor the user chose
    (``--executor``, ``--isolation``, Ray address) in its context; the others get none.
    """

    name: str
    factory: Ref
    options: Ref | None = None
    metrics: tuple[Metric, ...] = ()
    decides_verdict: bool = False
    verdict_options: Mapping[str, Any] = field(default_factory=dict)
    result_fields: tuple[str, ...] = ()
    summary: Ref | None = None
    label: str = ""
    description: str = ""
    #: a flag of ``beyondpass evaluate`` that adds this evaluator (``nfr``: ``--nfr``)
    cli_flag: str | None = None
    cli_help: str = ""
    runs_code: bool = False
    #: former names: a study file, ``--evaluator`` or ``rescore`` naming one gets this
    #: evaluator, which stores its results under ``name`` (runs stored under a former name
    #: are renamed when opened, :mod:`beyondpass.store.migrate`)
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class HeadlineSpec:
    """One of a method's headline metrics: the few numbers a team reads first, shown side by
    side in the profile report and gated by ``compare``.

    ``values(rows, meta)`` yields :class:`beyondpass.analysis.headline.Observation`: one value
    per pairing unit (``pairs_on``: the task, question or row two runs are paired on) of a
    benchmark x model x group, with a weight, so the method's own estimate (a mean over
    tasks, or a pooled rate such as misuses among compilable answers) is their weighted
    mean. ``unit``: ``share`` (shown in %, gated in percentage points), ``points``,
    ``ratio``, ``density`` or ``ms``.
    """

    metric: str
    label: str
    direction: Literal["higher", "lower"]
    unit: Literal["share", "points", "ratio", "density", "ms"]
    pairs_on: Literal["task", "question", "row"]
    values: Ref
    description: str = ""
    decimals: int = 2


@dataclass(frozen=True)
class BenchmarkSpec:
    """``loader(data_dir) -> Benchmark``; ``answer_format``: how its answers are read when
    the prompt plan does not say (e.g. replayed answer files). ``takes_argument``: the
    benchmark is named ``NAME:ARGUMENT`` (e.g. a file a run wrote) and built by
    ``loader(data_dir, argument)`` under that whole name, so a run that recorded it can
    load it again by name (``rescore``)."""

    name: str
    loader: Ref
    description: str = ""
    answer_format: str | None = None
    takes_argument: bool = False


@dataclass(frozen=True)
class PlanSpec:
    """``factory(prompts_table, study_dir, where) -> PromptPlan`` for ``[prompts] plan = name``;
    ``answer_format`` is the format the plan's prompts ask the model for."""

    name: str
    factory: Ref
    description: str = ""
    answer_format: str | None = None


@dataclass(frozen=True)
class AnswerFormatSpec:
    """``extractor(answer, task) -> Extraction``: how answers in this format become code.

    ``reads_condition``: the reading depends on the prompt that was asked (NoFunEval's own
    reading splits the echoed prompt by its template), so the extractor is called as
    ``extractor(answer, task, condition)`` with the sample's condition id.
    """

    name: str
    extractor: Ref
    description: str = ""
    reads_condition: bool = False


@dataclass(frozen=True)
class AnswerFileSpec:
    """``factory(options) -> beyondpass.study.answer_files.AnswerFile``: a kind of answers
    file ``evaluate`` reads (RobustAPI's ``id``/``response`` lines, NoFunEval's generation
    files), with the answer format, evaluator options and exports that go with it."""

    name: str
    factory: Ref
    description: str = ""


@dataclass(frozen=True)
class TransformSpec:
    """``factory(benchmark, options, seed) -> Benchmark``; ``options`` a pydantic model.

    ``runs_code``: it runs programs (ObfusEval verifies every variant), so every command
    calls it with ``context=`` a :class:`TransformContext` holding the executor the user
    chose — the same one the run's evaluators get, local or on Ray — instead of the
    transform starting one of its own.
    """

    name: str
    factory: Ref
    options: Ref | None = None
    version: str = "1"
    description: str = ""
    runs_code: bool = False


@dataclass(frozen=True)
class TransformContext:
    """What a command gives a transform whose spec says ``runs_code``.

    ``executor``: beyondpass.execution.base.Executor, the run's (``None``: the transform
    starts the default local one itself); ``pool``: the run's batch pool (``None``: in this
    process); ``ran``: filled by the transform with how it ran (which executor verified,
    counts) — recorded in the run's metadata beside the transform, never part of the
    transformed benchmark's version.
    """

    executor: Any = None
    pool: Any = None
    ran: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderSpec:
    """``factory(model, base_url, **options) -> ModelProvider`` for specs ``name:MODEL``.

    ``takes_url``: the spec may end in ``@http(s)://...`` and ``#option=value,...``.
    ``sdk``: the module (and pip extra of the same name) the provider imports; when it is
    missing, building the provider says so in one line.
    """

    name: str
    factory: Ref
    sdk: str | None = None
    takes_url: bool = True
    description: str = ""


@dataclass(frozen=True)
class ExecutorSpec:
    """``factory(**defaults, **options) -> Executor``: what ``create_executor(name, **options)``
    builds (the core's are the choices of ``--executor`` and ``[execution]``)."""

    name: str
    factory: Ref
    #: keyword arguments the factory gets unless the caller gives them
    defaults: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""


@dataclass(frozen=True)
class Method:
    """Everything one method brings. ``extra``/``requires``: the pip extra and the modules it
    installs; the method's evaluators, answer formats, providers and executors need them."""

    name: str
    description: str = ""
    extra: str | None = None
    requires: tuple[str, ...] = ()
    benchmarks: tuple[BenchmarkSpec, ...] = ()
    plans: tuple[PlanSpec, ...] = ()
    answer_formats: tuple[AnswerFormatSpec, ...] = ()
    #: kinds of answers file ``evaluate`` reads, each with its exports (``robustapi check``)
    answer_files: tuple[AnswerFileSpec, ...] = ()
    evaluators: tuple[EvaluatorSpec, ...] = ()
    transforms: tuple[TransformSpec, ...] = ()
    #: classes satisfying ``beyondpass.report.sections.ReportSection``, built with no arguments
    report_sections: tuple[Ref, ...] = ()
    #: click commands or groups added to the ``beyondpass`` command line
    commands: tuple[Ref, ...] = ()
    #: a package holding the method's built-in study files (``*.toml``)
    studies: str | None = None
    #: extra names of the task id field in answer files (RobustAPI's files say ``id``)
    task_id_fields: tuple[str, ...] = ()
    #: how analyses and ``compare`` present the method's metrics: a mapping of metric name to
    #: ``beyondpass.analysis.metrics.MetricDef`` (label, better direction, decimals, unit)
    analysis_metrics: Ref | None = None
    #: a class ``compare`` uses to analyse two runs side by side (built with no arguments)
    version_comparison: Ref | None = None
    #: the method's headline metrics (profile report, ``compare`` and its gate)
    headlines: tuple[HeadlineSpec, ...] = ()
    #: model providers, named by the ``provider:`` part of a model spec
    providers: tuple[ProviderSpec, ...] = ()
    #: executors of generated code, named by ``--executor`` and ``[execution]``
    executors: tuple[ExecutorSpec, ...] = ()

    def missing(self) -> str | None:
        """The first required module that is not installed, if any."""
        for module in self.requires:
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                found = None
            if found is None:
                return module
        return None


#: the default answer format per task language, when neither plan nor benchmark says
LANGUAGE_FORMATS = {"python": "fenced-code"}
DEFAULT_FORMAT = "whole-program"


# -- discovery --------------------------------------------------------------------------------
_methods: dict[str, Method] | None = None


def _coerce(obj: Any, where: str) -> Method:
    if callable(obj) and not isinstance(obj, Method):
        obj = obj()
    if not isinstance(obj, Method):
        raise TypeError(f"{where} is not a beyondpass.registry.Method")
    return obj


def _discover() -> dict[str, Method]:
    found: dict[str, Method] = {}
    for module in BUILTIN_METHODS:
        method = _coerce(importlib.import_module(module).METHOD, module)
        found.setdefault(method.name, method)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            method = _coerce(ep.load(), f"entry point {ep.value}")
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
            warnings.warn(
                f"beyondpass: method entry point {ep.name} ({ep.value}) cannot be loaded: {exc}",
                stacklevel=2,
            )
            continue
        found.setdefault(method.name, method)  # seen twice (editable install): keep one
    return found


def methods() -> dict[str, Method]:
    """Every registered method by name (built-ins first), discovered once."""
    global _methods
    if _methods is None:
        _methods = _discover()
    return _methods


def register(method: Method) -> None:
    """Register ``method`` (what an entry point does); a name registers only once."""
    if method.name == CORE_NAME:
        raise ConfigError(f"method name {CORE_NAME!r} is reserved")
    methods().setdefault(method.name, method)


def reset() -> None:
    """Forget discovered methods (the next lookup discovers again)."""
    global _methods
    _methods = None


def method(name: str) -> Method:
    try:
        return methods()[name]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r} — installed methods: {', '.join(methods())}"
        ) from None


# -- resolution -------------------------------------------------------------------------------
def resolve(ref: Ref, owner: Method | None = None, *, needs_extra: bool = True) -> Any:
    """The object ``ref`` names; with ``needs_extra``, first check ``owner``'s extra."""
    if owner is not None and needs_extra:
        absent = owner.missing()
        if absent is not None:
            hint = (
                f"pip install 'beyondpass[{owner.extra}]'"
                if owner.extra
                else f"install {', '.join(owner.requires)}"
            )
            raise MissingExtra(
                f"method {owner.name} needs its optional dependencies (module {absent} is "
                f"missing) — {hint}"
            )
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def _find(kind: str, name: str) -> tuple[Any, Method] | None:
    for m in methods().values():
        for spec in getattr(m, kind):
            if spec.name == name:
                return spec, m
    return None


def _names(kind: str) -> list[str]:
    return [spec.name for m in methods().values() for spec in getattr(m, kind)]


def _require(kind: str, name: str, what: str, listed: str = "known") -> tuple[Any, Method]:
    found = _find(kind, name)
    if found is None:
        raise ConfigError(f"unknown {what} {name!r} — {listed}: {', '.join(_names(kind))}")
    return found


def benchmarks() -> dict[str, tuple[BenchmarkSpec, Method]]:
    """Every registered benchmark by name (the core's first; the first of a name wins)."""
    out: dict[str, tuple[BenchmarkSpec, Method]] = {}
    for m in methods().values():
        for s in m.benchmarks:
            out.setdefault(s.name, (s, m))
    return out


def plan(name: str) -> tuple[PlanSpec, Method] | None:
    return _find("plans", name)


def plan_names() -> list[str]:
    return _names("plans")


def evaluator(name: str) -> tuple[EvaluatorSpec, Method]:
    """The evaluator ``name``, or the one that had that name before (``aliases``)."""
    found = _find("evaluators", name)
    if found is not None:
        return found
    for spec, m in iter_specs("evaluators"):
        if name in spec.aliases:
            return spec, m
    return _require("evaluators", name, "evaluator")


def evaluator_names() -> list[str]:
    """Every name an evaluator answers to: the current ones, then the former ones."""
    names = _names("evaluators")
    return names + [a for spec, _ in iter_specs("evaluators") for a in spec.aliases]


def transform(name: str) -> tuple[TransformSpec, Method]:
    return _require("transforms", name, "benchmark transform")


def provider(name: str) -> tuple[ProviderSpec, Method] | None:
    """The model provider ``name`` (the ``provider:`` part of a model spec), if registered."""
    return _find("providers", name)


def provider_names() -> list[str]:
    return _names("providers")


def executor(name: str) -> tuple[ExecutorSpec, Method]:
    return _require("executors", name, "executor", listed="available")


def executor_names() -> list[str]:
    return _names("executors")


def answer_format(name: str) -> Callable[..., Any]:
    """The extractor of answer format ``name``."""
    spec, owner = _require("answer_formats", name, "answer format")
    return resolve(spec.extractor, owner)


def answer_format_spec(name: str) -> AnswerFormatSpec:
    spec, _ = _require("answer_formats", name, "answer format")
    return spec


def answer_file(name: str) -> tuple[AnswerFileSpec, Method]:
    """The kind of answers file ``name`` (``answers``: the common answer-line formats)."""
    return _require("answer_files", name, "kind of answers file")


def answer_formats() -> list[str]:
    return _names("answer_formats")


def default_answer_format(benchmark: str, language: str) -> str:
    """How answers to a task are read when the prompt plan does not say."""
    found = benchmarks().get(benchmark)
    if found is not None and found[0].answer_format:
        return found[0].answer_format
    return LANGUAGE_FORMATS.get(language.lower(), DEFAULT_FORMAT)


def commands() -> list[Any]:
    """Every method's click commands (commands import no optional dependency up front)."""
    return [resolve(ref, m, needs_extra=False) for m in methods().values() for ref in m.commands]


def report_sections() -> list[Any]:
    """One instance of every registered method's report sections."""
    return [
        resolve(ref, m, needs_extra=False)()
        for m in methods().values()
        for ref in m.report_sections
    ]


def analysis_metrics() -> list[Any]:
    """The presentation of every registered method's metrics (``MetricDef`` objects): those
    it defines, then its headline metrics."""
    from beyondpass.analysis.headline import headline_metric_def

    out: list[Any] = []
    for m in methods().values():
        if m.analysis_metrics is not None:
            out.extend(resolve(m.analysis_metrics, m, needs_extra=False).values())
    defined = {d.key for d in out}
    out.extend(headline_metric_def(h) for h, _ in headlines() if h.metric not in defined)
    return out


def headlines() -> list[tuple[HeadlineSpec, Method]]:
    """Every registered method's headline metrics, in registration order."""
    return [(h, m) for m in methods().values() for h in m.headlines]


def version_comparison() -> Any:
    """The analysis ``compare`` runs on two runs: the first registered method's that has one."""
    for m in methods().values():
        if m.version_comparison is not None:
            return resolve(m.version_comparison, m, needs_extra=False)()
    raise ConfigError("no installed method supplies the analysis `compare` needs")


def study_files() -> dict[str, Path]:
    """Built-in study files by stem (``robunfr``), from every method's ``studies`` package."""
    from importlib import resources

    out: dict[str, Path] = {}
    for m in methods().values():
        if not m.studies:
            continue
        for entry in resources.files(m.studies).iterdir():
            if entry.name.endswith(".toml"):
                out.setdefault(entry.name[:-5], Path(str(entry)))
    return dict(sorted(out.items()))


def task_id_fields() -> tuple[str, ...]:
    """Names of the task id field in answer files, ``task_id`` first."""
    extra = [f for m in methods().values() for f in m.task_id_fields]
    return tuple(dict.fromkeys(["task_id", *extra]))


# -- options ----------------------------------------------------------------------------------
def validate_options(model: Any, values: Mapping[str, Any], where: str) -> Any:
    """``values`` checked by the pydantic ``model``; one line naming the bad key on error."""
    import pydantic

    try:
        return model.model_validate(dict(values))
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "(options)"
        if first.get("type") == "extra_forbidden":
            valid = ", ".join(model.model_fields) or "none"
            raise ConfigError(f"{where}: unknown key {key!r} — valid: {valid}") from None
        raise ConfigError(f"{where}.{key}: {first.get('msg', 'invalid')}") from None


def evaluator_options(name: str, values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Options for evaluator ``name``, validated by its own schema, as plain data."""
    spec, owner = evaluator(name)
    if spec.options is None:
        if values:
            raise ConfigError(f"{where}: evaluator {name} takes no options, got {sorted(values)}")
        return {}
    model = resolve(spec.options, owner, needs_extra=False)
    return validate_options(model, values, where).model_dump()


def iter_specs(kind: str) -> Iterable[tuple[Any, Method]]:
    """Every spec of ``kind`` (``"evaluators"``, ``"plans"``, ...) with its method."""
    for m in methods().values():
        for spec in getattr(m, kind):
            yield spec, m
