"""The one-shot-relevant demonstrations: one per dataset API, each a correct usage that our
checker passes (correct semantics) and that really calls the API it demonstrates."""

from __future__ import annotations

import pytest

from beyondpass.methods.robustapi.benchmark import DOMAINS
from beyondpass.methods.robustapi.checker import ApiMisuseChecker, load_ruleset
from beyondpass.methods.robustapi.extraction.java_syntax import parse_java
from beyondpass.methods.robustapi.prompts import (
    ONE_SHOT_RELEVANT,
    format_shot,
    relevant_shot,
    shots,
)


@pytest.fixture(scope="module")
def checker(data_dir):
    return ApiMisuseChecker(load_ruleset(data_dir=data_dir))


def test_every_api_has_a_demonstration(data_dir):
    apis = {
        line.split('"api": "')[1].split('"')[0]
        for line in (data_dir / "robustapi" / "question.jsonl").open()
    }
    assert apis == set(DOMAINS)
    assert set(shots()) == apis


@pytest.mark.parametrize("api", sorted(DOMAINS))
def test_demonstration_is_checker_clean_and_uses_its_api(checker, api):
    shot = shots()[api]
    assert parse_java(shot["code"]).ok
    answer = format_shot(shot).split("Answer:", 1)[1]
    verdict = checker.check(answer, api)
    assert verdict.verdict == "pass", [v.as_dict() for v in verdict.violations]
    assert verdict.api_called
    assert api.split(".")[1] + "(" in shot["code"]


def test_relevant_template_holds_the_shot():
    assert "{relevant_shot}" in ONE_SHOT_RELEVANT.steps[0].user
    assert relevant_shot("Map.get").startswith("Question: ")
    assert relevant_shot("No.such") == ""
