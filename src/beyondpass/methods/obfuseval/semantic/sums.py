"""Library call <-> hand-written code: ``sum`` and ``len`` of a comprehension <-> a counting
loop, where every term is an exact ``int`` or ``bool`` whatever the inputs.

For such terms ``sum`` is plain integer addition from 0 in every Python version (3.12's
compensated summation concerns floats only), so ``total = 0; for ...: total = total + e``
computes the same ``int``; ``len([e for ...])`` counts the iterations that pass the
filters, which a loop adding 1 counts too, when evaluating ``e`` has no effect. A term
whose type depends on the inputs (``x > 0``, ``x``) is left alone: for floats the loop
and 3.12's ``sum`` differ. docs/obfuseval.md has the full argument.
"""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    code,
    contains,
    paren,
    stmt,
    target_names,
)
from beyondpass.methods.obfuseval.semantic.common import (
    PairFold,
    Stmt,
    accumulator_loop,
    assign_or_return,
    comp_part,
    comp_targets,
    names_in,
    nested_loops,
)

#: builtins whose call always returns an exact int or bool
_INT_CALLS = {"len": 1, "bool": 1, "isinstance": 2, "callable": 1}
_BOOL_OPS = (cst.In, cst.NotIn, cst.Is, cst.IsNot)
#: names that observe or change the scope they run in (a comprehension has its own)
_SCOPE_NAMES = {"super", "locals", "vars", "globals", "dir", "eval", "exec"}


def scope_free(node: cst.CSTNode) -> bool:
    """Moving ``node`` between a function and a comprehension scope cannot change it: no
    walrus, yield or await, no name that sees the scope (``locals()``, ``super()`` ...)."""
    if contains(node, (cst.NamedExpr, cst.Yield, cst.Await)):
        return False
    return not {n.value for n in names_in(node)} & _SCOPE_NAMES


class _Counting(Rewrite):
    strict = True

    def int_valued(self, node: cst.BaseExpression) -> bool:
        """An exact int or bool whatever the inputs: an int literal, ``not x``, a comparison
        by ``in``/``is`` only, or ``len``/``bool``/``isinstance``/``callable`` (builtins)."""
        if isinstance(node, cst.Integer):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return True
        if isinstance(node, cst.Comparison):
            return all(isinstance(c.operator, _BOOL_OPS) for c in node.comparisons)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            arity = _INT_CALLS.get(node.func.value)
            return (
                arity == len(node.args)
                and all(a.keyword is None and not a.star for a in node.args)
                and self.builtin(node.func.value)
            )
        return False


def _sole_argument(value: cst.BaseExpression, func: str) -> cst.BaseExpression | None:
    """``func(x)`` with one plain positional argument -> x."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    if value.func.value != func or len(value.args) != 1:
        return None
    arg = value.args[0]
    return arg.value if arg.keyword is None and not arg.star else None


class SumToLoop(_Counting):
    name = "sum_to_loop"
    needs = (ast.Call,)
    precondition = (
        "`N = sum(e for ...)` or `return sum([e for ...])` (no start) in a function without"
        " try, e an exact int/bool (int literal, not, in/is, len/bool/isinstance/callable),"
        " the comprehension's variables spelled nowhere else: `N = 0` and `N = N + e` in loops"
    )

    def term(self, comp: cst.BaseExpression) -> str | None:
        """The code added per element, when the comprehension qualifies."""
        if not isinstance(comp, cst.GeneratorExp | cst.ListComp):
            return None
        return paren(comp.elt) if self.int_valued(comp.elt) else None

    def call(self) -> str:
        return "sum"

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> Stmt:
        try:
            target, value = assign_or_return(original)
        except ValueError:
            return updated
        comp = _sole_argument(value, self.call())
        if comp is None or self.function() is None or not self.builtin(self.call()):
            return updated
        names = comp_targets(comp) if isinstance(comp, cst.GeneratorExp | cst.ListComp) else None
        if names is None or self.term(comp) is None or not scope_free(comp):
            return updated
        if not self.private(names, comp) or target in {n.value for n in names_in(comp)}:
            return updated
        if not self.take():
            return updated
        new_comp = _sole_argument(assign_or_return(updated)[1], self.call())
        var = target or self.ctx.fresh("total")
        add = stmt(f"{var} = {var} + {self.term(new_comp)}\n")  # type: ignore[arg-type]
        out: list[cst.BaseStatement] = [
            stmt(f"{var} = 0\n").with_changes(leading_lines=updated.leading_lines),
            *nested_loops(new_comp.for_in, [add]),  # type: ignore[union-attr]
        ]
        if target is None:
            out.append(stmt(f"return {var}\n"))
        return cst.FlattenSentinel(out)


class LenToLoop(SumToLoop):
    name = "len_to_loop"
    needs = (ast.ListComp,)
    precondition = (
        "`N = len([e for ...])` or `return len([...])` in a function without try, e a"
        " literal or one of the comprehension's own variables, those spelled nowhere else:"
        " `N = 0` and `N = N + 1` in loops"
    )

    def term(self, comp: cst.BaseExpression) -> str | None:
        if not isinstance(comp, cst.ListComp):
            return None
        elt = comp.elt
        own = comp_targets(comp) or []
        pure = isinstance(elt, cst.Integer | cst.Float | cst.SimpleString) or (
            isinstance(elt, cst.Name) and (elt.value in own or elt.value in ("True", "None"))
        )
        return "1" if pure else None

    def call(self) -> str:
        return "len"


def _increment(line: cst.BaseStatement, var: str) -> cst.BaseExpression | None:
    """``var += e`` or ``var = var + e`` as a statement -> e."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if (
        isinstance(small, cst.AugAssign)
        and isinstance(small.operator, cst.AddAssign)
        and isinstance(small.target, cst.Name)
        and small.target.value == var
    ):
        return small.value
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == var
        and isinstance(small.value, cst.BinaryOperation)
        and isinstance(small.value.operator, cst.Add)
        and isinstance(small.value.left, cst.Name)
        and small.value.left.value == var
        and not small.value.left.lpar
    ):
        return small.value.right
    return None


class LoopToSum(_Counting, PairFold):
    name = "loop_to_sum"
    needs = (ast.For,)
    precondition = (
        "`N = 0` directly followed by `for t in it: [if c:] N += e` (or `N = N + e`; no else)"
        " in a function without try, e an exact int/bool as for sum_to_loop, t spelled nowhere"
        " else, N not used in it, c or e: `N = sum(e for t in it [if c])`"
    )

    def _match(self, first: cst.BaseStatement, loop: cst.BaseStatement) -> tuple | None:
        found = accumulator_loop(
            first, loop, lambda v: isinstance(v, cst.Integer) and v.value == "0"
        )
        if found is None:
            return None
        var, loop, cond, line = found
        term = _increment(line, var)
        names = target_names(loop.target)
        if term is None or names is None or not self.int_valued(term):
            return None
        if not self.private(names, loop) or not self.builtin("sum"):
            return None
        used = [loop.iter, term, *([cond] if cond is not None else [])]
        if any(var in {n.value for n in names_in(u)} for u in used):
            return None
        if not all(scope_free(u) for u in used[1:]):
            return None
        return var, loop.target, loop.iter, cond, term

    def fold(
        self, first: cst.BaseStatement, second: cst.BaseStatement, before: object
    ) -> str | None:
        found = self._match(first, second)
        if found is None:
            return None
        var, target, it, cond, term = found
        ifs = f" if {comp_part(cond)}" if cond is not None else ""
        return f"{var} = sum({code(term)} for {code(target)} in {comp_part(it)}{ifs})\n"
