"""NoFunEval's fallback reader: the largest span of an answer that tree-sitter parses.

Used only in compat mode, for answers that did not follow the template. The search is the
authors': the first line that parses on its own starts the span; the span grows to the
longest run of lines from there that parses; then the words of the line before and the line
after are tried as extensions (whole line, without its last word, without its first word,
narrowing from both ends). Languages without a grammar installed here return ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

#: lower-cased ``pl`` -> module of the tree-sitter grammar (the ``java`` extra ships Java)
GRAMMARS = {
    "java": "tree_sitter_java",
    "python": "tree_sitter_python",
    "c": "tree_sitter_c",
    "c++": "tree_sitter_cpp",
    "javascript": "tree_sitter_javascript",
    "kotlin": "tree_sitter_kotlin",
    "scala": "tree_sitter_scala",
    "objectivec": "tree_sitter_objc",
}


@cache
def parser_for(language: str) -> Callable[[str], bool] | None:
    """``parses(code)``: tree-sitter finds no error in ``code + "\\n"``; None if no grammar."""
    import importlib

    name = GRAMMARS.get(language.lower())
    if name is None:
        return None
    try:
        grammar = importlib.import_module(name)
        from tree_sitter import Language, Parser
    except ImportError:
        return None
    parser = Parser(Language(grammar.language()))

    def parses(code: str) -> bool:
        return not parser.parse((code + "\n").encode("utf-8")).root_node.has_error

    return parses


def _widen(parses: Callable[[str], bool], code: str, words: list[str], before: bool) -> str | None:
    top, bottom = 0, len(words)
    while top < bottom:
        for cand in (words[top:bottom], words[top : bottom - 1], words[top + 1 : bottom]):
            piece = " ".join(cand)
            if parses(piece + "\n" + code if before else code + "\n" + piece):
                return piece
        top, bottom = top + 1, bottom - 1
    return None


def _single_word(text: str) -> bool:
    words = text.strip().split(" ")
    return len(words) == 1 and words[0].isalnum()


def largest_parsable(text: str, language: str) -> str | None:
    parses = parser_for(language)
    if parses is None:
        return None
    lines = text.splitlines()
    if not lines:
        return text
    start = next((i for i, line in enumerate(lines) if parses(line)), 0)
    lines[start] = lines[start].strip()
    last = len(lines)
    code = ""
    while last > start:
        code = "".join(line + "\n" for line in lines[start:last])
        last -= 1
        if parses(code):
            break
    head = ""
    if start != 0:
        head = _widen(parses, code, lines[start - 1].strip("`").split(" "), True) or ""
    if parses(head + "\n" + code) and not _single_word(head):
        code = head + "\n" + code
    tail = ""
    if last != len(lines) - 1:
        tail = _widen(parses, code, lines[last + 1].strip("`").split(" "), False) or ""
    if _single_word(tail):
        return code.strip()
    if parses(code + "\n" + tail):
        code += "\n" + tail
    return code.strip()
