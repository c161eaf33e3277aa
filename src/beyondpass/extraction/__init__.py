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

#: the default answer format per task language, when neither plan nor benchmark says
LANGUAGE_FORMATS = {"python": "fenced-code"}
DEFAULT_FORMAT = "whole-program"


def default_answer_format(benchmark: str, language: str) -> str:
    """How answers to a task are read when the prompt plan does not say: the benchmark's
    declared format, else its language's."""
    found = registry.find("benchmarks", benchmark)
    if found is not None and found[0].answer_format:
        return str(found[0].answer_format)
    return LANGUAGE_FORMATS.get(language.lower(), DEFAULT_FORMAT)


def answer_format_of(task: Task, answer_format: str | None = None) -> str:
    """The format ``task``'s answers are read in: the plan's, else the benchmark's default."""
    return (answer_format or default_answer_format(task.benchmark, task.language)).lower()


def extractor_for(answer_format: str) -> Extractor:
    """The extractor the registry holds for ``answer_format``."""
    spec, owner = registry.lookup("answer_formats", answer_format)
    return registry.resolve(spec.extractor, owner)  # type: ignore[no-any-return]


def extract(
    answer: str, task: Task, answer_format: str | None = None, condition: str = ""
) -> Extraction:
    """Extract the program ``answer`` gives for ``task``, read in ``answer_format``;
    ``condition``: the prompt asked, for formats whose reading depends on it."""
    name = answer_format_of(task, answer_format)
    if registry.lookup("answer_formats", name)[0].reads_condition:
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
