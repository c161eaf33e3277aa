"""Parse Java snippets with tree-sitter: whole files, class bodies, methods or bare statements.

Why tree-sitter (``tree-sitter`` + ``tree-sitter-java`` from PyPI): answers are fragments,
not compilation units, and a checker must still see their structure. tree-sitter's Java
grammar accepts top-level statements and methods, recovers from errors with ``ERROR`` /
``MISSING`` nodes (so we can say *where* a snippet breaks), needs no JVM, and parses a
snippet in well under a millisecond. A snippet counts as parsable only when some reading of
it has no error node at all.

Two readings exist because two checkers exist:

* :func:`parse_java` (beyondpass's reading): the snippet as written; else inside a class
  body; else inside a method body; each also with unbalanced braces repaired (a missing
  closing brace at the end, a stray one). Modern Java (``var``, records, switch
  expressions) is fine.
* :func:`parse_java_original` (the RobustAPI checker's reading, which used Eclipse JDT at
  Java 8 level): a snippet that declares a type must be a valid compilation unit as is;
  otherwise it is wrapped in ``class sample { void foo() { ... } }``, and if that fails in
  ``class sample { ... }``. Post-Java-8 syntax is an error.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from beyondpass.errors import BeyondpassError

_local = threading.local()

#: top-level nodes a compilation unit may hold
_CU_MEMBERS = frozenset(
    {
        "package_declaration",
        "import_declaration",
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "annotation_type_declaration",
        "record_declaration",
        "module_declaration",
        "line_comment",
        "block_comment",
        ";",
    }
)
_TYPE_DECLS = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "annotation_type_declaration",
        "record_declaration",
    }
)
#: syntax JDT rejects at Java 8 compliance (the original checker's setting)
_AFTER_JAVA8 = frozenset({"record_declaration", "switch_rule", "yield_statement", "permits"})

#: reserved words: tree-sitter's grammar is permissive enough to read ``try { }`` in a class
#: body as a compact constructor named ``try``; a reading that uses one as a name is wrong
JAVA_KEYWORDS = frozenset(
    [
        "abstract",
        "assert",
        "boolean",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "float",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "int",
        "interface",
        "long",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "static",
        "strictfp",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "void",
        "volatile",
        "while",
    ]
)

WRAP_CLASS = ("class __Snippet__ {\n", "\n}\n")
WRAP_METHOD = ("class __Snippet__ {\nvoid __snippet__() {\n", "\n}\n}\n")
ORIGINAL_METHOD = ("public class sample{\n public void foo(){\n", "\n}\n}")
ORIGINAL_CLASS = ("public class sample{\n", "\n}")


class JavaSupportMissing(BeyondpassError):
    """tree-sitter or its Java grammar is not installed."""


#: the modules of the ``java`` extra
JAVA_EXTRA_MODULES = ("tree_sitter", "tree_sitter_java", "lark")


def require_java_extra() -> None:
    """Fail in one line, naming the extra, when a module of the ``java`` extra is missing.

    Commands call this before any work, so a missing extra is reported up front instead of
    as a traceback from whichever import happens first.
    """
    import importlib

    for name in JAVA_EXTRA_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            raise JavaSupportMissing(
                f"Java checking needs the 'java' extra (tree-sitter, tree-sitter-java, lark; "
                f"{name} is missing) — pip install 'beyondpass[java]'"
            ) from None


def language() -> Any:
    """The tree-sitter Java language (imported lazily: it is an optional extra)."""
    return _language()


@functools.cache
def _language() -> Any:
    try:
        import tree_sitter
        import tree_sitter_java
    except ImportError as exc:
        raise JavaSupportMissing(
            "Java analysis needs tree-sitter and its Java grammar — pip install 'beyondpass[java]'"
        ) from exc
    return tree_sitter.Language(tree_sitter_java.language())


def _parser() -> Any:
    """One parser per thread: tree-sitter parsers are not safe to share between threads."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = tree_sitter.Parser(_language())
        _local.parser = parser
    return parser


def tool_versions() -> dict[str, str]:
    """Versions recorded with every result: the parser library and the Java grammar."""
    out = {}
    for dist in ("tree-sitter", "tree-sitter-java", "lark"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


@dataclass(frozen=True)
class ParsedJava:
    """One reading of a snippet.

    ``source`` is what was parsed (the snippet plus any wrapper); ``line_offset`` is how many
    lines the wrapper put in front, so ``node line - line_offset`` is the snippet's line.
    """

    source: bytes
    tree: Any  # tree_sitter.Tree
    reading: str  # as-is | class-body | method-body (+ "+braces")
    line_offset: int
    ok: bool
    error: str = ""  # "line L, column C: ..." of the first error, in snippet coordinates

    @property
    def root(self) -> Any:
        return self.tree.root_node

    def line_of(self, node: Any) -> int:
        """1-based line of ``node`` in the snippet as written."""
        return int(node.start_point[0]) + 1 - self.line_offset


def _parse(text: str) -> Any:
    return _parser().parse(text.encode("utf-8"))


def first_error(root: Any) -> Any | None:
    """The first ERROR or MISSING node in source order, if any."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node
        stack.extend(c for c in reversed(node.children) if c.has_error or c.is_missing)
    return root  # has_error without a visible node: report the whole snippet


def keyword_as_name(root: Any) -> Any | None:
    """The first identifier that is a reserved word (a misreading, see JAVA_KEYWORDS)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text.decode("utf-8", "replace") in JAVA_KEYWORDS:
            return node
        stack.extend(reversed(node.children))
    return None


def _describe(node: Any, line_offset: int) -> str:
    line = int(node.start_point[0]) + 1 - line_offset
    col = int(node.start_point[1]) + 1
    if node.is_missing:
        return f"line {max(line, 1)}, column {col}: missing {node.type}"
    text = node.text.decode("utf-8", "replace").strip().splitlines()
    near = text[0][:40] if text else ""
    return f"line {max(line, 1)}, column {col}: cannot parse {near!r}"


def _reading(text: str, wrap: tuple[str, str], name: str) -> ParsedJava:
    source = wrap[0] + text + wrap[1]
    tree = _parse(source)
    offset = wrap[0].count("\n")
    err = first_error(tree.root_node) or keyword_as_name(tree.root_node)
    return ParsedJava(
        source=source.encode("utf-8"),
        tree=tree,
        reading=name,
        line_offset=offset,
        ok=err is None,
        error="" if err is None else _describe(err, offset),
    )


def balance_braces(text: str) -> str:
    """Drop closing braces that close nothing and close the braces left open at the end.

    Braces inside string/char literals and comments do not count. Answers cut off by a
    length limit, or a class's closing brace pasted after a method, are the usual causes.
    """
    out: list[str] = []
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        two = text[i : i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j == -1 else j
            out.append(text[i:j])
            i = j
            continue
        if two == "/*":
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
            out.append(text[i:j])
            i = j
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                i += 1
                continue
            depth -= 1
        out.append(ch)
        i += 1
    return "".join(out) + "\n}" * depth


def parse_java(text: str) -> ParsedJava:
    """beyondpass's reading of a snippet: the first error-free one, else the as-is one."""
    first = _reading(text, ("", ""), "as-is")
    if first.ok:
        return first
    balanced = balance_braces(text)
    candidates = [(WRAP_CLASS, "class-body"), (WRAP_METHOD, "method-body")]
    for wrap, name in candidates:
        attempt = _reading(text, wrap, name)
        if attempt.ok:
            return attempt
    lines = [x for x in text.strip().split("\n") if x.strip()]
    if len(lines) == 1 and not text.rstrip().endswith((";", "{", "}")):
        # a lone expression ("players.get(i)"): read it as the statement it stands for
        attempt = _reading(text.rstrip() + ";", WRAP_METHOD, "method-body+;")
        if attempt.ok:
            return attempt
    if balanced != text:
        for wrap, name in [(("", ""), "as-is"), *candidates]:
            attempt = _reading(balanced, wrap, name + "+braces")
            if attempt.ok:
                return attempt
    return first


#: escapes a Java 8 string or char literal may hold (octal and unicode escapes aside)
_JAVA8_ESCAPES = frozenset(b"btnfr\"'\\01234567")


def _java8_violation(root: Any) -> Any | None:
    """The first node JDT (Java 8) reports a syntax problem for, though tree-sitter reads it.

    Besides post-Java-8 syntax: an ``import``/``package`` anywhere but at the top of the
    compilation unit (tree-sitter accepts one among statements), a ``package`` after
    another declaration, and an escape Java 8 does not define (``"\\.``, ``"\\s"``).
    """
    seen_other = False
    for child in root.children:
        if child.type == "package_declaration" and seen_other:
            return child
        if child.type not in ("line_comment", "block_comment"):
            seen_other = True
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _AFTER_JAVA8:
            return node
        if node.type == "instanceof_expression" and node.child_by_field_name("name"):
            return node
        if node.type == "string_literal" and node.text.startswith(b'"""'):
            return node
        if node.type in ("import_declaration", "package_declaration") and node.parent != root:
            return node
        if node.type == "escape_sequence" and (
            len(node.text) < 2 or node.text[1] not in _JAVA8_ESCAPES and node.text[1:2] != b"u"
        ):
            return node
        stack.extend(node.children)
    return None


def _original_reading(text: str, wrap: tuple[str, str], name: str) -> ParsedJava:
    reading = _reading(text, wrap, name)
    if not reading.ok:
        return reading
    late = _java8_violation(reading.root)
    if late is not None:
        line = int(late.start_point[0]) + 1 - reading.line_offset
        return ParsedJava(
            reading.source,
            reading.tree,
            name,
            reading.line_offset,
            False,
            f"line {line}: {late.type} is a syntax error for JDT at Java 8 level",
        )
    return reading


def parse_java_original(text: str) -> ParsedJava:
    """The RobustAPI checker's reading (Eclipse JDT, Java 8, two fixed wrappers)."""
    as_is = _reading(text, ("", ""), "as-is")
    if any(c.type in _TYPE_DECLS for c in as_is.root.children):
        if not all(c.type in _CU_MEMBERS for c in as_is.root.children):
            bad = next(c for c in as_is.root.children if c.type not in _CU_MEMBERS)
            return ParsedJava(
                as_is.source,
                as_is.tree,
                "as-is",
                0,
                False,
                f"line {int(bad.start_point[0]) + 1}: {bad.type} outside a type declaration",
            )
        return _original_reading(text, ("", ""), "as-is")
    method = _original_reading(text, ORIGINAL_METHOD, "method-body")
    if method.ok:
        return method
    return _original_reading(text, ORIGINAL_CLASS, "class-body")


_LIST_ITEM = re.compile(r"^(?:\d{1,2}[.)]|[-•])\s+[A-Za-z]")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_PLAIN_WORD = re.compile(r"^[A-Za-z][A-Za-z']*[,.:;!?]?$")
_NOT_PROSE = re.compile(r"[;{}=]|(?:[(,+]|&&|\|\|)\s*$")


def prose_line(line: str) -> bool:
    """A sentence or list item a model put among its code ("1. Implement the interface...",
    "Here, in the onCheckedChanged method, we call setChecked()."): at least three plain
    words separated by spaces, mostly letters, nothing that only code has (``; { } =``, a
    line continued by ``( , +``)."""
    s = line.strip()
    if not s or s.startswith(("//", "/*", "*", "@")) or _NOT_PROSE.search(s):
        return False
    words = _WORD.findall(s)
    if len(words) < 3 or words[0] in JAVA_KEYWORDS:
        return False
    if sum(bool(_PLAIN_WORD.match(t)) for t in s.split()) < 3:
        return False  # ``set.remove(obj)``: words, but not separated like a sentence's
    if _LIST_ITEM.match(s):
        return True
    letters = sum(len(w) for w in words)
    return letters >= 0.7 * len(s.replace(" ", ""))


@dataclass(frozen=True)
class RecoveredJava:
    """:func:`parse_java` after dropping prose lines the parser could not place."""

    parsed: ParsedJava
    dropped: tuple[tuple[int, str], ...] = ()  # (1-based line in the snippet, its text)


def parse_java_recovering(text: str) -> RecoveredJava:
    """Read a snippet; when no reading parses, drop the prose lines inside the error-tolerant
    parse's ``ERROR`` regions (or statements it had to complete with a ``MISSING`` token)
    and read again. Lines are blanked, not removed, so line numbers
    stay those of the snippet. Nothing is dropped unless the rest then parses cleanly."""
    parsed = parse_java(text)
    if parsed.ok:
        return RecoveredJava(parsed)
    lines = text.split("\n")
    suspect: set[int] = set()
    stack = [_parse(text).root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            # a MISSING ";" marks a sentence read as declarations: suspect its statement
            span = node.parent if node.is_missing and node.parent is not None else node
            suspect.update(range(int(span.start_point[0]), int(span.end_point[0]) + 1))
        elif node.has_error:
            stack.extend(node.children)
    drop = sorted(i for i in suspect if i < len(lines) and prose_line(lines[i]))
    if not drop:
        return RecoveredJava(parsed)
    kept = ["" if i in drop else line for i, line in enumerate(lines)]
    again = parse_java("\n".join(kept))
    if not again.ok:
        return RecoveredJava(parsed)
    return RecoveredJava(again, tuple((i + 1, lines[i].strip()) for i in drop))
