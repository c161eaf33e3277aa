"""Answer formats "whole-program" and "edited-program": the answer is the entire program.

Used for tasks in any language whose prompt asks for a complete program (stdin/stdout
tasks, edits of a given program). The code is the first fenced block (any language tag),
else the whole answer; nothing is assembled from the prompt and nothing is compiled here —
whether it builds is the evaluators' call, in the sandbox.
"""

from __future__ import annotations

import re

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.result import Extraction

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)


def fenced_blocks(answer: str) -> list[str]:
    """The contents of the answer's fenced blocks (any language tag), in order."""
    text = (answer or "").replace("\r\n", "\n")
    return [match.group(2) for match in _FENCE.finditer(text)]


def extract_program(answer: str, task: Task) -> Extraction:
    """The program ``answer`` holds: its first fenced block, else all of it."""
    text = (answer or "").replace("\r\n", "\n")
    blocks = fenced_blocks(text)
    if blocks:
        code, note = blocks[0], "first fenced block"
    else:
        code, note = text, "whole answer (no fenced block)"
    code = code.strip("\n")
    if not code.strip():
        return Extraction("no_code", "", "", "none", notes=("answer holds no code",))
    program = code.rstrip() + "\n"
    return Extraction("ok", code, program, "full", notes=(note,))
