"""A study's ``[evaluation]`` tables: which evaluators add metrics to an arm's samples, with
which options, and the options of the one verdict evaluator that scores every arm.

``evaluators = ["nfr", ...]`` lists evaluators; ``[evaluation.NAME]`` gives one its options
(and turns it on); ``NAME = true`` is the short form; ``timing_repeats`` is the older
spelling of ``[evaluation.functional] timing_repeats``. Options are checked by each
evaluator's own schema (errors name the file and the key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass import registry
from beyondpass.errors import ConfigError
from beyondpass.study.config_model import EvaluationTable

FUNCTIONAL = "functional"


@dataclass(frozen=True)
class EvaluatorChoice:
    """An evaluator a study runs, with its options (validated by its own schema)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)


def read_evaluation(table: EvaluationTable, where: str, base: Path | None = None) -> dict[str, Any]:
    """``[evaluation]``: the evaluators that add metrics, and the verdict evaluators' options
    as written (``explicit``) and as the add-ons ask for them (``implied``).

    ``evaluators = ["nfr", ...]`` lists them; ``[evaluation.NAME]`` gives one its options
    (and turns it on); ``NAME = true`` is the short form; ``timing_repeats`` is the older
    spelling of ``[evaluation.functional] timing_repeats``. Options are checked by each
    evaluator's own schema; a relative path in them is relative to ``base`` (the study
    file's folder).
    """
    chosen = _chosen_evaluators(table, where)
    add_ons: list[EvaluatorChoice] = []
    explicit: dict[str, dict[str, Any]] = {}
    implied: dict[str, dict[str, Any]] = {}
    if table.timing_repeats is not None:
        explicit[FUNCTIONAL] = {"timing_repeats": table.timing_repeats}
    for name, options in chosen.items():
        spec, _ = registry.lookup("evaluators", name)
        if spec.decides_verdict:
            explicit[name] = {**explicit.get(name, {}), **options}
            continue
        for key, default in spec.verdict_options.items():  # e.g. nfr: timed test re-runs
            implied.setdefault(FUNCTIONAL, {}).setdefault(key, default)
        add_ons.append(EvaluatorChoice(name, _options(name, options, where, base)))
    return {"evaluators": tuple(add_ons), "explicit": explicit, "implied": implied}


def verdict_options(
    parts: Sequence[tuple[str, dict[str, Any]]], base: Path | None = None
) -> dict[str, dict[str, Any]]:
    """The one verdict evaluator's options from every arm's ``[evaluation]`` (``parts``:
    where, :func:`_evaluation`'s result): what an add-on implies (nfr: timed re-runs)
    unless an arm says otherwise; two arms saying different things is an error."""
    merged: dict[str, dict[str, Any]] = {FUNCTIONAL: {}}
    said: dict[tuple[str, str], tuple[str, Any]] = {}
    for _, part in parts:
        for name, options in part["implied"].items():
            for key, value in options.items():
                merged.setdefault(name, {}).setdefault(key, value)
    for where, part in parts:
        for name, options in part["explicit"].items():
            for key, value in options.items():
                first = said.setdefault((name, key), (where, value))
                if first[1] != value:
                    raise ConfigError(
                        f"{where}: evaluation.{name}.{key} = {value!r}, but {first[0]} says "
                        f"{first[1]!r} — one verdict evaluator scores every arm"
                    )
                merged.setdefault(name, {})[key] = value
    where = parts[0][0] if parts else ""
    return {name: _options(name, options, where, base) for name, options in merged.items()}


def _chosen_evaluators(table: EvaluationTable, where: str) -> dict[str, dict[str, Any]]:
    """Evaluator name -> its options as written, from the list and the ``NAME`` keys; a
    former name (``psb2_quality``) is read as the evaluator's name now (``psb2-quality``),
    so both spellings in one file are one evaluator."""
    known = registry.names("evaluators", former=True)
    extra = table.model_extra or {}
    unknown = sorted(set(extra) - set(known))
    if unknown:
        valid = ", ".join(sorted({"evaluators", "timing_repeats", *known}))
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} in [evaluation] — valid: {valid}")
    chosen: dict[str, dict[str, Any]] = {}
    for item in table.evaluators:
        if isinstance(item, str):
            chosen.setdefault(_current(item), {})
        else:
            chosen[_current(item["name"])] = {k: v for k, v in item.items() if k != "name"}
    for written, value in extra.items():
        key = _current(written)
        if isinstance(value, bool):
            if value:
                chosen.setdefault(key, {})
            else:
                chosen.pop(key, None)
        elif isinstance(value, dict):
            chosen[key] = {**chosen.get(key, {}), **value}
        else:
            raise ConfigError(
                f"{where}: evaluation.{written}: expected bool (on/off) or a table of options, "
                f"got {value!r}"
            )
    return chosen


def _current(name: str) -> str:
    return str(registry.lookup("evaluators", name)[0].name)


def _options(
    name: str, options: dict[str, Any], where: str, base: Path | None = None
) -> dict[str, Any]:
    return registry.evaluator_options(name, options, f"{where}: evaluation.{name}", base)
