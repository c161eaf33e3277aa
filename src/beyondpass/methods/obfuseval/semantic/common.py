"""Syntax helpers the semantic rewrites share (statement shapes, names, returns)."""

from __future__ import annotations

import symtable

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    block,
    code,
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


def fast_locals(func: cst.FunctionDef) -> frozenset[str]:
    """Names that are plain local variables of ``func``: bound in it (parameters included),
    not declared global/nonlocal, and spelled in none of its nested scopes (functions,
    lambdas, classes, comprehensions). Only code of ``func`` itself can rebind such a name,
    so between two reads with no assignment in between it holds the same object; reading
    it has no effect (an unbound one raises UnboundLocalError). Python's own ``symtable``
    decides; code it cannot read gives the empty set."""
    try:
        table = symtable.symtable(code(func), "<function>", "exec")
    except (SyntaxError, ValueError):
        return frozenset()
    inner = [t for t in table.get_children() if t.get_name() == func.name.value]
    if len(inner) != 1:
        return frozenset()
    nested: set[str] = set()
    pending = list(inner[0].get_children())
    while pending:
        child = pending.pop()
        nested.update(child.get_identifiers())
        pending += child.get_children()
    return (
        frozenset(
            s.get_name()
            for s in inner[0].get_symbols()
            if s.is_local() and not s.is_global() and not s.is_nonlocal()
        )
        - nested
    )


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def stable(node: cst.BaseExpression, local: frozenset[str]) -> bool:
    """Evaluating ``node`` runs no user code, has no effect, and gives the same object
    every time while no statement of the function runs: a number or string literal
    (not an f-string), ``True``/``False``/``None``, or a name in ``local``."""
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.Name):
        return node.value in local or node.value in ("True", "False", "None")
    return False


def comp_part(node: cst.BaseExpression) -> str:
    """``node``'s code fit for a comprehension's ``in`` or ``if`` part, where a bare
    conditional expression, lambda, walrus or tuple would parse differently or not at all."""
    text = code(node)
    if isinstance(node, cst.IfExp | cst.Lambda | cst.NamedExpr | cst.Tuple) and not node.lpar:
        return f"({text})"
    return text
