"""The typed shape of a study file, and its errors as one line that names the key.

Every table forbids unknown keys, as the evaluator option schemas do. Three tables keep
keys of their own on purpose: a ``[[models]]`` table passes the rest to its provider, whose
own check names them; ``[prompts]`` passes the rest to its plan, likewise; and
``[evaluation]`` is keyed by evaluator names, which only the registry knows.
Defaults of the runtime values (limits, sampling, executor) live in their dataclasses:
these tables keep only what the file sets.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import pydantic
from pydantic_core import PydanticCustomError

from beyondpass.errors import ConfigError

#: error types whose message reads on from the key (``sampling.n must be ...``)
_PHRASE = "phrase"


def _positive(value: int) -> int:
    if value < 1:
        raise PydanticCustomError(_PHRASE, "must be a positive integer")
    return value


def _not_negative(value: int) -> int:
    if value < 0:
        raise PydanticCustomError(_PHRASE, "must be an integer >= 0")
    return value


#: an integer (a TOML ``true`` is not one); ``int | float`` keeps TOML's ``10`` an int
Int = pydantic.StrictInt
PositiveInt = Annotated[pydantic.StrictInt, pydantic.AfterValidator(_positive)]
NonNegativeInt = Annotated[pydantic.StrictInt, pydantic.AfterValidator(_not_negative)]
Number = pydantic.StrictFloat | pydantic.StrictInt


class _Table(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class BenchmarkTable(_Table):
    name: str
    tasks: list[str] | None = None
    limit: PositiveInt | None = None
    #: checked by the transform's own schema (``benchmarks.transforms.parse_transform``)
    transform: str | dict[str, Any] | None = None


class ModelTable(_Table):
    # the keys besides these are the provider's options, checked by the provider
    model_config = pydantic.ConfigDict(extra="allow")

    spec: str
    label: str | None = None
    max_concurrency: PositiveInt = 4
    max_attempts: PositiveInt = 5


class PromptsTable(_Table):
    # the keys besides these are the plan's options, checked by the plan
    model_config = pydantic.ConfigDict(extra="allow")

    plan: str | None = None
    answer_format: str | None = None
    conditions: list[dict[str, Any]] | None = None


class SamplingTable(_Table):
    n: PositiveInt = 1
    temperature: Number | None = None
    top_p: Number | None = None
    top_k: Int | None = None
    max_tokens: PositiveInt | None = None
    seed: Int | None = None
    stop: list[str] | None = None


class ExecutionTable(_Table):
    executor: str | None = None
    isolation: str | None = None
    ray_address: str | None = None
    process_budget: str | None = None
    timeout_s: Number | None = None
    memory_mb: PositiveInt | None = None
    output_bytes: PositiveInt | None = None
    file_size_mb: PositiveInt | None = None
    test_timeout_s: Number | None = None


def _version_pair(pair: Any) -> list[str]:
    if (
        not isinstance(pair, list)
        or len(pair) != 2
        or not all(isinstance(x, str) and x for x in pair)
        or pair[0] == pair[1]
    ):
        raise PydanticCustomError(
            _PHRASE, 'must be two different model labels ["old", "new"], got {pair}', {"pair": pair}
        )
    return pair


class ReportTable(_Table):
    """``version_pairs = [["old-label", "new-label"], ...]`` (RobuNFR's Table 4 pairs)."""

    version_pairs: list[Annotated[Any, pydantic.AfterValidator(_version_pair)]] = []


def _evaluator_item(item: Any) -> str | dict[str, Any]:
    if isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("name"), str)):
        return item
    raise PydanticCustomError(
        "evaluator_item",
        "expected an evaluator name or a table with a name, got {item}",
        {"item": item},
    )


class EvaluationTable(_Table):
    # the other keys are evaluator names (``nfr = true``, ``[evaluation.nfr]``), checked
    # against the registry by the loader
    model_config = pydantic.ConfigDict(extra="allow")

    evaluators: list[Annotated[Any, pydantic.AfterValidator(_evaluator_item)]] = []
    #: the older spelling of ``[evaluation.functional] timing_repeats``
    timing_repeats: NonNegativeInt | None = None


def _arm_name(value: str) -> str:
    if not _ARM_NAME.fullmatch(value):
        raise PydanticCustomError(
            _PHRASE,
            "must be a short name of letters, digits, '-', '_' or '.', got {value!r}",
            {"value": value},
        )
    return value


_ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")


class ArmTable(_Table):
    """One ``[[arms]]`` table: a part of the study with its own benchmarks, prompts,
    sampling and evaluators (the models, execution and seed are the study's)."""

    name: Annotated[str, pydantic.AfterValidator(_arm_name)]
    description: str = ""
    benchmarks: list[BenchmarkTable] = []
    prompts: PromptsTable = PromptsTable()
    #: only the keys it sets override the study's ``[sampling]``
    sampling: SamplingTable = SamplingTable()
    evaluation: EvaluationTable = EvaluationTable()


class StudyFile(_Table):
    """A study file as written: the design of an experiment."""

    name: str | None = None
    description: str = ""
    seed: Int = 0
    benchmarks: list[BenchmarkTable] = []
    models: list[ModelTable] = []
    prompts: PromptsTable = PromptsTable()
    sampling: SamplingTable = SamplingTable()
    execution: ExecutionTable = ExecutionTable()
    report: ReportTable = ReportTable()
    evaluation: EvaluationTable = EvaluationTable()
    #: several parts, each its own benchmarks x prompts x evaluators (docs/study-files.md)
    arms: list[ArmTable] = []


def parse_study_file(raw: dict[str, Any], path: Path) -> StudyFile:
    """``raw`` as a :class:`StudyFile`; the first problem as one line naming file and key."""
    try:
        return StudyFile.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise ConfigError(f"{path}: {describe_error(exc.errors()[0])}") from None


def parse_model_table(raw: dict[str, Any], path: Path) -> ModelTable:
    """A ``--model`` spec as the ``[[models]]`` table it replaces."""
    try:
        return ModelTable.model_validate(raw)
    except pydantic.ValidationError as exc:
        error = exc.errors()[0]
        error["loc"] = ("models", 0, *error.get("loc", ()))
        raise ConfigError(f"{path}: {describe_error(error)}") from None


def describe_error(error: Any) -> str:
    """One pydantic error as a sentence about a study file's key."""
    loc = tuple(error.get("loc", ()))
    kind = error.get("type")
    if kind == "extra_forbidden":
        table, key = _key(loc[:-1]), loc[-1]
        where = f" in [{table}]" if table else ""
        return f"unknown key {key!r}{where} — valid: {', '.join(_valid_keys(loc[:-1]))}"
    if kind == "missing" and len(loc) > 1:
        return f"{_key(loc[:-1])} needs a {loc[-1]}"
    if kind == _PHRASE:
        return f"{_key(loc)} {error['msg']}"
    if kind in ("model_type", "dict_type"):
        return f"{_key(loc)}: expected a table, got {error.get('input')!r}"
    if kind == "list_type":
        return f"{_key(loc)}: expected a list, got {error.get('input')!r}"
    return f"{_key(loc)}: {error.get('msg', 'invalid')}"


def _key(loc: tuple[Any, ...]) -> str:
    """``("benchmarks", 0, "limit")`` as ``benchmarks[1].limit`` (tables count from 1)."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        elif part in ("str", "int", "float"):
            continue  # the branch of a union pydantic tried, not a key of the file
        else:
            text += f".{part}" if text else str(part)
    return text


def _valid_keys(loc: tuple[Any, ...]) -> list[str]:
    """The keys the table at ``loc`` takes."""
    model: type[pydantic.BaseModel] = StudyFile
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[str(part)].annotation
        inner = getattr(annotation, "__args__", (annotation,))[0]
        model = inner if isinstance(inner, type) else model
    return sorted(model.model_fields)
