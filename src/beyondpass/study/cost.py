"""What a study would cost before it asks anything (``beyondpass run STUDY --dry-run``).

For every arm, model, benchmark and prompt condition: the samples the design holds, those the
run directory already stores, those the response cache answers at every step, the
requests that would be sent, and an estimate of their prompt tokens. It follows the runner
request for request (:class:`~beyondpass.study.runner.StudyRunner`: the same tasks, sample
keys, rendered prompts and cache keys; a model asked for k samples per request sends one
first-step request per k samples), so the count is the number of requests the endpoint then
receives when nothing fails and nothing is retried.

The token estimate is an approximation, stated with it: characters / 4 of every message,
plus 4 per message (the rule of thumb for GPT-style tokenizers on English and code; real
counts differ by model). A later workflow step's prompt holds the code of the step before,
which is not known before asking unless that step is cached; the task's prompt stands in for
that code. Completion tokens are bounded by ``max_tokens`` per request when the study sets
it. Nothing is written: no run directory, no cache entry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.errors import ModelError
from beyondpass.extraction import extract
from beyondpass.models.base import (
    Generation,
    GenerationRequest,
    Message,
    ModelProvider,
    SamplingParams,
)
from beyondpass.models.cache import ResponseCache
from beyondpass.models.factory import create_provider
from beyondpass.prompts.plan import Condition, render
from beyondpass.store.run_store import DB_NAME, RunStore, sample_key
from beyondpass.study.config import Arm
from beyondpass.study.runner import StudyRunner

#: the stated approximation of the prompt token estimate
TOKEN_RULE = "characters / 4 + 4 per message (an approximation; real counts vary by model)"


@dataclass
class CostLine:
    """One arm x model x benchmark x condition of the design."""

    model: str
    benchmark: str
    condition: str
    arm: str = ""  # the arm ("" in a study without [[arms]])
    samples: int = 0
    stored: int = 0  # already in the run directory: not asked again
    cached: int = 0  # samples the response cache answers at every step: nothing sent
    requests: int = 0  # requests that would reach the endpoint
    prompt_tokens: int = 0  # estimated, for those requests
    max_completion_tokens: int | None = None  # requests x max_tokens, when set
    offline: bool = False  # the model answers from a file (replay): nothing is sent


@dataclass
class Cost:
    lines: list[CostLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(int(getattr(line, name) or 0) for line in self.lines)

    def as_dict(self) -> dict[str, Any]:
        keys = ("samples", "stored", "cached", "requests", "prompt_tokens")
        return {
            "lines": [asdict(line) for line in self.lines],
            "totals": {k: self.total(k) for k in keys},
            "token_estimate": TOKEN_RULE,
            "notes": list(self.notes),
        }


def estimate_tokens(messages: Iterable[Message]) -> int:
    """Prompt tokens of ``messages`` by :data:`TOKEN_RULE`."""
    return sum(math.ceil(len(m.content) / 4) + 4 for m in messages)


def study_cost(runner: StudyRunner, cache: ResponseCache | None) -> Cost:
    """The cost of ``runner``'s study in its run directory (module docstring)."""
    cfg = runner.config
    _, selected = runner.select()
    reused = any(c.steps[0].reuse for arm in cfg.arms for c in arm.plan.conditions)
    stored, programs = _stored(runner.run_dir, programs=reused)
    cost = Cost()
    for model in cfg.models:
        try:
            provider: ModelProvider | None = create_provider(model.spec, **model.options)
        except ModelError as exc:
            provider = None
            cost.notes.append(f"model {model.label} cannot be asked as configured: {exc}")
        try:
            for arm, per_arm in zip(cfg.arms, selected, strict=True):
                ask = _Asking(model.label, provider, cache, arm.sampling, arm.plan.answer_format)
                for bench, tasks in per_arm.items():
                    keys = runner.sample_keys(bench, model.label, tasks, arm)
                    cost.lines.extend(_bench_lines(ask, arm, bench, keys, stored, programs))
        finally:
            if provider is not None:
                provider.close()
    return cost


def _bench_lines(
    ask: _Asking,
    arm: Arm,
    bench: str,
    keys: list[tuple[str, Task, Condition, int, Arm]],
    stored: set[str],
    programs: dict[str, str],
) -> list[CostLine]:
    """One line per condition of ``arm`` on ``bench``, counted in the order the runner asks."""
    lines = {c.id: CostLine(ask.model, bench, c.id, arm.name) for c in arm.plan.conditions}
    keys = sorted(keys, key=lambda k: bool(k[2].steps[0].reuse))
    for key, task, condition, index, _ in keys:
        line = lines[condition.id]
        line.samples += 1
        if key in stored:
            line.stored += 1
            continue
        _count(line, ask, task, condition, index, programs)
    for line in lines.values():
        line.offline = ask.provider is not None and ask.provider.provider == "replay"
        if arm.sampling.max_tokens is not None:
            line.max_completion_tokens = line.requests * arm.sampling.max_tokens
    return list(lines.values())


def _count(
    line: CostLine,
    ask: _Asking,
    task: Task,
    condition: Condition,
    index: int,
    programs: dict[str, str],
) -> None:
    """Add one unstored sample's requests and tokens to ``line``, step by step."""
    steps = condition.steps
    first = 1 if steps[0].reuse else 0
    code: str | None = ""
    if first:  # the first step is another condition's answer: stored, cached or not known
        reused = _reused_key(task, ask.model, steps[0].reuse or "", index)
        code = programs.get(reused, ask.finals.get(reused))
    for step in range(first, len(steps)):
        known = code if code is not None else task.prompt  # the stand-in (module docstring)
        messages = render(steps[step], task, known)
        request = GenerationRequest(
            messages=messages,
            params=ask.params,
            sample_index=index,
            task_id=task.task_id,
            condition=condition.id,
            step=step,
        )
        hit = ask.cached(request) if code is not None else None
        if hit is not None:
            code = extract(hit.text, task, ask.answer_format, condition.id).program or hit.text
            continue
        code = None  # what the model answers is not known before asking
        if step == 0 and ask.per_request > 1:  # one request answers k sample indices
            batch = (task.task_id, condition.id, index // ask.per_request)
            if batch in ask.batches:
                continue
            ask.batches.add(batch)
        line.requests += 1
        line.prompt_tokens += estimate_tokens(messages)
    if code is not None:  # every step answered by the cache: a later reuse can read it
        line.cached += 1
        ask.finals[_reused_key(task, ask.model, condition.id, index)] = code


@dataclass
class _Asking:
    """How one model is asked: what the runner would send it, and what answers it already."""

    model: str
    provider: ModelProvider | None
    cache: ResponseCache | None
    params: SamplingParams
    answer_format: str | None
    batches: set[tuple[str, str, int]] = field(default_factory=set)
    #: the program each cached sample would store (by sample key), for conditions reusing it
    finals: dict[str, str] = field(default_factory=dict)

    @property
    def per_request(self) -> int:
        return max(1, int(getattr(self.provider, "samples_per_request", 1) or 1))

    def cached(self, request: GenerationRequest) -> Generation | None:
        if self.provider is None or self.cache is None or not self.provider.cacheable:
            return None
        return self.cache.get(self.provider.cache_key(request))


def _reused_key(task: Task, model: str, condition: str, index: int) -> str:
    return sample_key(task.benchmark, task.task_id, model, condition, index)


def _stored(run_dir: Path, *, programs: bool) -> tuple[set[str], dict[str, str]]:
    """The sample keys a run directory holds (nothing when it is new) and, when a condition
    reuses another's answer (``programs``), the program of each."""
    if not (run_dir / DB_NAME).is_file():
        return set(), {}
    with RunStore(run_dir, create=False) as store:
        keys = set(store.sample_keys())
        if not programs:
            return keys, {}
        found = {k: s.program or s.raw for k in keys if (s := store.get_sample(k)) is not None}
    return keys, found
