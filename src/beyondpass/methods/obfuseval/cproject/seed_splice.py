"""The seed's own text matcher (``gptStart_*.py``), the compat reading of a splice.

The answer's function is cut out of the model's text by ``find_c_function``: the first
line that names the function and ends like a definition's head (``{``, or ``)`` followed by
a ``{`` line, or a parameter list continued over two lines), then lines up to the brace
that closes the first one opened (braces in strings and comments count too). In the file,
``find_c_functionByDefine`` takes the last line, before the first non-matching line after
a match, that holds the name and starts in column 0, and cuts to the closing brace the same
way; the whole lines are replaced. Reimplemented here from its description (the seed's
code is in the published repository), with its quirks: a call of the function at column 0
before its definition, or a definition whose head is not at column 0, is found wrongly or
not at all.
"""

from __future__ import annotations

import re


def _head(name: str, line: str, after: str, after2: str) -> bool:
    if not re.search(r"\b" + re.escape(name) + r"\b", line):
        return False
    return (
        line.endswith(("{", "{\n"))
        or (line.endswith((")\n", ")", ") ")) and after.startswith(("{", "{\n")))
        or (line.endswith((", ", ",", ",\n", ", \n")) and after.endswith(("{", "{\n")))
        or (
            line.endswith((", ", ",", ",\n", ", \n"))
            and after.endswith((")", ")\n"))
            and after2.startswith(("{", "{\n"))
        )
    )


def _end(lines: list[str], start: int) -> int | None:
    depth = 0
    opened = False
    for i in range(start, len(lines)):
        for char in lines[i]:
            if char == "{":
                depth += 1
                opened = True
            elif char == "}" and opened and depth:
                depth -= 1
                if depth == 0:
                    return i
    return None


def function_in_answer(response: str, name: str) -> str:
    """``find_c_function``: the function's lines in the model's text ("" when not found)."""
    lines = response.split("\n")
    start = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        after = lines[i + 1].lstrip() if i + 1 < len(lines) else "Blank"
        after2 = lines[i + 2].lstrip() if i + 2 < len(lines) else "Blank"
        if _head(name, stripped, after, after2):
            start = i
            if stripped.split("(")[0] == name:
                start -= 1  # the return type on the line before
        elif start is not None:
            end = _end(lines, start)
            return "\n".join(lines[start : end + 1]) if end is not None else ""
    return ""


def span_in_file(lines: list[str], name: str) -> tuple[int, int] | None:
    """``find_c_functionByDefine``: (first, last) line of the definition, or None."""
    start = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if name in stripped and line == stripped:
            start = i
            if stripped.split("(")[0] == name:
                start -= 1
        elif start is not None:
            end = _end(lines, start)
            return (start, end) if end is not None else None
    return None


def splice(source: str, name: str, response: str) -> str | None:
    """The file with the seed's replacement, or None where the seed finds no code or no
    function (its ``can't find code from response`` and "function not found")."""
    code = function_in_answer(response, name)
    if not code:
        return None
    lines = source.splitlines(keepends=True)
    span = span_in_file(lines, name)
    if span is None:
        return None
    first, last = span
    return "".join(lines[:first]) + code + "\n" + "".join(lines[last + 1 :])
