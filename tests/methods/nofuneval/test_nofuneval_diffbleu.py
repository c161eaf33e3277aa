"""DiffBLEU against the values NoFunEval's own code computed, and its defining properties."""

from __future__ import annotations

import pytest

from beyondpass.methods.nofuneval.edit.diffbleu import (
    DiffBleu,
    edit_diff,
    normalise,
    strip_comments,
    strip_python_comments,
)
from beyondpass.methods.nofuneval.extraction.readers import compat_extract, published_answer
from nofuneval_data import EDIT_SUBSETS, PROMPT_KINDS, rows


@pytest.fixture(scope="module")
def scorer():
    with DiffBleu() as s:
        yield s


@pytest.mark.parametrize("kind", PROMPT_KINDS)
def test_equals_reference_on_gpt4_latency(scorer, kind):
    gens = rows(f"generations/latency/gpt-4/{kind}/generated_outputs.jsonl")
    refs = rows(f"generations/latency/gpt-4/{kind}/diffbleu_reference.jsonl")
    assert len(gens) == len(refs) == 47
    for gen, ref in zip(gens, refs, strict=True):
        edited = compat_extract(published_answer(gen["generated_answers"]), kind, gen["pl"])
        value = scorer.score(gen["source_code"], gen["target_code"], edited.code, gen["pl"])
        assert value == pytest.approx(ref["diffbleu"], abs=1e-6), ref["row"]
        assert edited.template_followed == bool(ref["template_followed"]), ref["row"]


@pytest.mark.parametrize("subset", EDIT_SUBSETS)
def test_target_scores_one_and_source_zero(scorer, subset):
    data = rows(f"{subset}.jsonl")
    assert data
    for n, row in enumerate(data):
        src, tgt, pl = row["source_code"], row["target_code"], row["pl"]
        assert scorer.score(src, tgt, tgt, pl) == pytest.approx(1.0, abs=1e-12), n
        assert scorer.score(src, tgt, src, pl) == 0.0, n


def test_empty_generation_scores_zero(scorer):
    assert scorer.score("int a;\n", "int b;\n", "// only a comment\n\n", "java") == 0.0


def test_hunk_headers_are_part_of_the_diff(tmp_path):
    diff = edit_diff("a\nb\nc", "a\nB\nc", str(tmp_path))
    # git's default heading names the nearest line above that starts with a letter ("a")
    assert diff.splitlines() == ["@@ -2 +2 @@ a", "-b", "+B"]
    diff = edit_diff("  a\nb", "  a\nc", str(tmp_path))
    assert diff.splitlines() == ["@@ -2 +2 @@", "-b", "+c"]


def test_whitespace_only_change_is_no_edit(tmp_path):
    assert edit_diff("x = 1\ny = 2", "x  =  1\ny = 2", str(tmp_path)) == ""


def test_python_comments_and_docstrings_removed():
    code = 'def f():\n    """doc"""\n    return "s"  # note\n'
    assert strip_python_comments(code).split() == ["def", "f():", "return", '"s"']


def test_python_that_does_not_tokenize_falls_back_to_patterns():
    assert strip_comments("x = (1  # open\n'''doc'''\n", "python") == "x = (1  \n\n"


def test_c_family_comments_and_blank_lines():
    assert normalise("int a; // one\n\n/* two\n three */ int b;\n", "Java") == "int a; \n int b;"


def test_unknown_language_is_an_error():
    from beyondpass.errors import ConfigError

    with pytest.raises(ConfigError, match="no comment syntax"):
        strip_comments("x", "cobol")
