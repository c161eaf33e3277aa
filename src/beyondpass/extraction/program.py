"""Answer formats "whole-program" and "edited-program": the answer is the entire program.

Used for tasks in any language whose prompt asks for a complete program (stdin/stdout
tasks, edits of a given program). The candidates are the fenced blocks tagged with the
task's language, else the untagged ones, else every fenced block (a block of sample input
or a shell command is not the program when a block in the language is there); among them
:mod:`.blocks` chooses, as for every format (the last one the answer names its answer, else
the first). Without a fenced block the whole answer is the program. Nothing is assembled
from the prompt and nothing is compiled here — whether it builds is the evaluators' call,
in the sandbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.blocks import (
    RULE,
    Rule,
    alternative,
    choose,
    describe,
    lead_in,
    named_answer,
)
from beyondpass.extraction.result import Extraction

_FENCE = re.compile(r"^[ \t]*(```|~~~)([^\n]*)\n(.*?)^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
#: info-string tags per task language (lower case); a language not listed is its own tag
LANGUAGE_TAGS = {
    "python": frozenset({"python", "py", "python3", "py3"}),
    "cpp": frozenset({"cpp", "c++", "cc", "cxx"}),
    "c": frozenset({"c"}),
    "java": frozenset({"java"}),
    "javascript": frozenset({"javascript", "js", "node"}),
}


@dataclass(frozen=True)
class Fenced:
    """One fenced block: its text, info-string tag (lower case) and whether the prose
    before it names it the answer (:func:`.blocks.named_answer`)."""

    text: str
    tag: str
    named: bool


def fenced(answer: str) -> list[Fenced]:
    """The answer's fenced blocks (any language tag), in order."""
    text = (answer or "").replace("\r\n", "\n")
    lines = text.split("\n")
    out = []
    for match in _FENCE.finditer(text):
        opening = text.count("\n", 0, match.start())
        tag = match.group(2).strip().split()[0].lower() if match.group(2).strip() else ""
        out.append(Fenced(match.group(3), tag, named_answer(lead_in(lines, opening))))
    return out


def candidates(blocks: list[Fenced], language: str) -> list[Fenced]:
    """The blocks that could be the program: tagged with ``language``, else untagged, else
    all of them."""
    tags = LANGUAGE_TAGS.get(language.lower(), frozenset({language.lower()}))
    return [b for b in blocks if b.tag in tags] or [b for b in blocks if not b.tag] or list(blocks)


def extract_program(answer: str, task: Task, rule: Rule = RULE) -> Extraction:
    """The program ``answer`` holds: the chosen candidate block, else all of it.
    ``rule``: how to choose among candidate blocks (:mod:`.blocks`; others for measuring)."""
    text = (answer or "").replace("\r\n", "\n")
    blocks = fenced(text)
    found = candidates(blocks, task.language)
    if not found:
        return _program(text, "whole answer (no fenced block)")
    at = choose([b.named for b in found], rule)
    position = next(i for i, b in enumerate(blocks) if b is found[at])
    label = f"fenced block {position + 1} of {len(blocks)}"
    if len(found) == 1:
        return _program(found[0].text, "first fenced block" if found[0] is blocks[0] else label)
    why = describe(at, len(found), found[at].named, rule)
    result = _program(found[at].text, f"picked {label}, {why}")
    other = alternative(at, len(found))
    assert other is not None  # several candidates
    alt = _program(found[other].text, f"picked candidate {other + 1} of {len(found)} (alternative)")
    return replace(result, candidates=len(found), alternative=alt)


def _program(code: str, note: str) -> Extraction:
    code = code.strip("\n")
    if not code.strip():
        return Extraction("no_code", "", "", "none", notes=("answer holds no code",))
    return Extraction("ok", code, code.rstrip() + "\n", "full", notes=(note,))
