"""Library call <-> hand-written code: ``any``/``all`` <-> a search loop."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Rewrite,
    body_of,
    code,
    paren,
    stmt,
    target_names,
)
from beyondpass.methods.obfuseval.semantic.common import (
    PairFold,
    Stmt,
    assign_or_return,
    comp_part,
    comp_targets,
    final_return,
    names_in,
    nested_loops,
)


class BuiltinToLoop(Rewrite):
    name = "builtin_to_loop"
    needs = (ast.GeneratorExp,)
    strict = True
    precondition = (
        "`N = any(e for t in it [if c])` or `return all(...)` (a generator, one for clause)"
        " in a function without try; t spelled nowhere else in the function"
    )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> Stmt:
        try:
            target, value = assign_or_return(original)
        except ValueError:
            return updated
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("any", "all")
            and len(value.args) == 1
            and value.args[0].keyword is None
            and not value.args[0].star
            and isinstance(value.args[0].value, cst.GeneratorExp)
            and value.args[0].value.for_in.inner_for_in is None
            and self.builtin(value.func.value)
            and self.function() is not None
        ):
            return updated
        gen = value.args[0].value
        names = comp_targets(gen)
        if names is None or not self.private(names, gen) or len(gen.for_in.ifs) > 1:
            return updated
        if target is not None and target in {n.value for n in names_in(gen)}:
            return updated
        if not self.take():
            return updated
        is_any = value.func.value == "any"
        new_gen = assign_or_return(updated)[1].args[0].value  # type: ignore[attr-defined]
        var = target or self.ctx.fresh("found")
        test = code(new_gen.elt) if is_any else f"not {paren(new_gen.elt)}"
        hit = stmt(f"if {test}:\n    {var} = {is_any}\n    break\n")
        out: list[cst.BaseStatement] = [
            stmt(f"{var} = {not is_any}\n").with_changes(leading_lines=updated.leading_lines),
            *nested_loops(new_gen.for_in, [hit]),
        ]
        if target is None:
            out.append(stmt(f"return {var}\n"))
        return cst.FlattenSentinel(out)


def _bool_return(line: cst.BaseStatement) -> bool | None:
    ret = final_return([line])
    if (
        ret is None
        or not isinstance(ret.value, cst.Name)
        or ret.value.value not in ("True", "False")
    ):
        return None
    return ret.value.value == "True"


class LoopToBuiltin(PairFold):
    name = "loop_to_builtin"
    needs = (ast.For,)
    precondition = (
        "`for t in it: if c: return True` (no else anywhere) directly followed by"
        " `return False` -> `return any(c for t in it)`; the mirror case -> all(not c ...)"
    )

    def _match(self, loop: cst.BaseStatement, after: cst.BaseStatement) -> bool | None:
        if not isinstance(loop, cst.For) or loop.orelse is not None or loop.asynchronous:
            return None
        body = body_of(loop.body)
        if len(body) != 1 or not isinstance(body[0], cst.If) or body[0].orelse is not None:
            return None
        then = body_of(body[0].body)
        inner, final = (_bool_return(then[0]) if len(then) == 1 else None), _bool_return(after)
        if inner is None or final is None or inner == final:
            return None
        names = target_names(loop.target)
        if names is None or not self.private(names, loop) or not self.builtin("any", "all"):
            return None
        return inner

    def fold(
        self, first: cst.BaseStatement, second: cst.BaseStatement, before: object
    ) -> str | None:
        if self._match(first, second) != before:
            return None
        loop: cst.For = first  # type: ignore[assignment]
        cond = body_of(loop.body)[0].test  # type: ignore[attr-defined]
        head = f"{code(loop.target)} in {comp_part(loop.iter)}"
        call = f"any({code(cond)} for {head})" if before else f"all(not {paren(cond)} for {head})"
        return f"return {call}\n"
