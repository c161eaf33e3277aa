"""The NoFunEval answer formats: the edited program (or the choice) as an :class:`Extraction`.

``nofuneval-edit`` reads robustly; ``nofuneval-edit-compat`` is NoFunEval's own reading,
which splits the answer by the prompt's template, so it is registered with
``reads_condition``: it gets the condition (the ``nofuneval-edit`` prompt asked).
"""

from __future__ import annotations

from beyondpass.benchmarks.task import Task
from beyondpass.errors import DataError
from beyondpass.extraction.result import Extraction
from beyondpass.methods.nofuneval.benchmark import PROMPTS
from beyondpass.methods.nofuneval.extraction.echo import unknown_echo
from beyondpass.methods.nofuneval.extraction.readers import Edited, compat_extract, robust_extract


def _as_extraction(edited: Edited, how: str) -> Extraction:
    notes = (how, "template followed" if edited.template_followed else "template not followed")
    if not edited.code.strip():
        return Extraction("no_code", "", "", "none", notes=notes)
    return Extraction("ok", edited.code, edited.code, "full", notes=notes)


def extract_edit(answer: str, task: Task) -> Extraction:
    """Robust reading (the default): see :func:`robust_extract`. A task without its
    prompts (a published file's row, :func:`.benchmark.load_published`) strips the prompt
    the answer echoes as far as it can be told (:func:`.echo.unknown_echo`)."""
    fields = task.metadata.get("prompt_fields") or {}
    prompts = tuple(str(v) for v in fields.values())
    if not prompts:
        prompts = (unknown_echo(answer, str(task.metadata.get("source_code", ""))),)
    return _as_extraction(robust_extract(answer, prompts, task.language), "nofuneval robust")


def extract_edit_compat(answer: str, task: Task, condition: str) -> Extraction:
    """NoFunEval's reading (``post_process_generations``): see :func:`compat_extract`;
    ``condition`` is the prompt the answer replies to."""
    if condition not in PROMPTS:
        raise DataError(
            f"the compat reading needs the prompt the answer replies to, got condition "
            f"{condition!r} — one of {', '.join(PROMPTS)} (--prompt)"
        )
    pl = str(task.metadata.get("pl", task.language))
    return _as_extraction(compat_extract(answer, condition, pl), "nofuneval compat")


def extract_choice(answer: str, task: Task) -> Extraction:
    """The program the answer chooses (``A``/``B``) as the extracted "code"."""
    from beyondpass.methods.nofuneval.classify.choices import parse_choice

    choice = parse_choice(answer)
    if choice is None:
        return Extraction("no_code", "", "", "none", notes=("no choice read",))
    return Extraction("ok", choice, choice, "full", notes=("choice",))
