"""Pipeline stage "extraction": turn a model's answer into the program to evaluate.

Extraction dispatches on the *answer format* the prompt plan asked for ("fenced-code",
RobustAPI's "robustapi-blocks", "whole-program", "edited-program"), not on the task's
language: a Java stdin/stdout task and a RobustAPI question are both Java but answered in
different formats. Formats are registered by methods (:mod:`beyondpass.registry`); when the
plan does not name one, the benchmark's default applies, else the language's.
:func:`extract` is the single entry point the pipeline uses.
"""

from __future__ import annotations

from collections.abc import Callable

from beyondpass import registry
from beyondpass.benchmarks.task import Task
from beyondpass.extraction.python_code import extract_python
from beyondpass.extraction.result import Extraction, ExtractionKind, ExtractionStatus

Extractor = Callable[[str, Task], Extraction]


def answer_format_of(task: Task, answer_format: str | None = None) -> str:
    """The format ``task``'s answers are read in: the plan's, else the benchmark's default."""
    return (answer_format or registry.default_answer_format(task.benchmark, task.language)).lower()


def extractor_for(answer_format: str) -> Extractor:
    """The extractor the registry holds for ``answer_format``."""
    return registry.answer_format(answer_format)


def extract(
    answer: str, task: Task, answer_format: str | None = None, condition: str = ""
) -> Extraction:
    """Extract the program ``answer`` gives for ``task``, read in ``answer_format``;
    ``condition``: the prompt asked, for formats whose reading depends on it."""
    name = answer_format_of(task, answer_format)
    if registry.answer_format_spec(name).reads_condition:
        return extractor_for(name)(answer, task, condition)
    return extractor_for(name)(answer, task)


__all__ = [
    "Extraction",
    "ExtractionKind",
    "ExtractionStatus",
    "Extractor",
    "answer_format_of",
    "extract",
    "extract_python",
]
