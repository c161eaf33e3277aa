"""Library call <-> hand-written code: ``for i, x in enumerate(xs)`` <-> a manual counter.

``enumerate(xs, n)`` calls ``iter(xs)`` once and yields ``(n, x0), (n + 1, x1), ...``
with its own counter, which the loop body cannot touch. The rewrite keeps a fresh counter
``k = n`` and starts each iteration with ``i = k; k += 1`` — before the body, so
``continue`` still counts. Only one direction: a hand-written counter incremented at the
end of the body skips ``continue`` and leaves a different value after the loop, so folding
such loops into ``enumerate`` would not be exact. docs/obfuseval.md has the argument.
"""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    block,
    body_of,
    code,
    stmt,
    target_names,
)
from beyondpass.methods.obfuseval.semantic.common import Stmt


def _start(args: list[cst.Arg]) -> str | None:
    """The start argument's code: none (0) or an int literal, positional or ``start=``."""
    if not args or args[0].keyword is not None or any(a.star for a in args):
        return None
    if len(args) == 1:
        return "0"
    if len(args) != 2:
        return None
    second = args[1]
    if second.keyword is not None and second.keyword.value != "start":
        return None
    value = second.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
        return f"-{value.value}" if isinstance(value, cst.Integer) and not value.lpar else None
    return value.value if isinstance(value, cst.Integer) else None


class EnumerateToCounter(Rewrite):
    name = "enumerate_to_counter"
    needs = (ast.For,)
    strict = True
    precondition = (
        "`for i, x in enumerate(xs[, n])` (builtin, n an int literal or absent) in a function"
        " without try, i a plain name that the other target does not bind: `k = n`, then"
        " `for x in xs:` starting with `i = k; k += 1` (k fresh; else clause kept)"
    )

    def leave_For(self, original: cst.For, updated: cst.For) -> Stmt:
        it, target = original.iter, original.target
        if original.asynchronous is not None or self.function() is None:
            return updated
        if not (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and it.func.value == "enumerate"
            and self.builtin("enumerate")
            and _start(list(it.args)) is not None
        ):
            return updated
        if not isinstance(target, cst.Tuple | cst.List) or len(target.elements) != 2:
            return updated
        index, item = target.elements
        if isinstance(item, cst.StarredElement) or not isinstance(index.value, cst.Name):
            return updated
        bound = target_names(item.value)
        if bound is None or index.value.value in bound or not self.take():
            return updated
        new_it: cst.Call = updated.iter  # type: ignore[assignment]
        new_index, new_item = updated.target.elements  # type: ignore[attr-defined]
        counter = self.ctx.fresh("index")
        head = stmt(f"{counter} = {_start(list(new_it.args))}\n")
        step = [stmt(f"{code(new_index.value)} = {counter}\n"), stmt(f"{counter} += 1\n")]
        source = new_it.args[0].value
        if isinstance(source, cst.GeneratorExp | cst.NamedExpr) and not source.lpar:
            source = source.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        loop = updated.with_changes(
            target=new_item.value,
            iter=source,
            body=block([*step, *body_of(updated.body)]),
            leading_lines=[],
        )
        return cst.FlattenSentinel([head.with_changes(leading_lines=updated.leading_lines), loop])
