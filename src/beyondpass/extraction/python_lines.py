"""Which lines of an answer read as Python statements and which as prose.

Finding unfenced code (rule 3 of :mod:`beyondpass.extraction.python_code`) needs to tell a
code line from a sentence that happens to start like one ("for each item ...", "Note: ...",
"return the sum of the list."); these are the tests it uses, by text alone.
"""

from __future__ import annotations

import keyword
import re

#: a line that starts code for certain: a definition, an import or a decorator
START = re.compile(
    r"""^[ \t]*(?:
        (?:async[ \t]+)?def[ \t]+\w+[ \t]*\(
      | class[ \t]+\w+[ \t]*[(:]
      | import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*
        [ \t]*(?:\#.*)?$
      | from[ \t]+[\w.]+[ \t]+import[ \t]+[\w(*]
      | @[\w.]+(?:\(.*)?[ \t]*$
    )""",
    re.X,
)
_KEYWORD_STATEMENT = re.compile(
    r"""^(?:
        (?:return|yield|raise|assert|del|global|nonlocal|pass|break|continue|await)\b
      | (?:if|elif|while|for|with|try|except|finally|else|match|case|async)\b.*:[ \t]*(?:\#.*)?$
      | print[ \t]*\(
      | print[ \t]+\S
    )""",
    re.X,
)
_EXPRESSION_STATEMENT = re.compile(
    r"""^(?:
        [A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*
        [ \t]*(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)
      | [A-Za-z_][\w.]*\(
    )""",
    re.X,
)
_STATEMENT_WORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"print", "exec"}
_MARKDOWN = re.compile(r"^(?:[-*+][ \t]+\S|\d+[.)][ \t]+\S|>|\||\*\*|`|\$[ \t]|<[A-Za-z/!])")
_SENTENCE = re.compile(r"^\w+(?:[ \t]+[\w'’,;`-]+){2,}\.$")


def prose_like(line: str) -> bool:
    """Whether a line reads as prose or Markdown rather than Python."""
    s = line.strip()
    if not s:
        return False
    if not s[0].isascii() or s.startswith(">>>") or _MARKDOWN.match(s):
        return True
    m = re.match(r"[A-Za-z_]\w*", s)
    if m is None:
        return False
    word, rest = m.group(), s[m.end() :]
    if word in _STATEMENT_WORDS:
        # "return the sum of the list." / "print the result" / "for example:" read as prose
        if word == "print" and re.match(r"[ \t]+[A-Za-z]\w*[ \t]+[A-Za-z]", rest):
            return True
        if word == "for" and rest.endswith(":") and " in " not in rest:
            return True
        return _SENTENCE.match(s) is not None and not s.endswith("..")
    if re.match(r"(?:['’][A-Za-z]+)?[ \t]+[A-Za-z`'\"’]", rest):
        return True  # two words in a row: "This function", "Here's the", "Note that"
    if rest in (":", "!", ".", "?") or re.match(r"[!?][ \t]", rest):
        return word[0].isupper() or rest != ":"  # "Explanation:", "Sure!", "Done."
    if re.match(r":[ \t]+\S", rest) and "=" not in s:
        return word[0].isupper() or len(rest.split()) >= 3  # "Note: ..." but not "x: int"
    return bool(re.match(r",[ \t]+[A-Za-z]", rest)) and "=" not in s and "(" not in s


def statement_like(line: str, strict: bool = False) -> bool:
    """Whether a line reads as a Python statement; ``strict`` ignores assignments and calls."""
    s = line.strip()
    if not s or prose_like(line):
        return False
    if START.match(s) or _KEYWORD_STATEMENT.match(s):
        return True
    return not strict and _EXPRESSION_STATEMENT.match(s) is not None


def looks_like_code(text: str, strict: bool = False) -> bool:
    """For code that does not compile: does any line read as a Python statement?"""
    return any(statement_like(line, strict) for line in text.split("\n"))
