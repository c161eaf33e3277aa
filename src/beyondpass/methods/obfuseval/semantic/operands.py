"""Operand swaps of operators whose operands commute (or mirror, for comparisons)."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    expr,
    paren,
)

_PURE = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
_MIRROR = {
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
    cst.LessThan: cst.GreaterThan,
    cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThanEqual,
}


def _pure(node: cst.BaseExpression) -> bool:
    """Evaluating it runs no user code that could have effects: a name, a literal, or a
    subscript of those."""
    if isinstance(node, _PURE):
        return True
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return isinstance(index, cst.Index) and _pure(node.value) and _pure(index.value)
    return False


class SwapOperands(Rewrite):
    name = "swap_operands"
    needs = (
        ast.Compare,
        ast.BinOp,
    )
    precondition = (
        "a single comparison ==, !=, <, >, <=, >= between names, literals or subscripts of"
        " them (mirrored: a < b -> b > a); + or * with a numeric literal operand"
    )

    def leave_Comparison(
        self, original: cst.Comparison, updated: cst.Comparison
    ) -> cst.BaseExpression:
        if len(original.comparisons) != 1:
            return updated
        op = original.comparisons[0].operator
        if type(op) not in _MIRROR or not (
            _pure(original.left) and _pure(original.comparisons[0].comparator)
        ):
            return updated
        if not self.take():
            return updated
        right = updated.comparisons[0]
        mirrored = _MIRROR[type(op)](
            whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after
        )
        return updated.with_changes(
            left=right.comparator,
            comparisons=[right.with_changes(operator=mirrored, comparator=updated.left)],
        )

    def leave_BinaryOperation(
        self, original: cst.BinaryOperation, updated: cst.BinaryOperation
    ) -> cst.BaseExpression:
        if not isinstance(original.operator, cst.Add | cst.Multiply):
            return updated
        numbers = (cst.Integer, cst.Float, cst.Imaginary)
        if not (isinstance(original.left, numbers) or isinstance(original.right, numbers)):
            return updated
        if not self.take():
            return updated
        op = "+" if isinstance(updated.operator, cst.Add) else "*"
        new = expr(f"{paren(updated.right)} {op} {paren(updated.left)}")
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
