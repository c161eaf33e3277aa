"""Finding the prompt a NoFunEval answer echoes (the published files hold prompt +
completion): the one place the echo is detected, for the robust reader (which strips it),
``nofuneval score`` (which learns the prompt an answers file replies to) and ``nofuneval
table1`` (which recovers the echoed prompt of a row whose dataset prompt is not at hand).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_HEADER = re.compile(r"^###[ \t]*(Response|Thought):[ \t]*$", re.M)
#: how every NoFunEdit prompt begins
PROMPT_OPENING = "Below is an instruction"


def echoed(text: str, prompts: Mapping[str, str]) -> str | None:
    """The key of the longest prompt ``text`` starts with (one row's prompt may begin with
    another's), or ``None``. Callers normalise both sides the same way first."""
    found = [k for k, prompt in prompts.items() if prompt and text.startswith(prompt)]
    return max(found, key=lambda k: len(prompts[k])) if found else None


def unknown_echo(answer: str, source: str) -> str:
    """The prompt a published answer starts with, when the dataset's is not at hand
    (maintainability): up to the first ``### Response:``/``### Thought:`` header after the
    row's source code, which the prompt quotes ("" when there is none). Without it the
    robust reader would take the one-shot example's ``### Response:`` for the answer's."""
    if not answer.lstrip().startswith(PROMPT_OPENING):
        return ""
    at = answer.find(source.strip())
    if at < 0:
        return ""
    header = _HEADER.search(answer, at + len(source.strip()))
    return answer[: header.end()] if header else ""


__all__ = ["PROMPT_OPENING", "echoed", "unknown_echo"]
