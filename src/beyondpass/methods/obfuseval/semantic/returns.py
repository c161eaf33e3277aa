"""Return rewrites: early return <-> one result variable, and the fallback that returns
through a variable."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    block,
    body_of,
    code,
    contains,
    name_counts,
    stmt,
)
from beyondpass.methods.obfuseval.semantic.common import (
    Stmt,
    assign_or_return,
    count_returns,
    final_return,
)


class EarlyReturnToVariable(Rewrite):
    name = "early_return_to_variable"
    needs = (ast.If,)
    precondition = (
        "a top-level `if c: ...; return a` (no else) in a function body whose remaining"
        " statements end in the function's only other return; no yield: the guard becomes"
        " if/else assigning one result variable, returned once"
    )

    def _guard(self, func: cst.FunctionDef) -> int | None:
        if not isinstance(func.body, cst.IndentedBlock):
            return None
        if contains(func.body, (cst.Yield,)):
            return None
        stmts = list(func.body.body)
        for i in range(len(stmts) - 2, -1, -1):
            s = stmts[i]
            if not isinstance(s, cst.If) or s.orelse is not None:
                continue
            then, rest = body_of(s.body), stmts[i + 1 :]
            if final_return(then) is None or count_returns(then) != 1:
                continue
            if final_return(rest) is None or count_returns(rest) != 1:
                continue
            return i
        return None

    def rewrite_function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> Stmt:
        i = self._guard(original)
        if i is None or self._guard(updated) != i or not self.take():
            return updated
        stmts = list(updated.body.body)  # type: ignore[union-attr]
        guard, rest = stmts[i], stmts[i + 1 :]
        var = self.ctx.fresh("result")

        def assign(nodes: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
            ret = final_return(nodes)
            value = code(ret.value) if ret and ret.value is not None else "None"
            return [*nodes[:-1], stmt(f"{var} = {value}\n")]

        new_if = guard.with_changes(  # type: ignore[call-arg]
            body=block(assign(body_of(guard.body))),  # type: ignore[attr-defined]
            orelse=cst.Else(body=block(assign(rest))),
        )
        body = [*stmts[:i], new_if, stmt(f"return {var}\n")]
        return updated.with_changes(body=updated.body.with_changes(body=body))


class VariableToEarlyReturn(Rewrite):
    name = "variable_to_early_return"
    needs = (ast.If,)
    precondition = (
        "a function ending in `if c: ...; r = a` / `else: ...; r = b` / `return r`, with `r`"
        " spelled nowhere else in the function: each branch returns its value directly"
    )

    def _match(self, func: cst.FunctionDef) -> str | None:
        if not isinstance(func.body, cst.IndentedBlock) or len(func.body.body) < 2:
            return None
        node, last = func.body.body[-2], func.body.body[-1]
        ret = final_return([last])
        if not isinstance(node, cst.If) or not isinstance(node.orelse, cst.Else):
            return None
        if ret is None or not isinstance(ret.value, cst.Name):
            return None
        var = ret.value.value
        for branch in (body_of(node.body), body_of(node.orelse.body)):
            if not isinstance(branch[-1], cst.SimpleStatementLine):
                return None
            try:
                target, _ = assign_or_return(branch[-1])  # type: ignore[arg-type]
            except (ValueError, AttributeError):
                return None
            if target != var:
                return None
        if contains(func.body, (cst.Yield,)):
            return None
        counts = name_counts(func)
        return var if counts[var] == 3 else None

    def rewrite_function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> Stmt:
        var = self._match(original)
        if var is None or self._match(updated) != var or not self.take():
            return updated
        stmts = list(updated.body.body)  # type: ignore[union-attr]
        node: cst.If = stmts[-2]  # type: ignore[assignment]

        def returning(nodes: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
            value = assign_or_return(nodes[-1])[1]  # type: ignore[arg-type]
            return [*nodes[:-1], stmt(f"return {code(value)}\n")]

        guard = node.with_changes(body=block(returning(body_of(node.body))), orelse=None)
        rest = returning(body_of(node.orelse.body))  # type: ignore[union-attr]
        body = [*stmts[:-2], guard, *rest]
        return updated.with_changes(body=updated.body.with_changes(body=body))


class ReturnViaVariable(Rewrite):
    name = "return_via_variable"
    needs = (ast.Return,)
    precondition = (
        "`return e` in a function: `v = e` then `return v`. Used only when no other rewrite"
        " applies to the task (it changes little), and counted apart in the report"
    )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> Stmt:
        try:
            target, value = assign_or_return(original)
        except ValueError:
            return updated
        if target is not None or self.function() is None or not self.take():
            return updated
        var = self.ctx.fresh("answer")
        new_value = assign_or_return(updated)[1]
        first = stmt(f"{var} = {code(new_value)}\n").with_changes(
            leading_lines=updated.leading_lines
        )
        return cst.FlattenSentinel([first, stmt(f"return {var}\n")])
