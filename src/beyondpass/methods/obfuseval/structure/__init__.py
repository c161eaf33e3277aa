"""Structure obfuscation: the reference's call structure changed, its behaviour kept.

Three transforms on the module of the reference solution (libcst edits, ``ast`` for the
name analysis), each with a precondition checked on the tree:

- **inline_helper**: a call of a module-level helper in the target (the entry point),
  standing alone as ``x = h(a)``, ``return h(a)`` or ``h(a)``, is replaced by the helper's
  body with fresh local names (the seed's "inline callees into the target");
- **extract_helper**: a run of the target's statements at any depth (or a return value or
  an if/while test) becomes a new module-level function, inputs passed, outputs returned;
- **reorder_definitions**: a run of adjacent module-level functions is permuted.

docs/obfuseval.md states each precondition and why it keeps behaviour; every variant is
still executed against the original on the tests' inputs (transform.py). One module per
transform (inline.py, extract.py, reorder.py); common.py holds the shared name analysis.
"""

from __future__ import annotations

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context
from beyondpass.methods.obfuseval.structure.common import (
    NOT_APPLICABLE,
    StructureResult,
    _entry_index,
)
from beyondpass.methods.obfuseval.structure.extract import extract_helper
from beyondpass.methods.obfuseval.structure.inline import inline_helpers
from beyondpass.methods.obfuseval.structure.reorder import reorder_definitions

__all__ = [
    "NOT_APPLICABLE",
    "StructureResult",
    "extract_helper",
    "inline_helpers",
    "reorder_definitions",
    "restructure",
]


def restructure(
    module: cst.Module, entry: str, ctx: Context, keep: set[str], prompt_ends: bool
) -> StructureResult:
    """Inline, extract and reorder where each applies; ``prompt_ends``: the prompt ends in
    the target's signature (completion), so only functions before the target are reordered
    and extracted helpers go after it."""
    result = StructureResult(module)
    steps = [
        ("inline_helper", lambda m: inline_helpers(m, entry, ctx, keep)),
        (
            "reorder_definitions",
            lambda m: reorder_definitions(m, ctx, _entry_index(m, entry) if prompt_ends else None),
        ),
        ("extract_helper", lambda m: extract_helper(m, entry, ctx)),
    ]
    for name, step in steps:
        new, what = step(result.module)
        if new is result.module:
            result.skipped[name] = f"{NOT_APPLICABLE}: {what}"
        else:
            result.module, result.applied[name] = new, what
    return result
