"""An obfuscated answer's names mapped back to the project's with the setting's dictionary.

The seed replaces every obfuscated name in the model's whole text with ``re.sub`` on word
boundaries, dictionary column by column (macros, functions, global variables, structs) and
row by row (``replace_confuse_to_original``): :func:`map_back_compat`, which reproduces the
published ``v1Response`` from ``v1confused_response``. That also rewrites string literals
and comments, and a name that is a prefix-free part of another replacement can be rewritten
twice. :func:`map_back` (the default) renames only identifiers and type names that
tree-sitter-c finds in code, each once, so strings and comments keep the model's text (a
macro's body, which the grammar leaves unparsed, has its words renamed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from beyondpass.methods.obfuseval.cproject.grammar import parse, walk

#: the dictionary's columns in the order the seed applies them
COLUMNS = ("Used_Macros", "FuncName", "Used_Global_Vars", "Used_Structs")
_RENAMED = ("identifier", "type_identifier", "field_identifier")


@dataclass(frozen=True)
class Dictionary:
    """The setting's obfuscation dictionary: (column, original, obfuscated) in the seed's
    order of application."""

    pairs: tuple[tuple[str, str, str], ...]

    @property
    def back(self) -> dict[str, str]:
        """obfuscated -> original (the first pair of a name wins)."""
        found: dict[str, str] = {}
        for _, original, obfuscated in self.pairs:
            if original.strip() != obfuscated.strip():
                found.setdefault(obfuscated.strip(), original.strip())
        return found

    def __len__(self) -> int:
        return len(self.pairs)


def map_back_compat(text: str, dictionary: Dictionary) -> str:
    """The seed's mapping: every pair in order, ``\\b``-bounded, over the whole text."""
    for _, original, obfuscated in dictionary.pairs:
        text = re.sub(r"\b" + re.escape(obfuscated) + r"\b", original, text)
    return text


def map_back(code: str, dictionary: Dictionary) -> str:
    """Rename the identifiers of ``code`` that the dictionary lists, once each; strings,
    comments and other tokens are left as written."""
    back = dictionary.back
    if not back:
        return code
    tree, data = parse(code)
    edits = []
    for node in walk(tree.root_node):
        text = node.text.decode("utf-8", "replace")
        if node.type in _RENAMED and text in back:
            edits.append((node.start_byte, node.end_byte, back[text]))
        elif node.type == "preproc_arg":  # a macro's body is not parsed: its words are
            renamed = re.sub(r"\b\w+\b", lambda m: back.get(m.group(0), m.group(0)), text)
            edits.append((node.start_byte, node.end_byte, renamed))
    out = bytearray(data)
    for start, end, name in sorted(edits, reverse=True):
        out[start:end] = name.encode("utf-8")
    return out.decode("utf-8")
