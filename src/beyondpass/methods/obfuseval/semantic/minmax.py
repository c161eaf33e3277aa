"""Library call <-> hand-written code: two-argument ``min``/``max`` <-> a conditional
expression.

CPython's ``min(a, b)`` takes ``a`` as the best so far and replaces it with ``b`` exactly
when ``b < a`` is true (``PyObject_RichCompareBool(b, a, Py_LT)``, no identity shortcut
for ``<``); ``max`` the same with ``>``. So ``min(a, b)`` is ``b if b < a else a`` — the
same comparison call, the same truth test, the same object returned — provided reading
``a`` and ``b`` twice, in another order, changes nothing: both are literals or plain local
variables (common.stable). docs/obfuseval.md has the full argument.
"""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Rewrite, code, expr
from beyondpass.methods.obfuseval.semantic.common import fast_locals, stable

_OPS = {"min": ("<", cst.LessThan), "max": (">", cst.GreaterThan)}


class _Stable(Rewrite):
    """Rewrites inside a function whose operands must be :func:`stable` there."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._locals: dict[int, frozenset[str]] = {}

    def _stable(self, *nodes: cst.BaseExpression) -> bool:
        func = self.function()
        if func is None:
            return False
        if id(func) not in self._locals:
            self._locals[id(func)] = fast_locals(func)
        return all(stable(n, self._locals[id(func)]) for n in nodes)


class MinMaxToConditional(_Stable):
    name = "minmax_to_conditional"
    needs = (ast.Call,)
    precondition = (
        "`min(a, b)` / `max(a, b)` (builtin, two positional arguments, no key or default) in a"
        " function, a and b literals or local variables no nested scope uses:"
        " `(b if b < a else a)` / `(b if b > a else a)`"
    )

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not (isinstance(func, cst.Name) and func.value in _OPS and self.builtin(func.value)):
            return updated
        args = original.args
        if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
            return updated
        if not self._stable(args[0].value, args[1].value) or not self.take():
            return updated
        a, b = (code(arg.value) for arg in updated.args)
        op = _OPS[func.value][0]
        return expr(f"({b} if {b} {op} {a} else {a})").with_changes(
            lpar=[*updated.lpar, cst.LeftParen()], rpar=[cst.RightParen(), *updated.rpar]
        )


class ConditionalToMinMax(_Stable):
    name = "conditional_to_minmax"
    needs = (ast.IfExp,)
    precondition = (
        "`x if x < y else y` / `x if x > y else y` in a function, x and y literals or local"
        " variables no nested scope uses (the same spelling both times): `min(y, x)` /"
        " `max(y, x)` (builtins not rebound)"
    )

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        test = original.test
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return updated
        op = test.comparisons[0].operator
        which = next((f for f, (_, kind) in _OPS.items() if isinstance(op, kind)), None)
        if which is None or not self.builtin(which):
            return updated
        x, y = test.left, test.comparisons[0].comparator
        if code(x) != code(original.body) or code(y) != code(original.orelse):
            return updated
        if not self._stable(x, y) or not self.take():
            return updated
        call = expr(f"{which}({code(updated.orelse)}, {code(updated.body)})")
        return call.with_changes(lpar=updated.lpar, rpar=updated.rpar)
