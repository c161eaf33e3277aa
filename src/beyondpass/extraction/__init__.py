"""Pipeline stage "extraction": turn a model's answer into the program to evaluate.

Extractors are registered per language (Python; Java, which reads RobustAPI's answer
format and needs the ``java`` extra) so C++ can be added without touching callers;
:func:`extract` is the single entry point the pipeline uses.
"""

from __future__ import annotations

from collections.abc import Callable

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.python_code import extract_python
from beyondpass.extraction.result import Extraction, ExtractionKind, ExtractionStatus

Extractor = Callable[[str, Task], Extraction]


def _extract_java(answer: str, task: Task) -> Extraction:
    from beyondpass.methods.robustapi.extraction.java_code import (
        extract_java,  # tree-sitter is optional
    )

    return extract_java(answer, task)


EXTRACTORS: dict[str, Extractor] = {"python": extract_python, "java": _extract_java}


def register(language: str, extractor: Extractor) -> None:
    """Make ``extractor`` handle answers for tasks in ``language`` (case-insensitive)."""
    EXTRACTORS[language.lower()] = extractor


def extract(answer: str, task: Task) -> Extraction:
    """Extract the program ``answer`` gives for ``task``, dispatching on ``task.language``."""
    extractor = EXTRACTORS.get(task.language.lower())
    if extractor is None:
        known = ", ".join(sorted(EXTRACTORS))
        raise NotImplementedError(
            f"no code extractor for language {task.language!r} (available: {known})"
        )
    return extractor(answer, task)


__all__ = [
    "EXTRACTORS",
    "Extraction",
    "ExtractionKind",
    "ExtractionStatus",
    "Extractor",
    "extract",
    "extract_python",
    "register",
]
