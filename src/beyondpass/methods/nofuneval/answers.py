"""The ``nofuneval-edit`` answer formats: the edited program as an :class:`Extraction`."""

from __future__ import annotations

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.result import Extraction
from beyondpass.methods.nofuneval.extraction import Edited, robust_extract


def _as_extraction(edited: Edited, how: str) -> Extraction:
    notes = (how, "template followed" if edited.template_followed else "template not followed")
    if not edited.code.strip():
        return Extraction("no_code", "", "", "none", notes=notes)
    return Extraction("ok", edited.code, edited.code, "full", notes=notes)


def extract_edit(answer: str, task: Task) -> Extraction:
    """Robust reading (the default): see :func:`robust_extract`."""
    fields = task.metadata.get("prompt_fields") or {}
    prompts = tuple(str(v) for v in fields.values())
    return _as_extraction(robust_extract(answer, prompts, task.language), "nofuneval robust")


def extract_choice(answer: str, task: Task) -> Extraction:
    """The program the answer chooses (``A``/``B``) as the extracted "code"."""
    from beyondpass.methods.nofuneval.classify import parse_choice

    choice = parse_choice(answer)
    if choice is None:
        return Extraction("no_code", "", "", "none", notes=("no choice read",))
    return Extraction("ok", choice, choice, "full", notes=("choice",))
