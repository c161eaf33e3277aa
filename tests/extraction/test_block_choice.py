"""Which block of a multi-block answer is read, on real answers of gpt-5.4 to HumanEval
(``recorded/multi-block-answers.jsonl``): the answer first, alternatives offered after it
are not read, a last block the answer names as its final or corrected one is. Every format
reads them the same way (docs/extraction.md, "Several candidate blocks")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from beyondpass.benchmarks.humaneval import load_humaneval
from beyondpass.benchmarks.task import Benchmark
from beyondpass.extraction import extract
from beyondpass.extraction.blocks import alternative, choose, lead_in, named_answer
from shared_data import require

RECORDED = "recorded/multi-block-answers.jsonl"


@pytest.fixture(scope="module")
def answers(data_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    path = require(data_dir / RECORDED, "the recorded multi-block answers")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {(r["task_id"], r["prompt_style"]): r for r in rows}


@pytest.fixture(scope="module")
def humaneval(data_dir: Path) -> Benchmark:
    return load_humaneval(data_dir)


def python_blocks(response: str) -> list[str]:
    """The answer's ```python blocks, read here by a plain pattern, not by the extractor."""
    return [b.strip("\n") for b in re.findall(r"^```python\n(.*?)^```", response, re.S | re.M)]


def defining(blocks: list[str], name: str) -> list[str]:
    """The blocks with a top-level ``def name(``, by a plain pattern."""
    return [b for b in blocks if re.search(rf"^def {name}\(", b, re.M)]


# (task, prompt style) -> which of the blocks defining the function is read (0-based), and
# how many there are; the comment quotes the lead-ins that decide
READ = {
    # "### Completed code" then "If you want the behavior typically expected ...": the answer
    ("HumanEval/103", "codesmell-prompt0"): (0, 2),
    # a first version, then "### Alternative cleaner version"
    ("HumanEval/77", "codesmell-prompt0"): (0, 2),
    # "## Recommended implementation", "## Alternative concise version", "Better concise
    # version:", then a usage block
    ("HumanEval/68", "codesmell-prompt0"): (0, 3),
    # a first version, its flaw explained, then "A correct and stable version is:"
    ("HumanEval/145", "errorhandle-structured-prompt1"): (1, 2),
    # three styles compared, then "### Recommended final version"
    ("HumanEval/34", "readability-prompt1"): (3, 4),
}


@pytest.mark.parametrize("key", sorted(READ))
def test_the_block_read_is_the_answer_not_an_offered_alternative(key, answers, humaneval) -> None:
    row = answers[key]
    task = humaneval.tasks[key[0]]
    read, count = READ[key]
    found = defining(python_blocks(row["response"]), str(task.entry_point))
    assert len(found) == count
    result = extract(row["response"], task)
    assert result.ok and result.candidates == count
    assert result.code == found[read]
    # the other reading: the last candidate, or the first when the last one was read
    other = count - 1 if read != count - 1 else 0
    assert result.alternative is not None and result.alternative.code == found[other]
    if read == 0:  # the authors' harness read the first block too
        assert found[0] in row["authors_code"]


def test_a_usage_block_is_no_candidate(answers, humaneval) -> None:
    row = answers[("HumanEval/10", "codesmell-prompt0")]
    blocks = python_blocks(row["response"])
    assert len(blocks) == 2 and "def make_palindrome" not in blocks[1]
    result = extract(row["response"], humaneval.tasks["HumanEval/10"])
    assert result.code == blocks[0] and result.candidates == 1 and result.alternative is None


@pytest.mark.parametrize(
    "key",
    [("HumanEval/103", "codesmell-prompt0"), ("HumanEval/145", "errorhandle-structured-prompt1")],
)
def test_whole_program_answers_are_read_by_the_same_rule(key, answers, humaneval) -> None:
    row = answers[key]
    task = humaneval.tasks[key[0]]
    fenced = extract(row["response"], task)
    whole = extract(row["response"], task, "whole-program")
    assert whole.code == fenced.code and whole.candidates == fenced.candidates
    assert whole.alternative is not None and fenced.alternative is not None
    assert whole.alternative.code == fenced.alternative.code


def test_what_names_a_block_the_answer() -> None:
    answer = [
        "## Recommended implementation",
        "```python",
        "x = 1",
        "```",
        "### Alternative explicit version",
        "If you want it longer:",
        "```python",
    ]
    assert lead_in(answer, 1) == ["## Recommended implementation"]
    assert lead_in(answer, 6) == ["### Alternative explicit version", "If you want it longer:"]
    assert named_answer(lead_in(answer, 1))
    assert not named_answer(lead_in(answer, 6))
    assert named_answer(["Some text.", "A correct and stable version is:"])
    assert not named_answer(["Final output:"])  # the program's output, not the program
    assert not named_answer(["A shorter version:"]) and not named_answer([])


def test_the_rule_and_the_other_reading() -> None:
    assert choose([False, False, False]) == 0
    assert choose([True, False, True, False]) == 2
    assert choose([False, True], "first") == 0 and choose([True, False], "last") == 1
    assert alternative(0, 3) == 2 and alternative(2, 3) == 0 and alternative(0, 1) is None
    with pytest.raises(ValueError):
        choose([])
