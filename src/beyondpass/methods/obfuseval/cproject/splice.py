"""An answer's function put in place of the original definition in a C source file.

The definition is found with tree-sitter-c: the ``function_definition`` whose declarator
names the task's function (the first, where ``#if`` branches hold several). The answer is
parsed the same way, and its top-level parts are handled so that the file still means what
the project means, besides the one function:

- the definition of the task's function replaces the original, from the first token of
  its return type to its closing brace (comments before it stay);
- ``#include``s the file lacks go after the file's last top-level ``#include``;
- macros (``#define``) and helper functions the file does not define go just before the
  function; those it defines already are dropped (the project's own stay: redefining them
  would not build, or would change other functions);
- declarations, prototypes, ``typedef``s and anything else are dropped.

Each kept and dropped part is reported, so a verdict can say what the answer added. An
answer that defines no function of the task's name, or a file without it, is a
:class:`SpliceError` (the seed's "can't find code" and "function not found").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from beyondpass.extraction.blocks import choose
from beyondpass.extraction.program import fenced
from beyondpass.methods.obfuseval.cproject.grammar import declared_name, parse, walk


class SpliceError(ValueError):
    """The function is not in the answer, or not in the file."""


@dataclass(frozen=True)
class Definition:
    start: int  # byte offsets in the source
    end: int
    text: str


@dataclass
class Spliced:
    text: str
    added: dict[str, list[str]] = field(default_factory=dict)  # kind -> names added
    dropped: dict[str, list[str]] = field(default_factory=dict)  # kind -> names dropped


def _definitions(root: Any) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for node in walk(root):
        if node.type == "function_definition":
            name = declared_name(node)
            if name:
                found.setdefault(name, []).append(node)
    return found


def locate(source: str, name: str) -> Definition | None:
    """The definition of ``name`` in ``source`` (the first), or None."""
    tree, data = parse(source)
    found = _definitions(tree.root_node).get(name)
    if not found:
        return None
    node = found[0]
    return Definition(
        node.start_byte, node.end_byte, data[node.start_byte : node.end_byte].decode()
    )


def _macro_name(node: Any) -> str:
    named = node.child_by_field_name("name")
    return named.text.decode("utf-8", "replace") if named is not None else ""


def code_of(answer: str, name: str) -> str:
    """The C code of a model's answer: of the fenced blocks that define ``name``, the one
    every answer format takes (:func:`beyondpass.extraction.blocks.choose`: the last one the
    answer names its answer, else the first); else the first fenced block, else the whole
    answer (an answer may hold a header, a usage example or an alternative in blocks of
    their own)."""
    blocks = fenced(answer)
    defining = [b for b in blocks if name in _definitions(parse(b.text)[0].root_node)]
    if defining:
        return defining[choose([b.named for b in defining])].text
    return blocks[0].text if blocks else answer


def splice(source: str, name: str, answer: str) -> Spliced:
    """``source`` with the answer's ``name`` in place of its own (see the module's rules)."""
    tree, data = parse(source)
    ours = _definitions(tree.root_node)
    if name not in ours:
        raise SpliceError(f"the file defines no function {name}")
    target = ours[name][0]
    answer_tree, answer_data = parse(answer)
    theirs = _definitions(answer_tree.root_node)
    if name not in theirs:
        raise SpliceError(f"the answer defines no function {name}")
    defined_macros = {
        _macro_name(n)
        for n in walk(tree.root_node)
        if n.type in ("preproc_def", "preproc_function_def")
    }
    includes = {
        n.text.decode("utf-8", "replace").strip()
        for n in tree.root_node.children
        if n.type == "preproc_include"
    }
    result = Spliced("")
    new_includes: list[str] = []
    before: list[str] = []
    for node in answer_tree.root_node.children:
        text = answer_data[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if node.type == "preproc_include":
            line = text.strip()
            kind, kept = "include", line not in includes
            if kept:
                new_includes.append(line)
            label = line
        elif node.type in ("preproc_def", "preproc_function_def"):
            label = _macro_name(node)
            kind, kept = "macro", label not in defined_macros
            if kept:
                before.append(text.rstrip())
        elif node.type == "function_definition":
            label = declared_name(node) or "?"
            if label == name and node == theirs[name][0]:
                continue
            kind, kept = "function", label not in ours and label != name
            if kept:
                before.append(text.rstrip())
        elif node.type in ("comment", "ERROR") and not text.strip():
            continue
        else:
            kind, kept, label = node.type, False, " ".join(text.split())[:60]
            if node.type == "comment":
                continue
        (result.added if kept else result.dropped).setdefault(kind, []).append(label)
    definition = theirs[name][0]
    function = answer_data[definition.start_byte : definition.end_byte].decode("utf-8", "replace")
    replacement = "\n\n".join([*before, function]) if before else function
    out = data[: target.start_byte] + replacement.encode() + data[target.end_byte :]
    if new_includes:
        last = [n for n in tree.root_node.children if n.type == "preproc_include"]
        at = last[-1].end_byte if last else 0
        block = "\n".join(new_includes) + "\n"
        if at and out[at - 1 : at] != b"\n":
            block = "\n" + block
        out = out[:at] + block.encode() + out[at:]
    result.text = out.decode("utf-8", "replace")
    return result
