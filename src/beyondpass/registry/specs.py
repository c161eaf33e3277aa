"""The specs a method declares: one frozen dataclass per kind of component, and
:class:`Method`, which holds them. Plain data: nothing here imports a component; the
registry (:mod:`beyondpass.registry`) discovers methods and looks specs up by name.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

#: a component: an object, or ``"package.module:attribute"`` resolved on first use
Ref = str | Callable[..., Any]


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
    #: sections ``compare`` adds beside the headline comparison: classes satisfying
    #: ``beyondpass.analysis.compare_section.CompareSection``, built with no arguments
    compare_sections: tuple[Ref, ...] = ()
    #: the method's headline metrics (profile report, ``compare`` and its gate)
    headlines: tuple[HeadlineSpec, ...] = ()
    #: ``reading(meta) -> {option: value}``: the options a run was made with that change the
    #: method's headline numbers (RobustAPI's checker semantics, NoFunEval's compat reading);
    #: ``compare`` reads each run in its own and refuses to compare two different readings
    headline_reading: Ref | None = None
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
