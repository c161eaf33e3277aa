"""Comparing a program's stdout with an I/O test's expected output, in the judge.

The program never compares: it only writes bytes, which the judge reads back from the
candidate sandbox after the program has ended and compares here. Four modes
(``OutputComparison`` in ``benchmarks/task.py``, docs/verdicts.md): ``exact`` (bytes),
``whitespace`` (lines with blank runs collapsed and ends stripped, trailing blank lines
ignored), ``numeric`` (as ``whitespace``, then numbers token by token within a
tolerance) and ``pie_lines`` (the line rule of the PIE harness that NoFunEval scores
runtime edits with: :func:`_pie_lines`). A mismatch is described by its first differing
line.

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
    if mode == "pie_lines":
        return _pie_lines(actual, expected, float(spec.get("abs_tol", 0.0)))
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


def _pie_lines(actual: bytes, expected: str, abs_tol: float) -> str:
    """PIE's ``get_accuracy`` (pie-perf ``src/codenet_eval/sandbox.py``), correct only at
    accuracy 1: both outputs ``.strip().splitlines()``; lines paired with ``zip`` (output
    lines past the expected ones never count, missing ones do); a pair is right when the
    two strings are equal, or both parse with ``float()`` and ``abs(a - b) < abs_tol``.
    Output that is not UTF-8 fails, as their strict ``decode`` raises there; so does an
    empty expected output, on which their division by the expected line count raises."""
    try:
        got_lines = actual.decode("utf-8").strip().splitlines()
    except UnicodeDecodeError as exc:
        return f"output is not UTF-8 (byte {exc.start})"
    want_lines = expected.strip().splitlines()
    if not want_lines:
        return "the expected output has no lines (PIE's accuracy is undefined)"
    for number, exp in enumerate(want_lines, 1):
        if number > len(got_lines):
            return _line_message(number, exp, None)
        got = got_lines[number - 1]
        if got != exp and not _pie_close(got, exp, abs_tol):
            return _line_message(number, exp, got)
    return ""


def _pie_close(got: str, expected: str, abs_tol: float) -> bool:
    try:
        return abs(float(got) - float(expected)) < abs_tol
    except ValueError:  # float() of a str raises nothing else
        return False


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
