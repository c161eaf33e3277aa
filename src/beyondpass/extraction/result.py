"""The outcome of extracting code from one model answer.

Extraction is its own pipeline stage so that "the model wrote no code" and "the model wrote
broken code" are recorded as outcomes in their own right instead of surfacing later as
confusing test failures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from beyondpass.benchmarks.task import FunctionCall

ExtractionStatus = Literal["ok", "no_code", "syntax_error"]
ExtractionKind = Literal["full", "body", "none"]


@dataclass(frozen=True)
class Extraction:
    """What was found in an answer and the program assembled from it.

    ``code`` is what the model wrote (kept verbatim for reports); ``program`` is what the
    evaluators run. They differ when the answer is a completion body (``program`` = prompt +
    body) or omits context the prompt provides (imports, helper functions).
    """

    status: ExtractionStatus
    code: str  # the code found in the answer; "" for no_code
    program: str  # the runnable program for the task; best effort for syntax_error
    kind: ExtractionKind  # full definitions, a body continuing the prompt, or nothing
    error: str = ""  # for syntax_error: "SyntaxError: <message> (line N)" of ``program``
    notes: tuple[str, ...] = ()  # the steps extraction took, for auditing odd cases
    #: function mode: the function a trusted runner calls on each I/O test (``None``: the
    #: program runs as it is)
    function: FunctionCall | None = None
    #: how many blocks could each be the answer (docs/extraction.md, "Several candidate
    #: blocks"); the one taken is :mod:`beyondpass.extraction.blocks`' choice
    candidates: int = 1
    #: with several candidates: what the other reading would take (the last candidate, or
    #: the first when the last was taken), so its verdict can be compared
    alternative: Extraction | None = None

    @property
    def ok(self) -> bool:
        """True when a compilable program was found."""
        return self.status == "ok"
