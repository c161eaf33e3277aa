"""Pipeline stage "extraction": turn a model's answer into the program to evaluate.

Extractors are registered per language so Java/C++ can be added next to Python without
touching callers; :func:`extract` is the single entry point the pipeline uses.
"""

from __future__ import annotations

from collections.abc import Callable

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.python_code import extract_python
from beyondpass.extraction.result import Extraction, ExtractionKind, ExtractionStatus

Extractor = Callable[[str, Task], Extraction]

EXTRACTORS: dict[str, Extractor] = {"python": extract_python}


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
