"""Syntax helpers the semantic rewrites share (statement shapes, names, returns)."""

from __future__ import annotations

import symtable
from collections.abc import Callable

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    block,
    body_of,
    code,
    stmt,
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


def accumulator_loop(
    first: cst.BaseStatement,
    loop: cst.BaseStatement,
    is_start: Callable[[cst.BaseExpression], bool],
) -> tuple[str, cst.For, cst.BaseExpression | None, cst.BaseStatement] | None:
    """``N = <start>`` directly followed by ``for t in it: [if c:] <line>`` (no else, not
    async, one statement per block) -> (N, the loop, c or None, the line)."""
    if not isinstance(first, cst.SimpleStatementLine) or not isinstance(loop, cst.For):
        return None
    try:
        var, start = assign_or_return(first)
    except ValueError:
        return None
    if var is None or not is_start(start):
        return None
    if loop.orelse is not None or loop.asynchronous is not None:
        return None
    body = body_of(loop.body)
    if len(body) != 1:
        return None
    cond, line = None, body[0]
    if isinstance(line, cst.If) and line.orelse is None:
        inner = body_of(line.body)
        if len(inner) != 1:
            return None
        cond, line = line.test, inner[0]
    return var, loop, cond, line


class PairFold(Rewrite):
    """A rewrite that folds two consecutive statements of a block into one. The pair must
    match in the original tree (what the precondition was checked on) and again after
    the inner rewrites (``fold`` sees the updated pair and the original's match)."""

    def _match(self, first: cst.BaseStatement, second: cst.BaseStatement) -> object | None:
        raise NotImplementedError

    def fold(
        self, first: cst.BaseStatement, second: cst.BaseStatement, before: object
    ) -> str | None:
        """The folded statement's code, or None when the updated pair no longer matches."""
        raise NotImplementedError

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if self.function() is None:
            return updated
        old, new = list(original.body), list(updated.body)
        out: list[cst.BaseStatement] = []
        i = 0
        while i < len(new):
            before = self._match(old[i], old[i + 1]) if i + 1 < len(old) else None
            folded = self.fold(new[i], new[i + 1], before) if before is not None else None
            if folded is not None and self.take():
                out.append(stmt(folded).with_changes(leading_lines=new[i].leading_lines))
                i += 2
                continue
            out.append(new[i])
            i += 1
        return updated.with_changes(body=out)
