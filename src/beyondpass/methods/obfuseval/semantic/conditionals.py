"""if/else inversion with the negated condition."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    expr,
    paren,
)


class InvertIf(Rewrite):
    name = "invert_if"
    needs = (ast.If,)
    precondition = "an if (or elif) with a plain else: the test negated, the branches swapped"

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if not isinstance(original.orelse, cst.Else) or not self.take():
            return updated
        test = updated.test
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negated = test.expression  # `not not x` and `x` call bool(x) the same way
            if negated.lpar:
                negated = negated.with_changes(lpar=[], rpar=[])
            if isinstance(negated, cst.NamedExpr):
                negated = negated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        else:
            negated = expr(f"not {paren(test)}")
        body, orelse = updated.body, updated.orelse.body  # type: ignore[union-attr]
        return updated.with_changes(
            test=negated,
            body=orelse,
            orelse=updated.orelse.with_changes(body=body),  # type: ignore[union-attr]
            whitespace_before_test=cst.SimpleWhitespace(" "),
        )
