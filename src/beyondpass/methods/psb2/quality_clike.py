"""Technical quality of a C++ or Java answer: LLOC, NOS, McCabe, nesting level (NLE).

lizard (a maintained multi-language analyser) gives what it knows: ``lloc`` is its file
NLOC (physical lines holding code, blank and comment-only lines excluded) and ``mccabe`` the
sum over functions of its CCN (1 + one per ``if``, ``for``, ``while``, ``catch``, ``case``,
``&&``, ``||``, ``?``). lizard has no statement count and no nesting level, so those two
walk the tree-sitter syntax tree of the answer (docs/psb2.md defines both exactly):

- ``nos``: statements of the grammar inside code, a block ``{...}`` itself, an empty
  statement and a case label not counted; a declaration counts where it is a statement (a
  local variable), not at file/class scope nor as a ``for`` initialiser.
- ``nesting`` (NLE): the deepest nesting of ``if``/loops/``switch``/``try``; a function,
  method or lambda body starts again at 0; an ``if`` that is the whole ``else`` branch of
  an ``if`` (``else if``) stays on its ``if``'s level.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from beyondpass.errors import ConfigError


@dataclass(frozen=True)
class Grammar:
    """What differs between C++ and Java in the two tree walks."""

    module: str  # the tree-sitter grammar package
    suffix: str  # the file name lizard sees (it picks its reader by extension)
    statements: frozenset[str]  # node types that are statements where a statement may stand
    lists: frozenset[str]  # node types whose children stand where statements stand
    blocks: frozenset[str]  # node types that open a nesting level
    scopes: frozenset[str]  # node types whose body starts again at level 0


_CONTROL = ("if_statement", "for_statement", "while_statement", "do_statement", "try_statement")
_JUMPS = ("return_statement", "break_statement", "continue_statement", "throw_statement")

GRAMMARS = {
    "cpp": Grammar(
        module="tree_sitter_cpp",
        suffix=".cpp",
        statements=frozenset(
            (
                *_CONTROL,
                *_JUMPS,
                "expression_statement",
                "declaration",
                "for_range_loop",
                "switch_statement",
                "goto_statement",
                "co_return_statement",
                "co_yield_statement",
                "static_assert_declaration",
                "seh_try_statement",
            )
        ),
        lists=frozenset(
            ("compound_statement", "case_statement", "labeled_statement", "else_clause")
        ),
        blocks=frozenset((*_CONTROL, "for_range_loop", "switch_statement", "seh_try_statement")),
        scopes=frozenset(("function_definition", "lambda_expression")),
    ),
    "java": Grammar(
        module="tree_sitter_java",
        suffix=".java",
        statements=frozenset(
            (
                *_CONTROL,
                *_JUMPS,
                "expression_statement",
                "local_variable_declaration",
                "enhanced_for_statement",
                "switch_expression",  # as a statement; as an expression its parent is no list
                "try_with_resources_statement",
                "synchronized_statement",
                "yield_statement",
                "assert_statement",
                "explicit_constructor_invocation",
                "class_declaration",  # a local class
            )
        ),
        lists=frozenset(
            (
                "block",
                "constructor_body",
                "switch_block_statement_group",
                "switch_rule",
                "labeled_statement",
            )
        ),
        blocks=frozenset(
            (
                *_CONTROL,
                "enhanced_for_statement",
                "switch_expression",
                "try_with_resources_statement",
            )
        ),
        scopes=frozenset(
            ("method_declaration", "constructor_declaration", "lambda_expression", "class_body")
        ),
    ),
}
#: a statement standing in one of these fields of its parent is a statement too (``if (a)
#: x();``: ``x();`` is the if's consequence, not in a block)
_BODY_FIELDS = ("consequence", "alternative", "body")


@cache
def _parser(language: str) -> Any:
    import importlib

    grammar = GRAMMARS[language]
    try:
        from tree_sitter import Language, Parser

        module = importlib.import_module(grammar.module)
    except ImportError as exc:
        raise ConfigError(
            f"{language} quality metrics need tree-sitter and {grammar.module} "
            f"({exc.name} is missing) — pip install 'beyondpass[psb2]'"
        ) from None
    return Parser(Language(module.language()))


def parse(code: str, language: str) -> Any:
    """The tree-sitter root of ``code``; ``SyntaxError`` when the grammar finds an error
    (metrics of a half-parsed file would be numbers about something else)."""
    root = _parser(language).parse(code.encode("utf-8")).root_node
    if root.has_error:
        raise SyntaxError(f"{language} code does not parse")
    return root


def _in_statement_position(node: Any, grammar: Grammar) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type in grammar.lists:
        return True
    return any(parent.child_by_field_name(f) == node for f in _BODY_FIELDS)


def statement_count(root: Any, language: str) -> int:
    """``nos`` (module docstring)."""
    grammar = GRAMMARS[language]
    total, stack = 0, [root]
    while stack:
        node = stack.pop()
        if (
            node.type in grammar.statements
            # ``;`` alone: an empty statement
            and not (node.type == "expression_statement" and node.named_child_count == 0)
            and _in_statement_position(node, grammar)
        ):
            total += 1
        stack.extend(node.named_children)
    return total


def _is_else_if(node: Any) -> bool:
    """``node`` is an ``if`` that is the whole else branch of an ``if``."""
    if node.type != "if_statement" or node.parent is None:
        return False
    parent = node.parent
    if parent.type == "else_clause":  # C++: if -> else_clause -> if
        return parent.named_child_count == 1 and parent.parent is not None
    return parent.type == "if_statement" and parent.child_by_field_name("alternative") == node


def nesting_level(root: Any, language: str) -> int:
    """``nesting`` (NLE; module docstring)."""
    grammar = GRAMMARS[language]
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, level = stack.pop()
        if node.type in grammar.scopes:
            level = 0
        elif node.type in grammar.blocks and not _is_else_if(node):
            level += 1
            deepest = max(deepest, level)
        stack.extend((child, level) for child in node.named_children)
    return deepest


def lizard_facts(code: str, language: str) -> tuple[int, int]:
    """(file NLOC, sum of the functions' CCN) by lizard."""
    try:
        from lizard import analyze_file
    except ImportError:
        raise ConfigError(
            f"{language} quality metrics need lizard — pip install 'beyondpass[psb2]'"
        ) from None
    info = analyze_file.analyze_source_code("answer" + GRAMMARS[language].suffix, code)
    return info.nloc, sum(f.cyclomatic_complexity for f in info.function_list)


def clike_quality(code: str, language: str) -> dict[str, int]:
    """The four metrics of a ``cpp`` or ``java`` answer; ``SyntaxError`` if it does not
    parse."""
    root = parse(code, language)
    lloc, mccabe = lizard_facts(code, language)
    return {
        "lloc": lloc,
        "nos": statement_count(root, language),
        "mccabe": mccabe,
        "nesting": nesting_level(root, language),
    }


def tool_versions() -> dict[str, str]:
    """Versions of the tools behind the numbers (for the run's metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("lizard", "tree-sitter", "tree-sitter-cpp", "tree-sitter-java"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "missing"
    return out
