"""Syntax helpers the semantic rewrites share (statement shapes, names, returns)."""

from __future__ import annotations

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    block,
    target_names,
)

Stmt = cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel


def comp_targets(comp: cst.ListComp | cst.SetComp | cst.GeneratorExp) -> list[str] | None:
    names: list[str] = []
    clause: cst.CompFor | None = comp.for_in
    while clause is not None:
        if clause.asynchronous is not None:
            return None
        found = target_names(clause.target)
        if found is None:
            return None
        names += found
        clause = clause.inner_for_in
    return names


def nested_loops(
    clause: cst.CompFor | None, inner: list[cst.BaseStatement]
) -> list[cst.BaseStatement]:
    """``for a in x if c for b in y`` -> nested for/if statements around ``inner``."""
    if clause is None:
        return inner
    nested = nested_loops(clause.inner_for_in, inner)
    for cond in reversed(clause.ifs):
        nested = [cst.If(test=cond.test, body=block(nested))]
    return [cst.For(target=clause.target, iter=clause.iter, body=block(nested))]


def assign_or_return(line: cst.SimpleStatementLine) -> tuple[str | None, cst.BaseExpression]:
    """``N = value`` -> (N, value); ``return value`` -> (None, value); else ValueError."""
    if len(line.body) != 1:
        raise ValueError
    small = line.body[0]
    if isinstance(small, cst.Return) and small.value is not None:
        return None, small.value
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    raise ValueError


def names_in(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_V())
    return found


def count_returns(nodes: list[cst.BaseStatement]) -> int:
    count = 0

    class _V(cst.CSTVisitor):
        def visit_Return(self, n: cst.Return) -> None:
            nonlocal count
            count += 1

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False  # a nested function's returns are its own

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    for node in nodes:
        node.visit(_V())
    return count


def final_return(nodes: list[cst.BaseStatement]) -> cst.Return | None:
    if not nodes or not isinstance(nodes[-1], cst.SimpleStatementLine):
        return None
    line = nodes[-1]
    if len(line.body) == 1 and isinstance(line.body[0], cst.Return):
        return line.body[0]
    return None
