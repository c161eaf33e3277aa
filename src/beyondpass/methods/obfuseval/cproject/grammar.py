"""C parsed with tree-sitter-c (the grammar pinned in the ``obfuseval`` extra)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from beyondpass.errors import ConfigError


@lru_cache(maxsize=1)
def parser() -> Any:
    try:
        import tree_sitter_c
        from tree_sitter import Language, Parser
    except ImportError:
        raise ConfigError(
            "C project mode needs tree-sitter-c — pip install 'beyondpass[obfuseval]'"
        ) from None
    return Parser(Language(tree_sitter_c.language()))


def parse(text: str) -> tuple[Any, bytes]:
    """The syntax tree of ``text`` and the bytes its offsets index."""
    data = text.encode("utf-8")
    return parser().parse(data), data


def declared_name(definition: Any) -> str | None:
    """The name a ``function_definition`` defines (through pointer and parenthesised
    declarators: ``static char *git__name(void)``)."""
    node = definition.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    if node is None:
        return None
    inner = node.child_by_field_name("declarator")
    while inner is not None and inner.type not in ("identifier", "field_identifier"):
        inner = inner.child_by_field_name("declarator")
    return inner.text.decode("utf-8", "replace") if inner is not None else None


def walk(node: Any):
    """Every node under ``node``, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
