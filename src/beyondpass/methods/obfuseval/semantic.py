"""Semantic obfuscation: a library of behaviour-preserving rewrites of the reference.

Each rewrite is a small libcst transformer with a stated precondition, checked on the syntax
tree; it rewrites only where that holds. A precondition can only speak about syntax (Python
has no static types), so every variant is also executed against the original on the tests'
inputs (transform.py) — the rewrites aim never to need that check, the check makes sure.
docs/obfuseval.md lists each rewrite, its precondition and why it is exact.
"""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import (
    Context,
    Rewrite,
    block,
    body_of,
    code,
    contains,
    expr,
    name_counts,
    paren,
    run_rewrites,
    stmt,
    target_names,
)

_Stmt = cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel


class ForToWhile(Rewrite):
    name = "for_to_while"
    needs = (ast.For,)
    precondition = (
        "a for loop directly in a function; over range(a[, b]) the counter walks the range's"
        " own start/stop (else clause kept); any other iterable runs through iter()/next()"
        " (only loops without else)"
    )

    def leave_For(self, original: cst.For, updated: cst.For) -> _Stmt:
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

    def leave_While(self, original: cst.While, updated: cst.While) -> _Stmt:
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


def _comp_targets(comp: cst.ListComp | cst.SetComp | cst.GeneratorExp) -> list[str] | None:
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


def _loops(clause: cst.CompFor | None, inner: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``for a in x if c for b in y`` -> nested for/if statements around ``inner``."""
    if clause is None:
        return inner
    nested = _loops(clause.inner_for_in, inner)
    for cond in reversed(clause.ifs):
        nested = [cst.If(test=cond.test, body=block(nested))]
    return [cst.For(target=clause.target, iter=clause.iter, body=block(nested))]


def _assign_or_return(line: cst.SimpleStatementLine) -> tuple[str | None, cst.BaseExpression]:
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
    ) -> _Stmt:
        try:
            target, value = _assign_or_return(original)
        except ValueError:
            return updated
        if type(value) not in _COMPS or self.function() is None:
            return updated
        names = _comp_targets(value)  # type: ignore[arg-type]
        if names is None or not self.private(names, value):
            return updated
        if target is not None and target in {n.value for n in _names(value)}:
            return updated
        if type(value) is cst.SetComp and not self.builtin("set"):
            return updated
        if not self.take():
            return updated
        empty, method = _COMPS[type(value)]
        new_value = _assign_or_return(updated)[1]
        var = target or self.ctx.fresh("items")
        add = stmt(f"{var}.{method}({code(new_value.elt)})\n")  # type: ignore[attr-defined]
        out: list[cst.BaseStatement] = [
            stmt(f"{var} = {empty}\n").with_changes(leading_lines=updated.leading_lines),
            *_loops(new_value.for_in, [add]),  # type: ignore[attr-defined]
        ]
        if target is None:
            out.append(stmt(f"return {var}\n"))
        return cst.FlattenSentinel(out)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_V())
    return found


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


class LoopToComprehension(Rewrite):
    name = "loop_to_comprehension"
    needs = (ast.For,)
    strict = True
    precondition = (
        "`N = []` directly followed by `for t in it: [if c:] N.append(e)` (no else) in a"
        " function without try; t spelled nowhere else in the function; N not used in it,"
        " c or e"
    )

    def _match(self, first: cst.BaseStatement, loop: cst.BaseStatement) -> tuple | None:
        if not isinstance(first, cst.SimpleStatementLine) or not isinstance(loop, cst.For):
            return None
        try:
            var, value = _assign_or_return(first)
        except ValueError:
            return None
        if var is None or not (isinstance(value, cst.List) and not value.elements):
            return None
        if loop.orelse is not None or loop.asynchronous is not None:
            return None
        body = body_of(loop.body)
        if len(body) != 1:
            return None
        cond = None
        line = body[0]
        if isinstance(line, cst.If) and line.orelse is None:
            inner = body_of(line.body)
            if len(inner) != 1:
                return None
            cond, line = line.test, inner[0]
        elt = _append_call(line, var)
        names = target_names(loop.target)
        if elt is None or names is None or not self.private(names, loop):
            return None
        used = [loop.iter, elt, *([cond] if cond is not None else [])]
        if any(var in {n.value for n in _names(u)} for u in used):
            return None
        return var, loop.target, loop.iter, cond, elt

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if self.function() is None:
            return updated
        old, new = list(original.body), list(updated.body)
        out: list[cst.BaseStatement] = []
        i = 0
        while i < len(new):
            found = self._match(old[i], old[i + 1]) if i + 1 < len(old) else None
            if found and self._match(new[i], new[i + 1]) and self.take():
                var, target, it, cond, elt = self._match(new[i], new[i + 1])  # type: ignore[misc]
                ifs = f" if {code(cond)}" if cond is not None else ""
                comp = f"{var} = [{code(elt)} for {code(target)} in {code(it)}{ifs}]\n"
                out.append(stmt(comp).with_changes(leading_lines=new[i].leading_lines))
                i += 2
                continue
            out.append(new[i])
            i += 1
        return updated.with_changes(body=out)


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


def _returns(nodes: list[cst.BaseStatement]) -> int:
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


def _final_return(nodes: list[cst.BaseStatement]) -> cst.Return | None:
    if not nodes or not isinstance(nodes[-1], cst.SimpleStatementLine):
        return None
    line = nodes[-1]
    if len(line.body) == 1 and isinstance(line.body[0], cst.Return):
        return line.body[0]
    return None


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
            if _final_return(then) is None or _returns(then) != 1:
                continue
            if _final_return(rest) is None or _returns(rest) != 1:
                continue
            return i
        return None

    def rewrite_function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> _Stmt:
        i = self._guard(original)
        if i is None or self._guard(updated) != i or not self.take():
            return updated
        stmts = list(updated.body.body)  # type: ignore[union-attr]
        guard, rest = stmts[i], stmts[i + 1 :]
        var = self.ctx.fresh("result")

        def assign(nodes: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
            ret = _final_return(nodes)
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
        ret = _final_return([last])
        if not isinstance(node, cst.If) or not isinstance(node.orelse, cst.Else):
            return None
        if ret is None or not isinstance(ret.value, cst.Name):
            return None
        var = ret.value.value
        for branch in (body_of(node.body), body_of(node.orelse.body)):
            if not isinstance(branch[-1], cst.SimpleStatementLine):
                return None
            try:
                target, _ = _assign_or_return(branch[-1])  # type: ignore[arg-type]
            except (ValueError, AttributeError):
                return None
            if target != var:
                return None
        if contains(func.body, (cst.Yield,)):
            return None
        counts = name_counts(func)
        return var if counts[var] == 3 else None

    def rewrite_function(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> _Stmt:
        var = self._match(original)
        if var is None or self._match(updated) != var or not self.take():
            return updated
        stmts = list(updated.body.body)  # type: ignore[union-attr]
        node: cst.If = stmts[-2]  # type: ignore[assignment]

        def returning(nodes: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
            value = _assign_or_return(nodes[-1])[1]  # type: ignore[arg-type]
            return [*nodes[:-1], stmt(f"return {code(value)}\n")]

        guard = node.with_changes(body=block(returning(body_of(node.body))), orelse=None)
        rest = returning(body_of(node.orelse.body))  # type: ignore[union-attr]
        body = [*stmts[:-2], guard, *rest]
        return updated.with_changes(body=updated.body.with_changes(body=body))


_PURE = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
_MIRROR = {
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
    cst.LessThan: cst.GreaterThan,
    cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThanEqual,
}


def _pure(node: cst.BaseExpression) -> bool:
    """Evaluating it runs no user code that could have effects: a name, a literal, or a
    subscript of those."""
    if isinstance(node, _PURE):
        return True
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return isinstance(index, cst.Index) and _pure(node.value) and _pure(index.value)
    return False


class SwapOperands(Rewrite):
    name = "swap_operands"
    needs = (
        ast.Compare,
        ast.BinOp,
    )
    precondition = (
        "a single comparison ==, !=, <, >, <=, >= between names, literals or subscripts of"
        " them (mirrored: a < b -> b > a); + or * with a numeric literal operand"
    )

    def leave_Comparison(
        self, original: cst.Comparison, updated: cst.Comparison
    ) -> cst.BaseExpression:
        if len(original.comparisons) != 1:
            return updated
        op = original.comparisons[0].operator
        if type(op) not in _MIRROR or not (
            _pure(original.left) and _pure(original.comparisons[0].comparator)
        ):
            return updated
        if not self.take():
            return updated
        right = updated.comparisons[0]
        mirrored = _MIRROR[type(op)](
            whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after
        )
        return updated.with_changes(
            left=right.comparator,
            comparisons=[right.with_changes(operator=mirrored, comparator=updated.left)],
        )

    def leave_BinaryOperation(
        self, original: cst.BinaryOperation, updated: cst.BinaryOperation
    ) -> cst.BaseExpression:
        if not isinstance(original.operator, cst.Add | cst.Multiply):
            return updated
        numbers = (cst.Integer, cst.Float, cst.Imaginary)
        if not (isinstance(original.left, numbers) or isinstance(original.right, numbers)):
            return updated
        if not self.take():
            return updated
        op = "+" if isinstance(updated.operator, cst.Add) else "*"
        new = expr(f"{paren(updated.right)} {op} {paren(updated.left)}")
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)


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
    ) -> _Stmt:
        try:
            target, value = _assign_or_return(original)
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
        names = _comp_targets(gen)
        if names is None or not self.private(names, gen) or len(gen.for_in.ifs) > 1:
            return updated
        if target is not None and target in {n.value for n in _names(gen)}:
            return updated
        if not self.take():
            return updated
        is_any = value.func.value == "any"
        new_gen = _assign_or_return(updated)[1].args[0].value  # type: ignore[attr-defined]
        var = target or self.ctx.fresh("found")
        test = code(new_gen.elt) if is_any else f"not {paren(new_gen.elt)}"
        hit = stmt(f"if {test}:\n    {var} = {is_any}\n    break\n")
        out: list[cst.BaseStatement] = [
            stmt(f"{var} = {not is_any}\n").with_changes(leading_lines=updated.leading_lines),
            *_loops(new_gen.for_in, [hit]),
        ]
        if target is None:
            out.append(stmt(f"return {var}\n"))
        return cst.FlattenSentinel(out)


def _bool_return(line: cst.BaseStatement) -> bool | None:
    ret = _final_return([line])
    if (
        ret is None
        or not isinstance(ret.value, cst.Name)
        or ret.value.value not in ("True", "False")
    ):
        return None
    return ret.value.value == "True"


class LoopToBuiltin(Rewrite):
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

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if self.function() is None:
            return updated
        old, new = list(original.body), list(updated.body)
        out: list[cst.BaseStatement] = []
        i = 0
        while i < len(new):
            inner = self._match(old[i], old[i + 1]) if i + 1 < len(old) else None
            if inner is not None and self._match(new[i], new[i + 1]) == inner and self.take():
                loop: cst.For = new[i]  # type: ignore[assignment]
                cond = body_of(loop.body)[0].test  # type: ignore[attr-defined]
                head = f"{code(loop.target)} in {code(loop.iter)}"
                call = (
                    f"any({code(cond)} for {head})"
                    if inner
                    else (f"all(not {paren(cond)} for {head})")
                )
                out.append(stmt(f"return {call}\n").with_changes(leading_lines=loop.leading_lines))
                i += 2
                continue
            out.append(new[i])
            i += 1
        return updated.with_changes(body=out)


class ReturnViaVariable(Rewrite):
    name = "return_via_variable"
    needs = (ast.Return,)
    precondition = (
        "`return e` in a function: `v = e` then `return v`. Used only when no other rewrite"
        " applies to the task (it changes little), and counted apart in the report"
    )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> _Stmt:
        try:
            target, value = _assign_or_return(original)
        except ValueError:
            return updated
        if target is not None or self.function() is None or not self.take():
            return updated
        var = self.ctx.fresh("answer")
        new_value = _assign_or_return(updated)[1]
        first = stmt(f"{var} = {code(new_value)}\n").with_changes(
            leading_lines=updated.leading_lines
        )
        return cst.FlattenSentinel([first, stmt(f"return {var}\n")])


LIBRARY: list[type[Rewrite]] = [
    ForToWhile,
    WhileToFor,
    ComprehensionToLoop,
    LoopToComprehension,
    InvertIf,
    EarlyReturnToVariable,
    VariableToEarlyReturn,
    SwapOperands,
    BuiltinToLoop,
    LoopToBuiltin,
]
#: a rewrite and its inverse never run in the same variant (one would undo the other)
INVERSES = [
    ("comprehension_to_loop", "loop_to_comprehension"),
    ("builtin_to_loop", "loop_to_builtin"),
    ("for_to_while", "while_to_for"),
    ("early_return_to_variable", "variable_to_early_return"),
]


def rewrite_semantics(module: cst.Module, ctx: Context) -> tuple[cst.Module, dict[str, int]]:
    """The module with a seeded selection of the library applied; ``{rewrite: sites}``."""
    new, applied, _ = run_rewrites(module, LIBRARY, ctx, INVERSES)
    if not applied:
        new, applied, _ = run_rewrites(module, [ReturnViaVariable], ctx)
    return new, applied
