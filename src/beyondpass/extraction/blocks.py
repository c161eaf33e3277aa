"""Which of several candidate blocks is the answer: one rule for every answer format.

Answers of chat models often hold more than one block that could be the program (for
Python, blocks that define the entry point; for whole programs, blocks in the task's
language): the answer first, then alternatives offered after it ("If you want...", "A
shorter version"), and sometimes a last block the answer itself names as its final one
("Recommended final version", "A correct and stable version is:"). Which one is read decides
the verdict, so every format chooses here, by :func:`choose` (docs/extraction.md, "Several
candidate blocks", has the rule and the evidence for it).

A block is *named* the answer when its lead-in (the prose between the previous block and
this one: its nearest heading and its last line) uses a word that names a final answer
(final, recommended, completed, correct, solution, answer) and none that offers an
alternative or speaks of something other than the program (if, alternative, also, could,
example, usage, input, output, tests...). The rule (``named``): the last candidate named the answer,
else the first candidate. ``first`` and ``last`` are kept for the evidence script
(benchmarks/bench_block_choice.py), which measures what each choice would decide.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

Rule = Literal["named", "first", "last"]
#: the rule every answer format applies
RULE: Rule = "named"
RULES: tuple[Rule, ...] = ("named", "first", "last")

_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})")
_HEADING = re.compile(r"^(?:#{1,6}[ \t]+\S|\*\*[^*].*\*\*:?$)")
#: words a lead-in uses for the answer's final program
_ANSWER = re.compile(
    r"\b(?:final|recommended|complete[ds]?|correct(?:ed)?|solution|answer)\b", re.I
)
#: words a lead-in uses for something offered besides the answer, or for what is not the
#: program at all (its input, output, usage, tests)
_NOT_ANSWER = re.compile(
    r"\b(?:alternatives?|alternatively|if|optional(?:ly)?|another|also|could|instead|less|"
    r"examples?|usage|input|output|run|tests?)\b",
    re.I,
)


def lead_in(lines: Sequence[str], start: int) -> list[str]:
    """The non-blank prose lines before the block that starts at line ``start`` (0-based),
    back to the previous fence or the answer's start."""
    intro: list[str] = []
    i = start - 1
    while i >= 0 and not _FENCE_LINE.match(lines[i]):
        if lines[i].strip():
            intro.append(lines[i].strip())
        i -= 1
    return intro[::-1]


def named_answer(intro: Sequence[str]) -> bool:
    """Whether a lead-in names its block the answer (see the module docstring)."""
    if not intro:
        return False
    heading = next((line for line in reversed(intro) if _HEADING.match(line)), "")
    cues = [line for line in dict.fromkeys((heading, intro[-1])) if line]
    return any(_ANSWER.search(c) for c in cues) and not any(_NOT_ANSWER.search(c) for c in cues)


def choose(named: Sequence[bool], rule: Rule = RULE) -> int:
    """The index of the candidate that is the answer, given whether each is named so."""
    if not named:
        raise ValueError("no candidate block to choose from")
    if rule == "last":
        return len(named) - 1
    if rule == "named":
        marked = [i for i, is_named in enumerate(named) if is_named]
        if marked:
            return marked[-1]
    return 0


def alternative(chosen: int, count: int) -> int | None:
    """The candidate the other reading would take: the last one, or the first when the
    last was chosen; ``None`` for a single candidate."""
    if count < 2:
        return None
    return count - 1 if chosen != count - 1 else 0


def describe(chosen: int, count: int, named: bool, rule: Rule = RULE) -> str:
    """The note saying which candidate was taken and why."""
    if count < 2:
        return ""
    why = "named the answer" if named and rule == "named" else f"{rule} candidate"
    if rule == "named" and not named:
        why = "first candidate; none named the answer"
    return f"candidate {chosen + 1} of {count} ({why})"


__all__ = ["RULE", "RULES", "Rule", "alternative", "choose", "describe", "lead_in", "named_answer"]
