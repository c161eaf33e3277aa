"""The functions of a C project's source files that could be tasks: their text, header,
lines and the comment that describes them (what the seed's prompts are built from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from beyondpass.methods.obfuseval.cproject.grammar import declared_name, parse, walk


@dataclass(frozen=True)
class CFunction:
    path: str  # relative to the project root
    name: str
    first_line: int  # 1-based, of the definition
    last_line: int
    header: str  # the definition up to its body
    text: str  # the whole definition
    comment: str  # the comment right above it ("" when none)

    @property
    def task_id(self) -> str:
        return f"{self.path}::{self.name}"


def functions(root: Path, rel: str) -> list[CFunction]:
    """Every function defined in ``root/rel``, in source order (the first of a name)."""
    source = (root / rel).read_text(encoding="utf-8", errors="replace")
    tree, data = parse(source)
    found: dict[str, CFunction] = {}
    for node in walk(tree.root_node):
        if node.type != "function_definition":
            continue
        name = declared_name(node)
        body = node.child_by_field_name("body")
        if not name or body is None or name in found:
            continue
        before = node.prev_named_sibling
        comment = ""
        if (
            before is not None
            and before.type == "comment"
            and before.end_point[0] >= node.start_point[0] - 1
        ):
            comment = data[before.start_byte : before.end_byte].decode("utf-8", "replace")
        found[name] = CFunction(
            rel,
            name,
            node.start_point[0] + 1,
            node.end_point[0] + 1,
            data[node.start_byte : body.start_byte].decode("utf-8", "replace").strip(),
            data[node.start_byte : node.end_byte].decode("utf-8", "replace"),
            comment,
        )
    return list(found.values())
