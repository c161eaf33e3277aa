"""Loop rewrites: for <-> while, loop <-> comprehension."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    block,
    body_of,
    code,
    expr,
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


class ForToWhile(Rewrite):
    name = "for_to_while"
    needs = (ast.For,)
    precondition = (
        "a for loop directly in a function; over range(a[, b]) the counter walks the range's"
        " own start/stop (else clause kept); any other iterable runs through iter()/next()"
        " (only loops without else)"
    )

    def leave_For(self, original: cst.For, updated: cst.For) -> Stmt:
        if original.asynchronous is not None or self.function() is None:
            return updated
        it = original.iter
        is_range = (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and it.func.value == "range"
            and 1 <= len(it.args) <= 2
            and all(a.keyword is None and not a.star for a in it.args)
            and isinstance(original.target, cst.Name)
            and self.builtin("range")
        )
        if not is_range and (original.orelse is not None or not self.builtin("iter", "next")):
            return updated
        if not self.take():
            return updated
        target = code(updated.target)
        body = body_of(updated.body)
        if is_range:
            rng, k = self.ctx.fresh("span"), self.ctx.fresh("step")
            head = [stmt(f"{rng} = {code(updated.iter)}\n"), stmt(f"{k} = {rng}.start\n")]
            inner = [stmt(f"{target} = {k}\n"), stmt(f"{k} += 1\n"), *body]
            loop = cst.While(
                test=expr(f"{k} < {rng}.stop"), body=block(inner), orelse=updated.orelse
            )
        else:
            source = self.ctx.fresh("source")
            head = [stmt(f"{source} = iter({code(updated.iter)})\n")]
            fetch = stmt(f"try:\n    {target} = next({source})\nexcept StopIteration:\n    break\n")
            loop = cst.While(test=cst.Name("True"), body=block([fetch, *body]))
        loop = loop.with_changes(leading_lines=updated.leading_lines)
        return cst.FlattenSentinel([*head, loop])


class WhileToFor(Rewrite):
    name = "while_to_for"
    needs = (ast.While,)
    precondition = (
        "a while loop without else directly in a function: `for _ in iter(int, 1):` (an"
        " endless iterator) whose first statement breaks when the condition is false"
    )

    def leave_While(self, original: cst.While, updated: cst.While) -> Stmt:
        if original.orelse is not None or self.function() is None:
            return updated
        if not self.builtin("iter", "int") or not self.take():
            return updated
        ticks = self.ctx.fresh("tick")
        guard = stmt(f"if not {paren(updated.test)}:\n    break\n")
        loop = stmt(f"for {ticks} in iter(int, 1):\n    pass\n")
        return loop.with_changes(  # type: ignore[return-value]
            body=block([guard, *body_of(updated.body)]), leading_lines=updated.leading_lines
        )


_COMPS = {cst.ListComp: ("[]", "append"), cst.SetComp: ("set()", "add")}


class ComprehensionToLoop(Rewrite):
    name = "comprehension_to_loop"
    needs = (
        ast.ListComp,
        ast.SetComp,
    )
    strict = True
    precondition = (
        "`N = [e for ...]` or `return [e for ...]` (list or set) in a function without try,"
        " the comprehension's variables spelled nowhere else in the function, N not used"
        " inside it"
    )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> Stmt:
        try:
            target, value = assign_or_return(original)
        except ValueError:
            return updated
        if type(value) not in _COMPS or self.function() is None:
            return updated
        names = comp_targets(value)  # type: ignore[arg-type]
        if names is None or not self.private(names, value):
            return updated
        if target is not None and target in {n.value for n in names_in(value)}:
            return updated
        if type(value) is cst.SetComp and not self.builtin("set"):
            return updated
        if not self.take():
            return updated
        empty, method = _COMPS[type(value)]
        new_value = assign_or_return(updated)[1]
        var = target or self.ctx.fresh("items")
        add = stmt(f"{var}.{method}({code(new_value.elt)})\n")  # type: ignore[attr-defined]
        out: list[cst.BaseStatement] = [
            stmt(f"{var} = {empty}\n").with_changes(leading_lines=updated.leading_lines),
            *nested_loops(new_value.for_in, [add]),  # type: ignore[attr-defined]
        ]
        if target is None:
            out.append(stmt(f"return {var}\n"))
        return cst.FlattenSentinel(out)


def _append_call(line: cst.BaseStatement, var: str) -> cst.BaseExpression | None:
    """``var.append(e)`` as a statement -> e."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return None
    call = small.value
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == var
        and func.attr.value == "append"
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
    ):
        return None
    return call.args[0].value


class LoopToComprehension(PairFold):
    name = "loop_to_comprehension"
    needs = (ast.For,)
    strict = True
    precondition = (
        "`N = []` directly followed by `for t in it: [if c:] N.append(e)` (no else) in a"
        " function without try; t spelled nowhere else in the function; N not used in it,"
        " c or e"
    )

    def _match(self, first: cst.BaseStatement, loop: cst.BaseStatement) -> tuple | None:
        found = accumulator_loop(first, loop, lambda v: isinstance(v, cst.List) and not v.elements)
        if found is None:
            return None
        var, loop, cond, line = found
        elt = _append_call(line, var)
        names = target_names(loop.target)
        if elt is None or names is None or not self.private(names, loop):
            return None
        used = [loop.iter, elt, *([cond] if cond is not None else [])]
        if any(var in {n.value for n in names_in(u)} for u in used):
            return None
        return var, loop.target, loop.iter, cond, elt

    def fold(
        self, first: cst.BaseStatement, second: cst.BaseStatement, before: object
    ) -> str | None:
        found = self._match(first, second)
        if found is None:
            return None
        var, target, it, cond, elt = found
        ifs = f" if {comp_part(cond)}" if cond is not None else ""
        return f"{var} = [{code(elt)} for {code(target)} in {comp_part(it)}{ifs}]\n"
