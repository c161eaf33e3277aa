"""Lines of code and exception-handling statements of one Python program (RobuNFR, 3.2).

The seed reports its NFR metrics "per 10 LOC" without saying what a line of code is, and
counts "exception-handling statements" such as try/except. Both are defined here once,
precisely, so that densities are comparable across runs and tools (docs/nfr-metrics.md):

LOC
    The number of physical lines holding code: a line counts when any token on it (or
    spanning it) is not a comment, a line break, indentation, or part of a *documentation
    string* — a statement that is a string literal alone (docstrings of modules, classes
    and functions, and bare strings used as comments). A multi-line token (a triple-quoted
    string in an expression) makes every line it spans a line of code. Blank lines,
    comment-only lines and docstring lines therefore never count, so asking a model for
    comments or docstrings (readability prompts) does not dilute its densities.

    pylint's own raw-metrics "code" count is not used because it classifies a line by its
    first token: continuation lines that start with a string (``"a" "b"`` split over lines,
    ``"".join(`` wrapped arguments) would count as docstring lines, which undercounts exactly
    the code that readability prompts produce when they split long lines.

exception handling
    One per ``except`` clause (of ``try`` and ``try*``), one per ``finally`` clause and one
    per ``raise`` statement: handling, cleanup and signalling of errors. ``try`` itself adds
    nothing (every ``try`` has an ``except`` or ``finally``); ``assert`` (removed under
    ``-O``), ``with`` and ``contextlib.suppress`` are not counted.

Both only read text (``tokenize``, ``ast.parse``); nothing is executed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

# Tokens that never make a line a line of code.
_LAYOUT = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
        tokenize.ENCODING,
    }
)

LOC_DEFINITION = (
    "physical lines holding a token that is not a comment, line break, indentation or part of "
    "a string-literal-only statement (docstring); multi-line tokens count on every line"
)
EXCEPTION_DEFINITION = "except clauses (try and try*) + finally clauses + raise statements"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_Pos = tuple[int, int]  # (line, column in characters), as tokenize reports positions


@dataclass(frozen=True)
class CodeCounts:
    loc: int
    exception_handling: int


def count_code(source: str) -> CodeCounts:
    """LOC and exception-handling statements of ``source``.

    Raises ``SyntaxError`` (or ``ValueError`` for NUL bytes) when ``source`` does not parse:
    such text is not a program and has no metrics.
    """
    tree = ast.parse(source)
    return CodeCounts(count_loc(source, tree), count_exception_handling(tree))


def count_loc(source: str, tree: ast.Module | None = None) -> int:
    """Physical lines of code of ``source`` as defined in the module docstring."""
    tree = tree if tree is not None else ast.parse(source)
    lines = _LINE_BREAK.split(source)  # as the parser counts lines (not str.splitlines)
    docs = _documentation_spans(tree, lines)
    code_lines: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in _LAYOUT or _inside(tok.start, tok.end, docs):
                continue
            code_lines.update(range(tok.start[0], tok.end[0] + 1))
    except tokenize.TokenError as exc:  # parsed by ast but not tokenizable: not a program
        raise SyntaxError(f"cannot tokenize: {exc.args[0]}") from exc
    return len(code_lines)


def count_exception_handling(tree: ast.AST) -> int:
    """``except`` clauses + ``finally`` clauses + ``raise`` statements anywhere in ``tree``."""
    return sum(
        isinstance(node, ast.ExceptHandler | ast.Raise)
        or (isinstance(node, ast.Try | ast.TryStar) and bool(node.finalbody))
        for node in ast.walk(tree)
    )


def _documentation_spans(tree: ast.Module, lines: list[str]) -> list[tuple[_Pos, _Pos]]:
    """Start and end of every statement that is a string literal alone."""
    spans = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.end_lineno is not None
            and node.end_col_offset is not None
        ):
            start = (node.lineno, _char_col(lines, node.lineno, node.col_offset))
            end = (node.end_lineno, _char_col(lines, node.end_lineno, node.end_col_offset))
            spans.append((start, end))
    return spans


def _char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast columns count UTF-8 bytes, tokenize columns count characters."""
    if lineno - 1 >= len(lines):
        return byte_col
    return len(lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _inside(start: _Pos, end: _Pos, spans: list[tuple[_Pos, _Pos]]) -> bool:
    return any(lo <= start and end <= hi for lo, hi in spans)
