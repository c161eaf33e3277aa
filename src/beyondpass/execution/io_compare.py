"""Comparing a program's stdout with an I/O test's expected output, in the judge.

The program never compares: it only writes bytes, which the judge reads back from the
candidate sandbox after the program has ended and compares here. Three modes
(``OutputComparison`` in ``benchmarks/task.py``, docs/verdicts.md): ``exact`` (bytes),
``whitespace`` (lines with blank runs collapsed and ends stripped, trailing blank lines
ignored) and ``numeric`` (as ``whitespace``, then numbers token by token within a
tolerance). A mismatch is described by its first differing line.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import math
import re

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
SHOWN = 80  # characters of a differing line shown in the message


def compare(actual: bytes, expected: str, spec: dict) -> str:
    """``""`` when ``actual`` matches ``expected`` under ``spec`` (``{"mode", "abs_tol",
    "rel_tol"}``), else the first difference in one line."""
    mode = spec.get("mode", "exact")
    want = expected.encode("utf-8")
    if mode == "exact":
        return "" if actual == want else _first_difference(actual, want)
    got_lines = _lines(actual.decode("utf-8", "replace"))
    want_lines = _lines(expected)
    abs_tol, rel_tol = float(spec.get("abs_tol", 0.0)), float(spec.get("rel_tol", 0.0))
    for number, (got, exp) in enumerate(zip(got_lines, want_lines, strict=False), 1):
        same = got == exp if mode == "whitespace" else _tokens_close(got, exp, abs_tol, rel_tol)
        if not same:
            return _line_message(number, exp, got)
    if len(got_lines) != len(want_lines):
        number = min(len(got_lines), len(want_lines)) + 1
        return _line_message(
            number,
            want_lines[number - 1] if number <= len(want_lines) else None,
            got_lines[number - 1] if number <= len(got_lines) else None,
        )
    return ""


def _lines(text: str) -> list:
    lines = [" ".join(line.split()) for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _tokens_close(got: str, expected: str, abs_tol: float, rel_tol: float) -> bool:
    got_tokens, want_tokens = got.split(), expected.split()
    if len(got_tokens) != len(want_tokens):
        return False
    for g, w in zip(got_tokens, want_tokens, strict=True):
        if g == w:
            continue
        if not (_NUMBER.fullmatch(g) and _NUMBER.fullmatch(w)):
            return False
        a, b = float(g), float(w)
        if not math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol):
            return False
    return True


def _first_difference(actual: bytes, expected: bytes) -> str:
    got_lines = actual.split(b"\n")
    want_lines = expected.split(b"\n")
    for number, (got, exp) in enumerate(zip(got_lines, want_lines, strict=False), 1):
        if got != exp:
            return _line_message(number, _text(exp), _text(got))
    number = min(len(got_lines), len(want_lines)) + 1
    # equal line by line up to the shorter: one has more lines (or only a final newline)
    want = _text(want_lines[number - 1]) if number <= len(want_lines) else None
    got = _text(got_lines[number - 1]) if number <= len(got_lines) else None
    return _line_message(number, want, got)


def _text(line: bytes) -> str:
    return line.decode("utf-8", "backslashreplace")


def _line_message(number: int, expected: "str | None", got: "str | None") -> str:
    def show(line: "str | None") -> str:
        if line is None:
            return "end of output"
        return repr(line if len(line) <= SHOWN else line[:SHOWN] + "...")

    return f"line {number}: expected {show(expected)}, got {show(got)}"
