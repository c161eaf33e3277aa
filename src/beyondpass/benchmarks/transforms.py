"""Benchmark transforms: a function Benchmark -> Benchmark, with options and a seed.

A study declares one per benchmark (``[benchmarks.transform]``); obfuscation (renaming,
inlining, rewriting) plugs in here as a method's :class:`~beyondpass.registry.TransformSpec`.
The transform's name, version, options and seed are part of the design (the study's hash)
and of the provenance; the transformed benchmark's ``version`` is derived from the input
version and all of them, so results never mix tasks transformed differently.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pydantic

from beyondpass import registry
from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import ConfigError


@dataclass(frozen=True)
class TransformChoice:
    """A transform as a study names it."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


def parse_transform(raw: Any, default_seed: int, where: str) -> TransformChoice:
    """``{name = "subset", seed = 1, size = 20}``: the options are the transform's own."""
    if isinstance(raw, str):
        raw = {"name": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ConfigError(f'{where}: expected a table with a name, e.g. {{name = "subset"}}')
    options = {k: v for k, v in raw.items() if k not in ("name", "seed")}
    seed = raw.get("seed", default_seed)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"{where}.seed must be an integer")
    spec, owner = registry.lookup("transforms", raw["name"])
    if spec.options is not None:
        model = registry.resolve(spec.options, owner, needs_extra=False)
        options = registry.validate_options(model, options, where).model_dump()
    elif options:
        raise ConfigError(f"{where}: transform {spec.name} takes no options, got {sorted(options)}")
    return TransformChoice(spec.name, options, seed)


def transform_record(choice: TransformChoice, input_version: str) -> dict[str, Any]:
    """What the provenance records about a transform (and what the new version hashes)."""
    spec, _ = registry.lookup("transforms", choice.name)
    return {
        "name": spec.name,
        "version": spec.version,
        "options": choice.options,
        "seed": choice.seed,
        "input_version": input_version,
    }


def apply_transform(
    bench: Benchmark,
    choice: TransformChoice,
    context: Callable[[], registry.TransformContext] | None = None,
) -> Benchmark:
    """``bench`` transformed by ``choice``; its version identifies input and transform.

    A transform whose spec says ``runs_code`` is given ``context()`` (the run's executor:
    :meth:`beyondpass.evaluators.setup.EvaluationSetup.transform_context`; called only
    then, as building an executor is not free), so its programs run where the run's do; the
    others never see it. How it ran is left in the context's ``ran`` and does not enter the
    version: the same tasks whatever ran them."""
    spec, owner = registry.lookup("transforms", choice.name)
    factory = registry.resolve(spec.factory, owner)
    model = registry.resolve(spec.options, owner, needs_extra=False) if spec.options else None
    options = model.model_validate(choice.options) if model is not None else None
    if spec.runs_code:
        given = context() if context is not None else registry.TransformContext()
        out = factory(bench, options, choice.seed, context=given)
    else:
        out = factory(bench, options, choice.seed)
    if not isinstance(out, Benchmark):
        raise TypeError(f"transform {spec.name} returned {type(out).__name__}, not a Benchmark")
    record = transform_record(choice, bench.version)
    blob = json.dumps(record, sort_keys=True, default=str).encode()
    out.version = hashlib.sha256(blob).hexdigest()[:16]
    return out


# -- the built-in trivial transform -----------------------------------------------------------
class SubsetOptions(pydantic.BaseModel):
    """``subset``: ``size`` tasks drawn at random (seeded), kept in benchmark order."""

    model_config = pydantic.ConfigDict(extra="forbid")

    size: int = pydantic.Field(ge=1, strict=True)


def subset(bench: Benchmark, options: SubsetOptions, seed: int) -> Benchmark:
    ids = list(bench.tasks)
    chosen = set(random.Random(seed).sample(ids, min(options.size, len(ids))))
    tasks = {tid: t for tid, t in bench.tasks.items() if tid in chosen}
    return replace(
        bench,
        tasks=tasks,
        known_broken={k: v for k, v in bench.known_broken.items() if k in chosen},
        id_aliases={k: v for k, v in bench.id_aliases.items() if v in chosen},
        coverage=f"{len(tasks)} of {len(ids)} tasks (seeded subset)",
    )
