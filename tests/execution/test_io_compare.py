"""The judge's ``pie_lines`` comparison (NoFunEval's PIE ``get_accuracy`` line rule) on
hand-made outputs, beside the token-wise ``numeric`` mode where the two disagree.

Each expected verdict is worked out from the rule by hand in its comment: both outputs
``.strip().splitlines()``, lines paired with ``zip`` against the expected ones, a pair
right when equal as text or both ``float()``-parsable with ``abs(a - b) < 1e-3``, correct
only when every expected line is right.
"""

from __future__ import annotations

import pytest

from beyondpass.benchmarks.task import OutputComparison
from beyondpass.execution.sandboxed.io_compare import compare

PIE = OutputComparison("pie_lines", abs_tol=1e-3).as_dict()
NUMERIC = OutputComparison("numeric", abs_tol=1e-3).as_dict()

#: (name, program output, expected output, right under pie_lines, right under numeric)
CASES = [
    # "1.0000001 2" != "1 2"; float("1 2") raises -> wrong. Token-wise both tokens close.
    ("two numbers on a line", b"1.0000001 2\n", "1 2\n", False, True),
    # "2.0" != "2"; float: |2.0 - 2| = 0 < 1e-3 -> right
    ("float for an integer", b"2.0\n", "2\n", True, True),
    # ["6", "99"] zipped with ["6"]: one pair, right; the extra line is never looked at
    ("extra line", b"6\n99\n", "6\n", True, False),
    # ["8"] zipped with ["8", "10"]: 1 right of 2 expected -> accuracy 0.5, wrong
    ("missing line", b"8\n", "8\n10\n", False, False),
    # "5 " != "5" but float("5 ") = 5.0 -> right
    ("trailing blank on a number line", b"5 \n6\n", "5\n6\n", True, True),
    # "a " != "a" and float("a ") raises -> wrong; whitespace-normalised tokens are equal
    ("trailing blank on a text line", b"a \nb\n", "a\nb\n", False, True),
    # the whole output is stripped first: "\n  3\n\n\n".strip() == "3"; numeric mode
    # keeps the leading blank line (trailing ones only are ignored)
    ("blank around the whole output", b"\n  3\n\n\n", "3\n", True, False),
    # |0.001 - 0| = 0.001, not < 1e-3 -> wrong; isclose(abs_tol=1e-3) is <= -> right
    ("difference of exactly 1e-3", b"0.001\n", "0\n", False, True),
    # float() accepts underscores and exponents: 1000.0 both sides -> right;
    # the token regex of numeric mode does not take "1_000" as a number
    ("underscore digits", b"1_000\n", "1000\n", True, False),
    ("exponent", b"1e3\n", "1000\n", True, True),
    # "nan" == "nan" as text -> right; "NaN" vs "nan": both float nan, nan < 1e-3 is False
    ("nan as the same text", b"nan\n", "nan\n", True, True),
    ("nan spelled differently", b"NaN\n", "nan\n", False, False),
    # "inf " vs "inf": texts differ, inf - inf is nan -> wrong
    ("inf with a trailing blank", b"inf \n1\n", "inf\n1\n", False, True),
    # two blanks inside a line: texts differ, float raises -> wrong; numeric collapses them
    ("two blanks between numbers", b"1  2\n", "1 2\n", False, True),
    # splitlines takes "\r\n" and a lone "\r" as line ends: ["6", "10"] both times
    ("crlf line ends", b"6\r\n10\r\n", "6\n10\n", True, True),
    ("lone carriage return", b"6\r10\n", "6\n10\n", True, False),
    # the first line is wrong although the second is right: accuracy 0.5
    ("wrong then right", b"0\n6\n", "6\n6\n", False, False),
]


@pytest.mark.parametrize(
    "output, expected, pie_right, numeric_right",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_pie_lines_against_the_rule_and_the_token_wise_mode(
    output: bytes, expected: str, pie_right: bool, numeric_right: bool
) -> None:
    assert (compare(output, expected, PIE) == "") is pie_right
    assert (compare(output, expected, NUMERIC) == "") is numeric_right


def test_pie_lines_names_the_first_wrong_or_missing_line() -> None:
    assert compare(b"1\n2.5\n", "1\n2\n3\n", PIE) == "line 2: expected '2', got '2.5'"
    assert compare(b"1\n2\n", "1\n2\n3\n", PIE) == "line 3: expected '3', got end of output"


def test_the_tolerance_is_the_one_given_and_strict() -> None:
    loose = OutputComparison("pie_lines", abs_tol=0.5).as_dict()
    assert compare(b"2.25\n", "2\n", loose) == ""  # 0.25 < 0.5
    assert compare(b"2.5\n", "2\n", loose) != ""  # 0.5 is not < 0.5
    exact = OutputComparison("pie_lines").as_dict()  # abs_tol 0: text or equal floats
    assert compare(b"2.0\n", "2\n", exact) != ""
    assert compare(b"2\n", "2\n", exact) == ""


def test_output_that_is_not_utf8_or_no_expected_line_fails() -> None:
    # their harness decodes strictly (raises) and divides by the expected line count
    assert "not UTF-8" in compare(b"\xff6\n", "6\n", PIE)
    assert "no lines" in compare(b"", " \n\n", PIE)


def test_pie_lines_records_its_tolerance_and_takes_no_relative_one() -> None:
    assert PIE == {"mode": "pie_lines", "abs_tol": 1e-3}
    with pytest.raises(ValueError, match="abs_tol only"):
        OutputComparison("pie_lines", abs_tol=1e-3, rel_tol=1e-6)
    with pytest.raises(ValueError, match="not 'whitespace'"):
        OutputComparison("whitespace", abs_tol=1e-3)
