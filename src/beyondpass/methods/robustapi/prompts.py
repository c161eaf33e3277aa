"""RobustAPI's prompt in its three settings: zero-shot, one-shot-irrelevant, one-shot-relevant.

The wording is the seed's (and its released code's): the answer format
``<<<api>>>: $API / <<<code>>>: $CODE / <<<explanation>>>: $EXPLANATION``, then the
demonstration if any, then ``Question: ...`` / ``Please using this api: ....`` /
``Answer:``. The irrelevant demonstration is the seed's ``Arrays.stream`` example; the
relevant ones are beyondpass's own (``data/robustapi_shots.toml``), one per API, each a correct
usage that our checker passes (tests/methods/robustapi/test_robustapi_shots.py).

Per-task values reach the templates through the task's ``prompt_fields`` (``{api}``,
``{relevant_shot}``), filled in by the RobustAPI loader.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from beyondpass.benchmarks.task import Task
from beyondpass.errors import DataError
from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate, render
from beyondpass.tomlfile import read_toml

HEADER = (
    "Please answer my code questions using the given API following this format: "
    "<<<api>>>: $API\n<<<code>>>: $CODE\n<<<explanation>>>: $EXPLANATION.\n"
)
QUESTION = "Question: {prompt}\nPlease using this api: {api}.\nAnswer:"

IRRELEVANT_SHOT = {
    "api": "Arrays.stream",
    "question": "How can I calculate the sum of an array in Java?",
    "code": "int[] array = {1, 2, 3, 4, 5};\nint sum = Arrays.stream(array).sum();",
    "explanation": "The sum() method of the IntStream class returns the sum of elements in "
    "this stream.",
}


def format_shot(shot: dict[str, str]) -> str:
    """A demonstration, worded like the question and answer it demonstrates."""
    return (
        f"Question: {shot['question']}\nPlease using this api: {shot['api']}.\n"
        f"Answer:<<<api>>>: {shot['api']}\n<<<code>>>: {shot['code'].strip()}\n"
        f"<<<explanation>>>: {shot['explanation']}\n"
    )


@functools.cache
def shots() -> dict[str, dict[str, str]]:
    """The one-shot-relevant demonstrations by API."""
    data = resources.files("beyondpass.methods.robustapi") / "data"
    shots = Path(str(data / "robustapi_shots.toml"))
    out = {}
    for shot in read_toml(shots, "RobustAPI demonstrations file")["shot"]:
        out[shot["api"]] = {k: str(v) for k, v in shot.items()}
    return out


def relevant_shot(api: str) -> str:
    """The formatted relevant demonstration for ``api``; empty when we have none."""
    shot = shots().get(api)
    return format_shot(shot) if shot is not None else ""


ZERO_SHOT = Condition(
    id="zero-shot",
    steps=(PromptTemplate(user=HEADER + QUESTION),),
    description="RobustAPI zero-shot: instruction, question and API hint",
)
ONE_SHOT_IRRELEVANT = Condition(
    id="one-shot-irrelevant",
    steps=(PromptTemplate(user=HEADER + format_shot(IRRELEVANT_SHOT) + QUESTION),),
    description="RobustAPI one-shot-irrelevant: a demonstration on an unrelated API "
    "(Arrays.stream) shows the answer format",
)
ONE_SHOT_RELEVANT = Condition(
    id="one-shot-relevant",
    steps=(PromptTemplate(user=HEADER + "{relevant_shot}" + QUESTION),),
    description="RobustAPI one-shot-relevant: a correct usage of the same API (written by "
    "beyondpass, checker-clean) as the demonstration",
)

PLAN = PromptPlan("robustapi", (ZERO_SHOT, ONE_SHOT_IRRELEVANT, ONE_SHOT_RELEVANT))


def check_shots(apis: list[str]) -> None:
    """Every API of the dataset needs a relevant demonstration."""
    missing = sorted(set(apis) - set(shots()))
    if missing:
        raise DataError(f"no one-shot-relevant demonstration for API(s) {missing}")


def prompt_texts(task: Task) -> tuple[str, ...]:
    """The prompt of every setting for ``task``, as sent: what an echoing model repeats.

    Base (completion) models often answer by repeating the whole prompt first; the
    instructions in it contain ``<<<code>>>: $CODE``, which a reader would otherwise take
    for the answer's code (see ``extraction.java_code.strip_echoed_prompt``).
    """
    return tuple("\n\n".join(m.content for m in render(c.steps[0], task)) for c in PLAN.conditions)
