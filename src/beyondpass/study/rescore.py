"""``beyondpass rescore``: add or recompute evaluators on an existing run.

The samples (answers and extracted code) are already in the run, so no model is asked, and
every evaluator's results are their own rows, so only the evaluators named are run: their
rows are added or replaced, the others' stay as they are (docs/store.md). A name means the
registered evaluator (:func:`from_registry`, built by the same
:class:`~beyondpass.evaluators.setup.EvaluationSetup` as ``run`` and ``evaluate``: every
evaluator that runs code gets the executor chosen); a caller may pass another builder,
``(name, options, context) -> Evaluator``. The :class:`RunContext` gives it what the run
recorded (benchmark tasks, executor, limits, timing repeats, seed), so a recomputed verdict
is made under the same conditions as the original one.

Resumable like everything else: each evaluation is stored as it completes, and the time a
recomputation started is kept in the run's metadata until it finishes, so the same command
after a kill only redoes what was not redone yet. What was done (evaluators, versions,
metadata, when) is appended to the run's ``rescores`` metadata.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.benchmarks import Benchmark, load_benchmark
from beyondpass.benchmarks.task import Task
from beyondpass.benchmarks.transforms import TransformChoice, apply_transform
from beyondpass.errors import ConfigError, DataError
from beyondpass.evaluators.base import Evaluator
from beyondpass.evaluators.select import FUNCTIONAL, DispatchEvaluator
from beyondpass.evaluators.setup import EvaluationSetup
from beyondpass.execution import ISOLATION_LEVELS, ExecutionLimits, ExecutorChoice
from beyondpass.execution.base import Executor
from beyondpass.models.replay import AnswerRow
from beyondpass.store.run_store import RunStore
from beyondpass.study.answer_files import AnswerFile, recorded_answer_file
from beyondpass.study.progress import NullProgress, Progress
from beyondpass.study.provenance import environment, now_iso
from beyondpass.study.scoring import check_evaluators, register_evaluators, score_pending

IN_PROGRESS = "rescore_in_progress"  # meta: evaluator name -> when its recomputation began
HISTORY = "rescores"  # meta: one record per finished rescore


@dataclass
class RunContext:
    """What an evaluator builder may read about the run it scores; ``setup`` builds
    evaluators as ``run`` and ``evaluate`` do (the executor chosen, the run's seed, limits
    and timing repeats)."""

    run_dir: Path
    meta: dict[str, Any]
    tasks: dict[tuple[str, str], Task]
    setup: EvaluationSetup

    @property
    def limits(self) -> ExecutionLimits:
        return self.setup.limits or ExecutionLimits()

    @property
    def timing_repeats(self) -> int:
        return int(self.setup.defaults.get(FUNCTIONAL, {}).get("timing_repeats", 0))

    def executor(self) -> Executor:
        """The run's executor (built once, on first use; closed when the rescore ends)."""
        return self.setup.executor()

    def close(self) -> None:
        self.setup.close()


EvaluatorBuilder = Callable[[str, Mapping[str, Any], RunContext], Evaluator]


def from_registry(name: str, options: Mapping[str, Any], context: RunContext) -> Evaluator:
    """The registered evaluator ``name`` (any method's), built as ``run`` builds it: an
    evaluator that runs code gets the executor chosen; functional's timed re-runs default to
    what the run recorded. ``dispatch``, the verdict evaluator of a run whose tasks ask for
    different ones (RobustAPI's checker beside tests, a study's arms), is built again the way
    the run built it: from its tasks."""
    if name == DispatchEvaluator.name:
        if options:
            raise ConfigError(f"{name} takes no options: each of its evaluators has its own")
        return context.setup.verdict(context.tasks.values())
    return context.setup.evaluator(name, options)


@dataclass
class RescoreOutcome:
    run_dir: Path
    kind: str
    evaluators: list[dict[str, Any]]  # name, version, samples scored
    n_samples: int
    results: Any = None  # evaluate runs: the refreshed results.jsonl's EvaluateOutcome


def rescore(
    run_dir: str | Path,
    names: Sequence[str],
    build: EvaluatorBuilder = from_registry,
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    data_dir: str | None = None,
    workers: int | None = None,
    executor: ExecutorChoice | None = None,
    samples_path: str | Path | None = None,
    progress: Progress | None = None,
) -> RescoreOutcome:
    """Add or recompute the evaluators ``names`` (default: all the run has) on ``run_dir``.

    ``executor`` overrides the executor the run recorded (how code runs, not what is
    measured); ``samples_path`` is where an evaluation's answers file is now, when it moved
    (``results.jsonl`` is rebuilt from it).
    """
    progress = progress or NullProgress()
    run_dir = Path(run_dir)
    options = options or {}
    with RunStore(run_dir, create=False) as store:
        meta = store.all_meta()
        kind = meta.get("kind")
        if kind not in ("study", "evaluate"):
            raise DataError(f"{run_dir}: not a run of `beyondpass run` or `evaluate` ({kind=})")
        names = _names(store, names, options, run_dir)
        reader = recorded_answer_file((meta.get("samples") or {}).get("reader"))
        setup = _setup(run_dir, meta, data_dir, workers, executor, reader)
        try:  # a transform that runs code runs it on the setup's executor
            benchmarks = _benchmarks(meta, data_dir, setup)
            answers = None
            if kind == "evaluate":
                bench = benchmarks[meta["benchmark_name"]]
                answers = _answers(meta, bench, run_dir, samples_path, reader)
            context = RunContext(run_dir, meta, _tasks(benchmarks), setup)
            keys = sorted(store.sample_keys())
            _check_tasks_known(store, keys, context, run_dir)
            evaluators = [build(name, options.get(name, {}), context) for name in names]
            evaluators.sort(key=lambda ev: not ev.decides_verdict)
            began = now_iso()
            counts = _score(store, evaluators, keys, context, progress)
        finally:
            setup.close()
        records = [
            {"evaluator": ev.name, "version": ev.version, "samples_scored": counts[ev.name]}
            for ev in evaluators
        ]
        _record(store, evaluators, records, options, began, context)
        rows = {r.sample.key: r for r in store.rows()}
        add_ons = [e.name for e in store.evaluators() if not e.decides_verdict]
    outcome = RescoreOutcome(run_dir, kind, records, len(keys))
    if answers is not None:
        from beyondpass.study.evaluate_samples import evaluation_plan, write_results

        rows_in, resolved, line_keys = answers
        bench = benchmarks[meta["benchmark_name"]]
        plan = evaluation_plan(add_ons)
        outcome.results = write_results(
            run_dir, bench, rows_in, resolved, line_keys, rows, plan, reader
        )
    return outcome


def _names(
    store: RunStore, names: Sequence[str], options: Mapping[str, Any], run_dir: Path
) -> list[str]:
    """The evaluators to rescore: those named, else all the run has; options only for them."""
    names = list(dict.fromkeys(names)) or [e.name for e in store.evaluators()]
    if not names:
        raise ConfigError(f"{run_dir} has no evaluators yet; name one with --evaluator")
    unknown_options = sorted(set(options) - set(names))
    if unknown_options:
        raise ConfigError(f"options given for evaluators not rescored: {unknown_options}")
    return names


def _check_tasks_known(
    store: RunStore, keys: list[str], context: RunContext, run_dir: Path
) -> None:
    """Every stored sample's task is in the benchmark as loaded now."""
    missing = {
        (s.benchmark, s.task_id)
        for k in keys
        if (s := store.get_sample(k)) and (s.benchmark, s.task_id) not in context.tasks
    }
    if missing:
        raise DataError(f"{run_dir}: tasks of stored samples not in the benchmark: {missing}")


def _score(
    store: RunStore,
    evaluators: list[Evaluator],
    keys: list[str],
    context: RunContext,
    progress: Progress,
) -> dict[str, int]:
    """Score ``keys`` again with ``evaluators``; samples scored per evaluator.

    Each evaluator's start is kept in the store until it finishes, so an interrupted
    rescore resumes: evaluations older than the start are redone, newer ones are kept.
    """
    check_evaluators(store, evaluators)
    register_evaluators(store, evaluators)
    started = dict(store.get_meta(IN_PROGRESS, {}))
    now = time.time()
    redo = {ev.name: float(started.get(ev.name, now)) for ev in evaluators}
    store.set_meta(IN_PROGRESS, {**started, **redo})
    scope = _arm_scopes(store, context.meta, keys)
    counts = {}
    for ev in evaluators:  # the verdict first (sorted by the caller)
        mine = scope.get(ev.name, keys)
        counts[ev.name] = len(mine) - len(
            set(mine) & store.evaluation_keys(ev.name, since=redo[ev.name])
        )
        score_pending(store, context.tasks, [ev], mine, progress, "rescore", redo_before=redo)
    return counts


def _arm_scopes(store: RunStore, meta: dict[str, Any], keys: list[str]) -> dict[str, list[str]]:
    """In a run of several arms, the samples each arm's add-on evaluators score: those of
    the arms that list it (an evaluator no arm lists scores every sample)."""
    arms = _dict(meta.get("arms"))
    if not arms:
        return {}
    owner: dict[tuple[str, str], str] = {}
    for name, arm in arms.items():
        for bench in _dict(arm).get("benchmarks", []):
            for cid in _dict(arm).get("conditions", []):
                owner[(bench, cid)] = name
    by_arm: dict[str, list[str]] = {name: [] for name in arms}
    for k in keys:
        sample = store.get_sample(k)
        if sample is not None and (arm := owner.get((sample.benchmark, sample.condition))):
            by_arm[arm].append(k)
    scope: dict[str, list[str]] = {}
    for name, arm in arms.items():
        for evaluator in _dict(arm).get("evaluators", []):
            scope.setdefault(evaluator, []).extend(by_arm[name])
    return scope


def _record(
    store: RunStore,
    evaluators: list[Evaluator],
    records: list[dict[str, Any]],
    options: Mapping[str, Mapping[str, Any]],
    began: str,
    context: RunContext,
) -> None:
    """Write what this rescore did into the run's metadata; clear its in-progress mark."""
    listed = store.get_meta("evaluators")
    listed = list(listed) if isinstance(listed, list) else []
    for ev in evaluators:
        md = ev.metadata()
        at = [i for i, e in enumerate(listed) if _dict(e).get("evaluator") == ev.name]
        if at:
            listed[at[0]] = md
        elif ev.decides_verdict:
            listed.insert(0, md)
        else:
            listed.append(md)
        if ev.decides_verdict:
            store.set_meta("executor", md)
    store.set_meta("evaluators", listed)
    history = list(store.get_meta(HISTORY, []))
    history.append(
        {
            "started_at": began,
            "finished_at": now_iso(),
            "evaluators": [
                {**r, "options": dict(options.get(r["evaluator"], {})), "metadata": ev.metadata()}
                for r, ev in zip(records, evaluators, strict=True)
            ],
            "limits": dataclasses.asdict(context.limits),
            "timing_repeats": context.timing_repeats,
            "pool": context.setup.pool().name,  # where batch work ran: local or ray
            "environment": environment(),
        }
    )
    store.set_meta(HISTORY, history)
    done = {ev.name for ev in evaluators}
    pending = {k: v for k, v in store.get_meta(IN_PROGRESS, {}).items() if k not in done}
    if pending:
        store.set_meta(IN_PROGRESS, pending)
    else:
        store.delete_meta(IN_PROGRESS)
    store.set_meta("updated_at", now_iso())


def _benchmarks(
    meta: dict[str, Any], data_dir: str | None, setup: EvaluationSetup
) -> dict[str, Benchmark]:
    """The run's benchmarks, refused when their data changed since the run was made."""
    out = {}
    for name, recorded in (meta.get("benchmarks") or {}).items():
        bench = load_benchmark(name, data_dir)
        transform = recorded.get("transform") if isinstance(recorded, dict) else None
        if isinstance(transform, dict):  # the run's tasks are the transformed ones: again
            choice = TransformChoice(
                str(transform.get("name")),
                dict(transform.get("options") or {}),
                int(transform.get("seed", 0)),
            )
            bench = apply_transform(bench, choice, setup.transform_context)
        version = recorded.get("version") if isinstance(recorded, dict) else None
        if version and bench.version != version:
            raise DataError(
                f"benchmark {name} is version {bench.version} here but the run used {version}: "
                "rescoring against other tasks or tests would mix two benchmarks — point "
                "--data-dir at the data the run used"
            )
        out[name] = bench
    return out


def _tasks(benchmarks: dict[str, Benchmark]) -> dict[tuple[str, str], Task]:
    tasks: dict[tuple[str, str], Task] = {}
    for bench in benchmarks.values():
        tasks.update(bench.tasks_by_key())
    return tasks


def _setup(
    run_dir: Path,
    meta: dict[str, Any],
    data_dir: str | None,
    workers: int | None,
    executor: ExecutorChoice | None,
    reader: AnswerFile | None = None,
) -> EvaluationSetup:
    """How the run executed code (executor, limits, timing), as its metadata recorded."""
    recorded = _functional_metadata(meta.get("executor"))
    ran = _recorded_executor(meta.get("executor"))
    limits_fields = {f.name for f in dataclasses.fields(ExecutionLimits)}
    raw_limits = recorded.get("limits") or meta.get("limits") or {}
    limits = ExecutionLimits(**{k: v for k, v in raw_limits.items() if k in limits_fields})
    isolation = ran.get("isolation")
    address = ran.get("ray_address")
    if ran.get("ray_started_here", True):
        address = None  # a private instance started by that run is gone
    choice = executor or ExecutorChoice(
        name=str(ran.get("executor") or ExecutorChoice.name),
        isolation=isolation if isolation in ISOLATION_LEVELS else "auto",
        ray_address=address if ran.get("executor") == "ray" else None,
    )
    study = _dict(meta.get("study"))
    return EvaluationSetup(
        choice,
        limits,
        workers,
        data_dir,
        seed=int(study.get("seed") or 0),
        run_dir=run_dir,
        defaults={
            **(reader.evaluator_options if reader is not None else {}),
            FUNCTIONAL: {"timing_repeats": int(recorded.get("timing_repeats") or 0)},
        },
    )


def _functional_metadata(executor_meta: Any) -> dict[str, Any]:
    """The recorded metadata of the evaluator that ran code (possibly inside a dispatch)."""
    if not isinstance(executor_meta, dict):
        return {}
    if executor_meta.get("evaluator") == "dispatch":
        inner = (executor_meta.get("by_kind") or {}).get("functional")
        return inner if isinstance(inner, dict) else {}
    return executor_meta if executor_meta.get("evaluator") == "functional" else {}


def _recorded_executor(verdict_meta: Any) -> dict[str, Any]:
    """The metadata of the executor the run's code ran in: ``functional`` merges it into its
    own, other evaluators that run code (``nofuneval-edit``) keep it under ``executor``; a
    dispatch holds one evaluator per kind of task."""
    if not isinstance(verdict_meta, dict):
        return {}
    if verdict_meta.get("evaluator") == "dispatch":
        for inner in (verdict_meta.get("by_kind") or {}).values():
            if found := _recorded_executor(inner):
                return found
        return {}
    nested = verdict_meta.get("executor")
    if isinstance(nested, dict):
        return nested
    return verdict_meta if isinstance(nested, str) else {}


def _answers(
    meta: dict[str, Any],
    bench: Benchmark,
    run_dir: Path,
    samples_path: str | Path | None,
    reader: AnswerFile,
) -> tuple[list[AnswerRow], list[str | None], list[str]]:
    """An evaluation's answer lines, their tasks and sample keys, for ``results.jsonl``.

    Read from the answers file the run recorded (or ``samples_path``), which must be the
    same file: its sha256 is checked.
    """
    from beyondpass.study.evaluate_samples import answer_identities

    recorded = meta.get("samples") or {}
    path = Path(samples_path or recorded.get("path", ""))
    hint = f"pass --samples with the answers file {run_dir} was evaluated from"
    if not path.is_file():
        raise DataError(f"{path}: answers file of {run_dir} not found — {hint}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != recorded.get("sha256"):
        raise DataError(f"{path} is not the answers file {run_dir} was evaluated from — {hint}")
    rows = reader.read(path, bench)
    resolved = [bench.resolve_id(row.task_id) for row in rows]
    label = Path(recorded["path"]).stem  # the model label came from the original name
    identities = answer_identities(rows, resolved, bench.name, label)
    return rows, resolved, [ident[0] if ident else "" for ident in identities]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
