"""Semantic obfuscation: a library of behaviour-preserving rewrites of the reference.

Each rewrite is a small libcst transformer with a stated precondition, checked on the syntax
tree; it rewrites only where that holds. A precondition can only speak about syntax (Python
has no static types), so every variant is also executed against the original on the tests'
inputs (transform.py, agreement.py) — the rewrites aim never to need that check, the check
makes sure. docs/obfuseval.md lists each rewrite, its precondition and why it is exact.

One module per family: ``loops`` (for <-> while, loop <-> comprehension), ``conditionals``
(if/else inversion), ``returns`` (early return <-> result variable), ``operands`` (operand
swaps), and the library calls written by hand or folded back: ``anyall`` (any/all),
``minmax`` (two-argument min/max), ``sums`` (sum/len of exact integers), ``counters``
(enumerate). ``common`` holds the shared syntax helpers.
This module is the registry: :data:`LIBRARY`, :data:`INVERSES`, :func:`rewrite_semantics`.
"""

from __future__ import annotations

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context, Rewrite, run_rewrites
from beyondpass.methods.obfuseval.semantic.anyall import BuiltinToLoop, LoopToBuiltin
from beyondpass.methods.obfuseval.semantic.conditionals import InvertIf
from beyondpass.methods.obfuseval.semantic.counters import EnumerateToCounter
from beyondpass.methods.obfuseval.semantic.loops import (
    ComprehensionToLoop,
    ForToWhile,
    LoopToComprehension,
    WhileToFor,
)
from beyondpass.methods.obfuseval.semantic.minmax import ConditionalToMinMax, MinMaxToConditional
from beyondpass.methods.obfuseval.semantic.operands import SwapOperands
from beyondpass.methods.obfuseval.semantic.returns import (
    EarlyReturnToVariable,
    ReturnViaVariable,
    VariableToEarlyReturn,
)
from beyondpass.methods.obfuseval.semantic.sums import LenToLoop, LoopToSum, SumToLoop

__all__ = [
    "INVERSES",
    "LIBRARY",
    "BuiltinToLoop",
    "ComprehensionToLoop",
    "ConditionalToMinMax",
    "EarlyReturnToVariable",
    "EnumerateToCounter",
    "ForToWhile",
    "InvertIf",
    "LenToLoop",
    "LoopToBuiltin",
    "LoopToComprehension",
    "LoopToSum",
    "MinMaxToConditional",
    "ReturnViaVariable",
    "SumToLoop",
    "SwapOperands",
    "VariableToEarlyReturn",
    "WhileToFor",
    "rewrite_semantics",
]

LIBRARY: list[type[Rewrite]] = [
    ForToWhile,
    WhileToFor,
    ComprehensionToLoop,
    LoopToComprehension,
    InvertIf,
    EarlyReturnToVariable,
    VariableToEarlyReturn,
    SwapOperands,
    BuiltinToLoop,
    LoopToBuiltin,
    MinMaxToConditional,
    ConditionalToMinMax,
    SumToLoop,
    LenToLoop,
    LoopToSum,
    EnumerateToCounter,
]
#: a rewrite and its inverse never run in the same variant (one would undo the other)
INVERSES = [
    ("comprehension_to_loop", "loop_to_comprehension"),
    ("builtin_to_loop", "loop_to_builtin"),
    ("for_to_while", "while_to_for"),
    ("early_return_to_variable", "variable_to_early_return"),
    ("minmax_to_conditional", "conditional_to_minmax"),
    ("sum_to_loop", "loop_to_sum"),
    ("len_to_loop", "loop_to_sum"),
]


def rewrite_semantics(module: cst.Module, ctx: Context) -> tuple[cst.Module, dict[str, int]]:
    """The module with a seeded selection of the library applied; ``{rewrite: sites}``."""
    new, applied, _ = run_rewrites(module, LIBRARY, ctx, INVERSES)
    if not applied:
        new, applied, _ = run_rewrites(module, [ReturnViaVariable], ctx)
    return new, applied
