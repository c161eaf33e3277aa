"""Run a study: for every arm, benchmark x model x condition x task x sample, ask, extract,
store, then score.

Resumability comes from the store, not from memory: before asking, the runner skips every
sample already stored; before scoring, every sample already scored. Answers also go through
the response cache, so even a sample lost in flight is not paid for twice.

A model failure (endpoint down, key rejected) stops that model's remaining work after the
batch in flight, keeps everything stored, and is reported; other models still run.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.analysis.summary import GroupSummary, summarize
from beyondpass.benchmarks import Benchmark, load_benchmark
from beyondpass.benchmarks.task import Task
from beyondpass.benchmarks.transforms import apply_transform, transform_record
from beyondpass.errors import ConfigError, ModelError
from beyondpass.evaluators.base import Evaluator
from beyondpass.evaluators.setup import EvaluationSetup, build_evaluators
from beyondpass.execution import ExecutorChoice
from beyondpass.extraction import extract
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider
from beyondpass.models.cache import ResponseCache
from beyondpass.models.client import ModelClient
from beyondpass.models.factory import create_provider
from beyondpass.prompts.plan import Condition, check_prompt_fields, render
from beyondpass.registry import TransformContext
from beyondpass.store.run_store import RunStore, sample_key
from beyondpass.study.config import Arm, StudyConfig, condition_records
from beyondpass.study.progress import NullProgress, Progress
from beyondpass.study.provenance import environment, now_iso
from beyondpass.study.scoring import evaluator_metadata, make_sample, score_pending


@dataclass
class RunOutcome:
    run_dir: Path
    summaries: list[GroupSummary]
    failures: list[str] = field(default_factory=list)
    expected: int = 0
    scored: int = 0

    @property
    def complete(self) -> bool:
        return not self.failures and self.scored == self.expected


@dataclass
class _Pending:
    """A sample on its way through a (possibly multi-step) workflow."""

    key: str
    task: Task
    condition: Condition
    index: int
    arm: Arm
    transcript: list[dict[str, Any]] = field(default_factory=list)
    code: str = ""  # code extracted from the previous step
    last: Generation | None = None


def select_tasks(bench: Benchmark, tasks: Sequence[str] | None, limit: int | None) -> list[Task]:
    chosen = list(bench.tasks.values())
    if tasks is not None:
        resolved = []
        for raw in tasks:
            tid = bench.resolve_id(raw)
            if tid is None:
                example = next(iter(bench.tasks), "?")
                raise ConfigError(
                    f"benchmark {bench.name} has no task {raw!r} (ids look like {example})"
                )
            resolved.append(bench.tasks[tid])
        chosen = resolved
    return chosen[:limit] if limit else chosen


def _all_tasks(per_benchmark: dict[str, list[Task]]) -> list[Task]:
    return [t for ts in per_benchmark.values() for t in ts]


class StudyRunner:
    def __init__(
        self,
        config: StudyConfig,
        run_dir: str | Path,
        *,
        data_dir: str | None = None,
        cache: ResponseCache | None = None,
        progress: Progress | None = None,
        workers: int | None = None,
        executor: ExecutorChoice | None = None,
    ) -> None:
        """``executor`` overrides the study's ``[execution]`` choice (how, not what: the
        design and its hash stay the same)."""
        self.config = config
        self.run_dir = Path(run_dir)
        self.data_dir = data_dir
        self.cache = cache
        self.progress = progress or NullProgress()
        self.workers = workers
        self.executor = executor
        self._transforms: dict[str, dict[str, Any]] = {}  # benchmark -> transform record
        #: benchmark -> how its transform ran (which executor verified ObfusEval's variants)
        self._transforms_ran: dict[str, dict[str, Any]] = {}

    def run(self) -> RunOutcome:
        cfg = self.config
        setup = self._setup()
        with contextlib.ExitStack() as stack:
            stack.enter_context(setup)  # closes the executor, if one was started
            # Everything that can be wrong with the design is checked before the run
            # directory is touched, so a typo never leaves a half-made run behind.
            loaded, selected = self.select(setup)
            tasks = {(t.benchmark, t.task_id): t for arm in selected for t in _all_tasks(arm)}
            providers = self._providers()
            evaluators = build_evaluators(
                setup, [(e.name, e.options) for e in cfg.evaluators], verdict_for=tasks.values()
            )
            store = stack.enter_context(RunStore(self.run_dir))  # built first: no half-made run
            self._check_design(store)
            self._write_meta(store, loaded, evaluators)
            outcome = RunOutcome(self.run_dir, [])
            keys_by_arm: dict[str, list[str]] = {arm.name: [] for arm in cfg.arms}
            for model in cfg.models:
                asks = [
                    (arm, name, self.sample_keys(name, model.label, ts, arm))
                    for arm, per_arm in zip(cfg.arms, selected, strict=True)
                    for name, ts in per_arm.items()
                ]
                for arm, _, keys in asks:
                    keys_by_arm[arm.name] += [k for k, *_ in keys]
                provider = providers[model.label]
                if isinstance(provider, ModelError):
                    outcome.failures.append(f"model {model.label}: {provider}")
                    continue
                client = ModelClient(
                    provider,
                    self.cache,
                    max_concurrency=model.max_concurrency,
                    max_attempts=model.max_attempts,
                    rng_seed=cfg.seed,
                )
                try:
                    for _, name, keys in asks:
                        error = self._generate(store, client, model.label, name, keys)
                        if error:
                            outcome.failures.append(f"model {model.label}: {error}")
                            break
                finally:
                    provider.close()
                    self._record_client(store, model.label, provider.identity(), client)
            store.set_meta("updated_at", now_iso())
            by_name = {e.name: e for e in evaluators}
            for arm in cfg.arms:  # one verdict evaluator; each arm's own add-ons
                mine = [evaluators[0], *(by_name[e.name] for e in arm.evaluators)]
                keys = keys_by_arm[arm.name]
                score_pending(store, tasks, mine, keys, self.progress, "evaluate")
                scored = set.intersection(*(store.evaluation_keys(e.name) for e in mine))
                outcome.scored += sum(k in scored for k in keys)
                outcome.expected += len(keys)
            setup.close()  # before the summary: workers are not kept waiting
            store.set_meta("status", "complete" if outcome.complete else "incomplete")
            store.set_meta("updated_at", now_iso())
            outcome.summaries = summarize(store.rows(), seed=cfg.seed)
        return outcome

    def _setup(self) -> EvaluationSetup:
        """The run's executor choice, limits and seed, for its evaluators and transforms."""
        cfg = self.config
        return EvaluationSetup(
            self.executor or cfg.executor,
            cfg.limits,
            self.workers,
            self.data_dir,
            seed=cfg.seed,
            defaults=cfg.verdict_options,
            run_dir=self.run_dir,
        )

    def _providers(self) -> dict[str, ModelProvider | ModelError]:
        """Every model's provider, or the model error that stops only that model."""
        cfg = self.config
        providers: dict[str, ModelProvider | ModelError] = {}
        for model in cfg.models:
            try:
                providers[model.label] = create_provider(model.spec, **model.options)
            except ModelError as exc:
                providers[model.label] = exc
            except ConfigError as exc:
                raise ConfigError(f"{cfg.source}: model {model.label}: {exc}") from exc
        return providers

    def select(
        self, setup: EvaluationSetup | None = None
    ) -> tuple[list[Benchmark], list[dict[str, list[Task]]]]:
        """The study's benchmarks (transformed as it says; each loaded once) and, per arm,
        the tasks chosen of each benchmark, checked against the arm's prompt fields.

        A transform that runs code runs it on ``setup``'s executor (without one, on a setup
        of the run's executor choice made and closed here)."""
        if setup is None:
            with self._setup() as own:
                return self.select(own)
        cfg = self.config
        loaded: dict[tuple[str, str], Benchmark] = {}
        named: dict[str, tuple[str, str]] = {}
        selected: list[dict[str, list[Task]]] = []
        for arm in cfg.arms:
            per_arm: dict[str, list[Task]] = {}
            try:
                for choice in arm.benchmarks:
                    identity = (choice.name, repr(choice.transform))
                    if identity not in loaded:
                        loaded[identity] = self._load(choice, setup)
                    bench = loaded[identity]
                    if named.setdefault(bench.name, identity) != identity:
                        raise ConfigError(
                            f"benchmark {bench.name!r} is named twice with different "
                            "transforms — a run holds one benchmark of a name; use another "
                            "benchmark for one of them (e.g. mbpp)"
                        )
                    per_arm[bench.name] = select_tasks(bench, choice.tasks, choice.limit)
                check_prompt_fields(arm.plan, per_arm)
            except ConfigError as exc:
                where = f" {arm.label}:" if arm.name else ""
                raise ConfigError(f"{cfg.source}:{where} {exc}") from exc
            selected.append(per_arm)
        return list(loaded.values()), selected

    def _load(self, choice: Any, setup: EvaluationSetup) -> Benchmark:
        """The benchmark a study names, transformed as the study declares (a transform that
        runs code on the run's executor; how it ran is recorded beside the transform)."""
        bench = load_benchmark(choice.name, self.data_dir)
        if choice.transform is None:
            return bench
        record = transform_record(choice.transform, bench.version)
        contexts: list[TransformContext] = []

        def context() -> TransformContext:
            contexts.append(setup.transform_context())
            return contexts[-1]

        bench = apply_transform(bench, choice.transform, context)
        if contexts and contexts[0].ran:
            self._transforms_ran[bench.name] = contexts[0].ran
        self._transforms[bench.name] = record
        return bench

    # -- design and provenance --------------------------------------------------------------
    def _check_design(self, store: RunStore) -> None:
        existing = store.get_meta("study")
        digest = self.config.config_hash()
        if existing and existing.get("config_hash") != digest:
            raise ConfigError(
                f"{self.run_dir} holds a run of a different study design "
                f"({existing.get('name')}, design {existing.get('config_hash')}); "
                "use --out to choose a new run directory"
            )

    def _write_meta(
        self, store: RunStore, benchmarks: list[Benchmark], evaluators: list[Evaluator]
    ) -> None:
        cfg = self.config
        store.set_meta("kind", "study")
        store.set_meta(
            "study",
            {
                "name": cfg.name,
                "description": cfg.description,
                "seed": cfg.seed,
                "config_hash": cfg.config_hash(),
                "study_file": cfg.source,
                "config": cfg.raw,
            },
        )
        store.set_meta(
            "benchmarks",
            {
                b.name: {
                    **b.provenance(),
                    "known_broken": {k: v.reason for k, v in b.known_broken.items()},
                    **(
                        {"transform": self._transforms[b.name]}
                        if b.name in self._transforms
                        else {}
                    ),
                    **(
                        {"transform_ran": self._transforms_ran[b.name]}
                        if b.name in self._transforms_ran
                        else {}
                    ),
                }
                for b in benchmarks
            },
        )
        models = store.get_meta("models", {})
        for m in cfg.models:
            models.setdefault(m.label, {}).update({"spec": m.spec, "options": m.options})
        store.set_meta("models", models)
        conditions: dict[str, Any] = {}
        for arm in cfg.arms:  # an id has one definition across arms (config.check_arms)
            conditions.update(condition_records(arm.plan.conditions, arm.n))
        store.set_meta("conditions", conditions)
        if len(cfg.arms) == 1:
            store.set_meta("sampling", {"n": cfg.n, **cfg.sampling.as_dict()})
        else:
            store.set_meta("arms", {arm.name: arm.record() for arm in cfg.arms})
            samplings = [json.dumps(arm.record()["sampling"], sort_keys=True) for arm in cfg.arms]
            if len(set(samplings)) == 1:
                store.set_meta("sampling", cfg.arms[0].record()["sampling"])
            else:
                store.set_meta("sampling", {a.name: a.record()["sampling"] for a in cfg.arms})
        store.set_meta("environment", environment())
        store.set_meta("evaluators", evaluator_metadata(evaluators))
        store.set_meta("executor", evaluators[0].metadata())
        if store.get_meta("created_at") is None:
            store.set_meta("created_at", now_iso())
        store.set_meta("status", "incomplete")

    def _record_client(
        self, store: RunStore, label: str, identity: dict[str, Any], client: ModelClient
    ) -> None:
        models = store.get_meta("models", {})
        entry = models.setdefault(label, {})
        entry["identity"] = identity
        totals = entry.get("client_stats", {})
        for k, v in client.stats.as_dict().items():
            totals[k] = totals.get(k, 0) + v
        entry["client_stats"] = totals
        store.set_meta("models", models)

    # -- asking -----------------------------------------------------------------------------
    def sample_keys(
        self, bench: str, model: str, tasks: list[Task], arm: Arm
    ) -> list[tuple[str, Task, Condition, int, Arm]]:
        """Every sample ``arm`` asks of ``model`` on ``bench``: key, task, condition, index,
        arm."""
        return [
            (sample_key(bench, t.task_id, model, c.id, i), t, c, i, arm)
            for t in tasks
            for c in arm.plan.conditions
            for i in range(arm.n * c.repeats)
        ]

    def _generate(
        self,
        store: RunStore,
        client: ModelClient,
        model: str,
        bench: str,
        keys: list[tuple[str, Task, Condition, int, Arm]],
    ) -> str | None:
        """Ask for every sample not yet stored; returns the first model error, if any.

        Conditions whose first step reuses another condition's answer go last, once the
        answers they build on are stored.
        """
        stored = store.sample_keys()
        pending = [_Pending(k, t, c, i, arm) for k, t, c, i, arm in keys if k not in stored]
        if not pending:
            return None
        label = f"ask {model} / {bench}"
        self.progress.start(label, len(pending))
        chunk = max(1, client.max_concurrency * 4)
        fresh = [p for p in pending if not p.condition.steps[0].reuse]
        for start in range(0, len(fresh), chunk):
            error = self._generate_chunk(store, client, model, fresh[start : start + chunk])
            if error:
                return error
        reusing = [
            p
            for p in pending
            if p.condition.steps[0].reuse and self._seed_from_reused(store, model, bench, p)
        ]
        for start in range(0, len(reusing), chunk):
            batch = reusing[start : start + chunk]
            error = self._generate_chunk(store, client, model, batch, first_step=1)
            if error:
                return error
        return None

    def _seed_from_reused(self, store: RunStore, model: str, bench: str, item: _Pending) -> bool:
        """Make the stored answer of the reused condition this item's first step.

        False when that answer is not stored (its model call failed): the item waits for a
        later run, which resumes it.
        """
        source_id = item.condition.steps[0].reuse
        assert source_id is not None
        source_key = sample_key(bench, item.task.task_id, model, source_id, item.index)
        source = store.get_sample(source_key)
        if source is None:
            return False
        last = source.transcript[-1] if source.transcript else {}
        item.transcript = [
            {
                "step": 0,
                "messages": last.get("messages", []),
                "answer": source.raw,
                "reused_from": {"condition": source_id, "key": source_key},
            }
        ]
        item.code = source.program or source.raw
        return True

    def _generate_chunk(
        self,
        store: RunStore,
        client: ModelClient,
        model: str,
        items: list[_Pending],
        first_step: int = 0,
    ) -> str | None:
        active, step = items, first_step
        while active:
            active, error = self._run_step(store, client, model, active, step)
            if error:
                return error
            for item in active:  # the next step refines the code this step produced
                answer = item.transcript[-1]["answer"]
                fmt = item.arm.plan.answer_format
                item.code = extract(answer, item.task, fmt, item.condition.id).program or answer
            step += 1
        return None

    def _run_step(
        self, store: RunStore, client: ModelClient, model: str, active: list[_Pending], step: int
    ) -> tuple[list[_Pending], str | None]:
        """Ask one workflow step for every item; store items whose workflow is complete.

        Returns the items that go on to the next step, and the first model error, if any.
        """
        requests = [
            GenerationRequest(
                messages=render(item.condition.steps[step], item.task, item.code),
                params=item.arm.sampling,
                sample_index=item.index,
                task_id=item.task.task_id,
                condition=item.condition.id,
                step=step,
            )
            for item in active
        ]
        going_on: list[_Pending] = []
        errors: list[str] = []

        def on_result(i: int, result: Generation | ModelError) -> None:
            item = active[i]
            if isinstance(result, ModelError):
                errors.append(str(result))
                return
            item.transcript.append(
                {
                    "step": step,
                    "messages": [asdict(m) for m in requests[i].messages],
                    "answer": result.text,
                }
            )
            item.last = result
            if step + 1 < len(item.condition.steps):
                going_on.append(item)
            else:
                self._store_sample(store, model, item, result)

        client.generate_many(requests, on_result=on_result)
        return going_on, (errors[0] if errors else None)

    def _store_sample(self, store: RunStore, model: str, item: _Pending, gen: Generation) -> None:
        sample = make_sample(
            item.key,
            item.task,
            model,
            item.condition.id,
            item.index,
            gen.text,
            transcript=item.transcript,
            generation={
                "model_version": gen.model_version,
                "finish_reason": gen.finish_reason,
                "usage": gen.usage,
                "cached": gen.cached,
                **({"sent": gen.sent} if gen.sent else {}),  # api, prompt, params as sent
            },
            answer_format=item.arm.plan.answer_format,
        )
        store.put_sample(sample)
        self.progress.advance(f"ask {model} / {item.task.benchmark}")
