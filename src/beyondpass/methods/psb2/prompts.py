"""The PSB2 method's prompts: the seed's neutral prefix plus one runnable mode.

The seed (002) prompts "Generate a <LANGUAGE> code to solve the problem!" followed by the
PSB2 description and adapted every answer by hand to its test harness. beyondpass needs no
hand edits, so each plan adds exactly one thing to the neutral prompt, the same for every
model, and records what it added (the condition's metadata names the mode):

- ``psb2-program``: the exact stdin/stdout format (``io_format``); the answer is a whole
  program, read as ``whole-program`` and run unchanged.
- ``psb2-function``: the function signature in the target language (``signature``); the
  answer's code is run unchanged with a generated driver appended (answer format
  ``psb2-function``, notes say so), see ``drivers``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from beyondpass.benchmarks.task import Task, TestCase
from beyondpass.errors import ConfigError
from beyondpass.execution import ExecutionLimits, ExecutionRequest
from beyondpass.execution.languages import io_request
from beyondpass.extraction.program import extract_program
from beyondpass.extraction.result import Extraction
from beyondpass.methods.psb2.benchmark.problems import Arg, Problem, problem
from beyondpass.methods.psb2.drivers import function_call, python_program, python_signature
from beyondpass.methods.psb2.drivers_cpp import cpp_program, cpp_signature
from beyondpass.methods.psb2.drivers_java import (
    java_adaptation,
    java_prompt_signature,
)
from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate

NEUTRAL_PREFIX = "Generate a {language} code to solve the problem!\n{prompt}"
FUNCTION_FORMAT = "psb2-function"

_DESCRIBE = {
    "int": "an integer",
    "float": "a floating-point number",
    "str": "a string (the whole line, possibly empty)",
    "bool": "a Boolean written as true or false",
    "vec_int": "a vector of integers, written on one line separated by single spaces "
    "(an empty vector is an empty line)",
    "vec_float": "a vector of floating-point numbers, written on one line separated by "
    "single spaces (an empty vector is an empty line)",
}


def _lines(args: tuple[Arg, ...]) -> str:
    return "\n".join(f"- line {i}: {a.name}, {_DESCRIBE[a.type]}" for i, a in enumerate(args, 1))


def io_format(p: Problem) -> str:
    """The program-mode addition: exactly how one case is read and written."""
    return (
        "Write a complete program that reads one case from standard input and writes the "
        "answer to standard output.\nInput, one value per line:\n"
        f"{_lines(p.inputs)}\nOutput, one value per line:\n{_lines(p.outputs)}"
    )


#: function mode per language: the signature shown, and the program made of an answer
#: (its code unchanged, then the generated driver) — one entry per language's drivers module.
#: Java differs: its prompt addition names the class, and its program is the answer alone
#: (the trusted FunctionRunner calls the method: drivers_java), so it is dispatched apart.
SIGNATURES: dict[str, Callable[[Problem], str]] = {
    "python": python_signature,
    "cpp": cpp_signature,
}
PROGRAMS: dict[str, Callable[[str, Problem], str]] = {
    "python": python_program,
    "cpp": cpp_program,
}
_DRIVER_NAME = {"python": "Python", "cpp": "C++ (batched)"}


def signature(p: Problem, language: str) -> str:
    """The function-mode addition: the signature to implement, in the target language."""
    if language == "java":
        return java_prompt_signature(p)
    if language not in SIGNATURES:
        raise ConfigError(
            f"function mode has no {language} signature/driver in this build "
            f"(it has {', '.join(sorted([*SIGNATURES, 'java']))}) — use plan psb2-program"
        )
    return f"Implement this function:\n{SIGNATURES[language](p)}"


def prompt_fields(p: Problem, language: str) -> dict[str, str]:
    """Per-task values the templates use (``{io_format}``, ``{signature}``)."""
    fields = {"io_format": io_format(p)}
    if language in SIGNATURES or language == "java":
        fields["signature"] = signature(p, language)
    return fields


PROGRAM = Condition(
    id="program",
    steps=(PromptTemplate(user=NEUTRAL_PREFIX + "\n{io_format}"),),
    description="Neutral prompt + the exact stdin/stdout format; the answer is a program",
    metadata={"mode": "program", "added": "io_format"},
)
FUNCTION = Condition(
    id="function",
    steps=(PromptTemplate(user=NEUTRAL_PREFIX + "\n{signature}"),),
    description="Neutral prompt + the function signature; beyondpass appends the driver",
    metadata={"mode": "function", "added": "signature"},
)


def _no_options(table: Any, where: str) -> None:
    extra = sorted(k for k in (table or {}) if k != "plan")
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r} — this plan takes no options")


def program_plan(table: Any, base: Any, where: str) -> PromptPlan:
    """``plan = "psb2-program"``."""
    _no_options(table, where)
    return PromptPlan("psb2-program", (PROGRAM,), answer_format="whole-program")


def function_plan(table: Any, base: Any, where: str) -> PromptPlan:
    """``plan = "psb2-function"``."""
    _no_options(table, where)
    return PromptPlan("psb2-function", (FUNCTION,), answer_format=FUNCTION_FORMAT)


def function_mode_request(
    language: str,
    code: str,
    p: Problem,
    tests: Sequence[TestCase],
    limits: ExecutionLimits | None = None,
    batch: bool = True,
) -> ExecutionRequest:
    """The request of a function-mode answer run directly (benchmarks, references): the
    program :func:`extract_function` would assemble and, batched, its typed call; with
    ``batch=False`` a program that runs one process per case (for comparisons)."""
    if language == "java":
        program = code
    elif language == "cpp":
        program = cpp_program(code, p, batch=batch)
    else:
        program = PROGRAMS[language](code, p)
    call = function_call(p, language) if batch else None
    return io_request(language, program, tests, limits, function=call)


def extract_function(answer: str, task: Task) -> Extraction:
    """Function mode: the answer's code, unchanged, followed by the generated driver; an
    answer with several candidate blocks keeps the other reading, with its driver too."""
    found = extract_program(answer, task)
    if found.alternative is None:
        return _with_driver(found, task)
    alternative = _with_driver(found.alternative, task)
    return replace(_with_driver(found, task), candidates=found.candidates, alternative=alternative)


def _with_driver(found: Extraction, task: Task) -> Extraction:
    if not found.ok:
        return found
    p = problem(str(task.metadata.get("psb2_problem", task.task_id)))
    call = function_call(p, task.language)  # the typed call the executor makes per case
    if task.language == "java":
        notes = (*found.notes, java_adaptation(p))
        return Extraction("ok", found.code, found.code, "full", notes=notes, function=call)
    signature(p, task.language)  # a language without a driver: the one-line error
    program = PROGRAMS[task.language](found.code, p)
    driver = _DRIVER_NAME.get(task.language, task.language)
    notes = (*found.notes, f"appended the generated {driver} driver calling {p.name}()")
    return Extraction("ok", found.code, program, "full", notes=notes, function=call)
