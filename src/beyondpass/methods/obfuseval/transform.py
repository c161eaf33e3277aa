"""The ``obfuscate`` benchmark transform: seeded variants, each verified by execution.

A variant is kept only when its reference passes its tests in the sandbox — for the structure
and semantic levels while agreeing, call by call, with the reference before the rewrites;
every other task is excluded with its reason (a static reason such as ``eval()``, or the
verdict of the run). When a variant fails, the original reference is run too, so the report
says whether the task was broken before obfuscation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

import pydantic

from beyondpass.benchmarks.task import Benchmark, Task
from beyondpass.execution import create_executor
from beyondpass.execution.base import ExecutionLimits, ExecutionRequest, Executor
from beyondpass.registry import TransformContext

Level = Literal["symbol", "structure", "semantic"]
#: the order levels are applied in, whatever order they are named in: names first, so the
#: structure and semantic rewrites (and their agreement check) work on the renamed task
LEVELS: tuple[str, ...] = ("symbol", "structure", "semantic")


class ObfuscateOptions(pydantic.BaseModel):
    """``levels``: which obfuscations, in order (empty: the original tasks, e.g. to run them
    in the same scenario); ``variants``: seeded variants per task (seeds ``seed`` ..
    ``seed + variants - 1``); ``verify``: run every variant (off only for inspection — an
    unverified variant is never scored); ``scenario``: ``generation`` or ``completion``
    (``scenario.py``; none: the tasks' own prompts); ``context``: add the definitions the
    target uses and as many distractors to the prompt."""

    model_config = pydantic.ConfigDict(extra="forbid")

    levels: list[Level] = pydantic.Field(default_factory=lambda: ["symbol"])
    variants: int = pydantic.Field(default=1, ge=1, le=20, strict=True)
    verify: bool = True
    scenario: Literal["generation", "completion"] | None = None
    context: bool = False

    @pydantic.model_validator(mode="after")
    def _context_needs_scenario(self) -> ObfuscateOptions:
        if self.context and self.scenario is None:
            raise ValueError("context needs a scenario (generation or completion)")
        return self


@dataclass
class Outcome:
    """What happened to one variant of one task."""

    task_id: str
    variant: int
    seed: int
    verified: bool
    reason: str = ""
    task: Task | None = None
    #: the reference before the structure/semantic levels: what the variant must agree with
    baseline: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task_id": self.task_id,
            "variant": self.variant,
            "seed": self.seed,
            "verified": self.verified,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.task is not None:
            out["new_task_id"] = self.task.task_id
            out["entry_point"] = self.task.entry_point
            info = self.task.metadata.get("obfuscation", {})
            applied = {k: info[k]["applied"] for k in ("structure", "semantic") if k in info}
            if applied:
                out["applied"] = applied
        return out


@dataclass
class Report:
    """The verification report of one obfuscation run."""

    benchmark: str
    levels: list[str]
    seed: int
    variants: int
    outcomes: list[Outcome] = field(default_factory=list)
    #: the metadata of the executor that ran the verification (empty: none ran)
    executor: dict[str, Any] = field(default_factory=dict)

    @property
    def verified(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verified]

    @property
    def excluded(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.verified]

    def as_dict(self) -> dict[str, Any]:
        n = len(self.outcomes)
        return {
            "benchmark": self.benchmark,
            "levels": self.levels,
            "seed": self.seed,
            "variants": self.variants,
            "n_variants": n,
            "n_verified": len(self.verified),
            "verified_rate": len(self.verified) / n if n else 0.0,
            "executor": self.executor,
            "excluded": [o.as_dict() for o in self.excluded],
            "outcomes": [o.as_dict() for o in self.outcomes],
        }


def _variant_id(task_id: str, variant: int, variants: int) -> str:
    return task_id if variants == 1 else f"{task_id}#v{variant}"


def _obfuscate(task: Task, levels: list[str], seed: int) -> tuple[Task, str | None]:
    """The task through every level (in :data:`LEVELS` order) and the reference the
    structure/semantic levels started from (None when neither was asked for)."""
    from beyondpass.methods.obfuseval.task import obfuscate_code, obfuscate_symbols

    order = [lv for lv in LEVELS if lv in levels]
    info: dict[str, Any] = {
        "level": "+".join(order),
        "levels": order,
        "seed": seed,
        "original_task_id": task.task_id,
        "original_entry_point": task.entry_point,
    }
    out, baseline = task, None
    for level in order:
        if level == "symbol":
            out, done = obfuscate_symbols(out, seed)
            info["mapping"] = done["mapping"]
        else:
            baseline = out.reference_solution if baseline is None else baseline
            out, info[level] = obfuscate_code(out, level, seed)
    return replace(out, metadata={**task.metadata, "obfuscation": info}), baseline


def _request(
    task: Task, program: str, limits: ExecutionLimits, factor: float = 1.0
) -> ExecutionRequest:
    """``factor``: an agreement program runs the reference twice (rewritten and original)."""
    timeout = max(float(task.metadata.get("timeout_s", 0)), limits.timeout_s) * factor
    if timeout != limits.timeout_s:
        limits = replace(limits, timeout_s=timeout)
    return ExecutionRequest(
        program=program, tests=task.tests, test_setup=task.test_setup, limits=limits
    )


def _first_line(text: str | None) -> str:
    return text.splitlines()[0][:200] if text else ""


def _why(result: Any) -> str:
    """``failed (t0: AssertionError: ...)``: the status, then the first failing test."""
    failing = next((t for t in result.tests if str(t.status) != "passed"), None)
    if failing is None:
        return f"{result.status}: {_first_line(result.message)}"
    message = _first_line(failing.message)
    return f"{result.status} ({failing.name}: {failing.error_type or failing.status} {message})"


def obfuscate_benchmark(
    bench: Benchmark,
    options: ObfuscateOptions,
    seed: int,
    executor: Executor | None = None,
    limits: ExecutionLimits | None = None,
) -> tuple[Benchmark, Report]:
    """Every task in ``options.variants`` seeded variants, verified; plus the report."""
    from beyondpass.methods.obfuseval.symbol import Unsupported

    levels = [lv for lv in LEVELS if lv in options.levels]  # the order they are applied in
    report = Report(bench.name, levels, seed, options.variants)
    for tid, task in bench.tasks.items():
        for k in range(options.variants):
            vseed = seed + k
            new_id = _variant_id(tid, k, options.variants)
            try:
                new, baseline = _obfuscate(task, levels, vseed)
            except Unsupported as exc:
                report.outcomes.append(Outcome(tid, k, vseed, False, f"not obfuscated: {exc}"))
                continue
            except Exception as exc:  # a fault in a transform costs this variant, not the run
                why = f"not obfuscated: internal error {type(exc).__name__}: {exc}"
                report.outcomes.append(Outcome(tid, k, vseed, False, why[:300]))
                continue
            meta = {**new.metadata, "variant": k}
            new = replace(new, task_id=new_id, metadata=meta)
            report.outcomes.append(Outcome(tid, k, vseed, not options.verify, "", new, baseline))
    if options.verify:
        _verify(bench, report, executor, limits or ExecutionLimits())
    tasks = {o.task.task_id: o.task for o in report.verified if o.task is not None}
    n = len(report.outcomes)
    out = replace(
        bench,
        name=bench.name,
        tasks=tasks,
        known_broken={},
        id_aliases={tid.lower(): tid for tid in tasks},
        coverage=_coverage(len(tasks), n),
        description=f"{bench.description} — "
        + (f"obfuscated ({'+'.join(levels)})" if levels else "original tasks"),
    )
    if options.scenario is not None:
        from beyondpass.methods.obfuseval.scenario import apply_scenario

        out = apply_scenario(out, options.scenario, options.context, seed)
    return out, report


def _coverage(kept: int, n: int) -> str:
    excluded = f" ({n - kept} excluded, reasons in the verification report)" if n > kept else ""
    return f"{kept} of {n} obfuscated variants verified{excluded}"


def _program(outcome: Outcome) -> str:
    """The variant's reference; with structure/semantic levels, wrapped so every test call
    is also checked against the reference the rewrites started from (agreement.py)."""
    from beyondpass.methods.obfuseval.agreement import agreement_program

    task = outcome.task
    assert task is not None and task.entry_point
    if outcome.baseline is None:
        return task.reference_solution
    return agreement_program(task.reference_solution, outcome.baseline, task.entry_point)


def _verify(
    bench: Benchmark, report: Report, executor: Executor | None, limits: ExecutionLimits
) -> None:
    """Run every variant's reference against its tests (and, for rewritten references,
    against the original on the same calls) on ``executor`` (the run's; none: a local
    sandbox started and closed here); failures get the reason."""
    pending = [o for o in report.outcomes if o.task is not None]
    own = executor is None
    runner = executor or create_executor("sandbox")
    try:
        requests = [
            _request(o.task, _program(o), limits, 1.0 if o.baseline is None else 2.0)  # type: ignore[arg-type]
            for o in pending
        ]
        results = runner.run_many(requests)
        report.executor = runner.metadata()
        failed = [(o, r) for o, r in zip(pending, results, strict=True) if not r.passed]
        originals = [bench.tasks[o.task_id] for o, _ in failed]
        before = runner.run_many([_request(t, t.reference_solution, limits) for t in originals])
    finally:
        if own:
            runner.close()
    for o, r in zip(pending, results, strict=True):
        o.verified = r.passed
    for (o, r), orig in zip(failed, before, strict=True):
        broken = "" if orig.passed else " — the original reference fails its tests too"
        o.reason = f"verification failed: {_why(r)}{broken}"
        o.task = None


def apply(
    bench: Benchmark,
    options: ObfuscateOptions,
    seed: int,
    context: TransformContext | None = None,
) -> Benchmark:
    """The registry's transform: verified variants only (excluded ones are in coverage),
    verified on the run's executor (``context``: local by default, Ray with ``--executor
    ray``); which executor verified, and the counts, go to ``context.ran``."""
    context = context or TransformContext()
    out, report = obfuscate_benchmark(bench, options, seed, executor=context.executor)
    summary = report.as_dict()
    context.ran.update(
        {k: summary[k] for k in ("executor", "n_variants", "n_verified", "verified_rate")}
    )
    return out
