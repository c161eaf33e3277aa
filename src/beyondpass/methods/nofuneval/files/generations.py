"""Reading a file of generations for one NoFunEval subset (``beyondpass nofuneval score``).

Two line shapes are read: NoFunEval's published generation files (``generated_answers``, a
Python-list string of prompt + completion, plus ``source_code``; line i is row i, checked
against the dataset) and beyondpass's ``{"row": i, "generation": "..."}`` (several lines per
row for n > 1; classification lines also say ``"ordering": "left" | "right"``). Edits also
need the prompt the answers reply to (:func:`resolve_prompt_kind`): NoFunEval's own reading
of an answer depends on it. The kind of answers file that turns these lines into answer
rows for ``evaluate`` is :mod:`answer_file`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import ConfigError, DataError
from beyondpass.jsonl import read_objects
from beyondpass.methods.nofuneval.benchmark import PROMPTS
from beyondpass.methods.nofuneval.classify.choices import ORDERINGS
from beyondpass.methods.nofuneval.extraction.echo import echoed
from beyondpass.methods.nofuneval.extraction.readers import published_answer

#: what a line of a generations file looks like, for messages
LINE_EXAMPLE = '{"row": 0, "generation": "..."} (or NoFunEval\'s "generated_answers")'


def generation_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every line of a generations file: the one reader of
    NoFunEval's ``generated_outputs.jsonl`` (and of beyondpass's own lines), for ``nofuneval
    score`` and ``nofuneval table1`` alike. A missing file or a bad line is one DataError."""
    return read_objects(path, LINE_EXAMPLE, "the generations file")


@dataclass(frozen=True)
class Generation:
    row: int
    sample: int
    text: str
    ordering: str = ""
    line: int = 0  # 1-based line of the file
    field: str = "generation"  # the field the text came from


def read_generations(path: Path, bench: Benchmark, classify: bool) -> list[Generation]:
    """Every generation in ``path``, validated against the subset's rows."""
    rows = {t.metadata["row"]: t for t in bench.tasks.values()}
    out: list[Generation] = []
    counts: dict[tuple[int, str], int] = defaultdict(int)
    for n, obj in generation_lines(path):
        where = f"{path}:{n}"
        if "generated_answers" in obj and not classify:
            row, field = obj.get("row", n - 1), "generated_answers"
            text = published_answer(obj["generated_answers"])
        elif "generation" in obj and "row" in obj:
            row, text, field = obj["row"], obj["generation"], "generation"
        else:
            want = '"row", "ordering", "generation"' if classify else '"row" and "generation"'
            raise DataError(f"{where}: expected {want} (or NoFunEval's generated_answers)")
        if not isinstance(row, int) or isinstance(row, bool) or row not in rows:
            raise DataError(
                f"{where}: row {row!r} is not a row of {bench.name} (0..{len(rows) - 1})"
            )
        if not isinstance(text, str):
            raise DataError(f"{where}: the generation must be a string")
        src = obj.get("source_code")
        if src is not None and src != rows[row].metadata.get("source_code"):
            raise DataError(
                f"{where}: source_code differs from row {row} of {bench.name} — "
                "these generations are not for this subset"
            )
        ordering = ""
        if classify:
            ordering = obj.get("ordering", "")
            if ordering not in ORDERINGS:
                raise DataError(f"{where}: ordering must be 'left' or 'right', got {ordering!r}")
        key = (row, ordering)
        out.append(Generation(row, counts[key], text, ordering, n, field))
        counts[key] += 1
    if not out:
        raise DataError(f"{path}: no generations")
    return out


#: folder names in NoFunEval's tree, onto the prompts (``--prompt``)
_FOLDERS = {**{k: k for k in PROMPTS}, "one-shot": "one_shot"}


def model_of(path: Path) -> str | None:
    """The model folder of NoFunEval's tree (``.../<model>/<prompt>/generated_outputs.jsonl``,
    or ``.../<model>/<prompt>/<n>_samples/generated_outputs.jsonl`` as the authors publish
    them), so runs name the model, not the file; ``None`` outside that layout."""
    folder = path.parent
    if re.fullmatch(r"\d+_samples", folder.name):
        folder = folder.parent
    if folder.name in _FOLDERS and folder.parent.name:
        return folder.parent.name
    return None


def prompt_kind_of(path: Path) -> str | None:
    """NoFunEval's prompt folder name in the file's path (``.../one_shot/...``), if any."""
    for part in reversed(path.parts):
        if part in _FOLDERS:
            return _FOLDERS[part]
    return None


def echoed_prompt_kind(gens: list[Generation], bench: Benchmark) -> tuple[str, int] | None:
    """The prompt the generations echo (NoFunEval's files hold prompt + completion) and the
    first row echoing it; ``None`` when no generation starts with one of its row's prompts.
    Generations echoing different prompts are an error: one file answers one prompt."""
    tasks = {t.metadata["row"]: t for t in bench.tasks.values()}
    seen: dict[str, int] = {}
    for g in gens:
        fields = tasks[g.row].metadata.get("prompt_fields") or {}
        prompts = {k: str(fields.get(k) or "").lstrip() for k in PROMPTS}
        kind = echoed(g.text.lstrip(), prompts)
        if kind is not None:
            seen.setdefault(kind, g.row)
    if len(seen) > 1:
        where = ", ".join(f"{k} (row {r})" for k, r in seen.items())
        raise DataError(f"the generations echo different prompts: {where} — one file per prompt")
    return next(iter(seen.items()), None)


def resolve_prompt_kind(
    option: str | None, path: Path, gens: list[Generation], bench: Benchmark, needed: bool
) -> str | None:
    """The prompt the generations reply to: ``--prompt``, else the folder name in ``path``,
    else the prompt the generations echo. Sources that disagree stop with an error, and so
    does a reading that ``needed`` it (compat) when nothing says it: guessing Base for a
    file of 1-shot answers gives other scores without saying why."""
    if option is not None and option not in PROMPTS:
        raise ConfigError(f"--prompt {option!r}: choose {', '.join(PROMPTS)}")
    folder = prompt_kind_of(path)
    echoed = echoed_prompt_kind(gens, bench)
    stated = option or folder
    told = "--prompt" if option else f"the folder name in {path}"
    if stated and echoed and echoed[0] != stated:
        raise DataError(
            f"{told} says {stated}, but the generations echo the {echoed[0]} prompt "
            f"(row {echoed[1]}) — pass the right --prompt"
        )
    kind = stated or (echoed[0] if echoed else None)
    if kind is None and needed:
        raise ConfigError(
            f"{path}: which prompt do these generations answer? No --prompt, no prompt folder "
            f"in the path, no prompt echoed — pass --prompt ({', '.join(PROMPTS)})"
        )
    return kind
