"""extract_helper: a block of the target moved into a new function (the reverse of
inlining), with the analysis that finds the blocks that can move."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context, code, stmt
from beyondpass.methods.obfuseval.structure.common import (
    _FORBIDDEN,
    _body,
    _entry_index,
    _is_docstring,
    _loads,
    _stores,
    _tree,
    _with_body,
)


def _block_ok(tree: ast.Module) -> bool:
    """No return/yield/def/class/del/import; break/continue only inside loops of the
    block."""

    def walk(node: ast.AST, in_loop: bool) -> bool:
        if isinstance(node, _FORBIDDEN) and not isinstance(node, ast.Lambda):
            return False  # lambdas: checked by the caller (_stable_lambdas)
        if isinstance(node, ast.Break | ast.Continue) and not in_loop:
            return False
        loop = isinstance(node, ast.For | ast.While | ast.AsyncFor)
        return all(walk(c, in_loop or loop) for c in ast.iter_child_nodes(node))

    return all(walk(s, False) for s in tree.body)


def _top_assigned(tree: ast.Module) -> set[str]:
    """Names every run of the block binds: targets of its top-level plain assignments."""
    out: set[str] = set()
    for s in tree.body:
        if isinstance(s, ast.Assign):
            for t in s.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.add(n.id)
        elif isinstance(s, ast.FunctionDef | ast.ClassDef):
            out.add(s.name)
        elif isinstance(s, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in s.names}
        elif (
            isinstance(s, ast.AnnAssign) and s.value is not None and isinstance(s.target, ast.Name)
        ):
            out.add(s.target.id)
    return out


@dataclass
class _Block:
    path: tuple[int, ...]  # where the statement list is: indices into nested bodies
    start: int
    end: int  # exclusive
    inputs: list[str]
    outputs: list[str]
    expression: str = ""  # "return": `return e`; "test": an if/while test; e moves


def _suites(node: cst.BaseStatement) -> list[cst.BaseSuite]:
    """The statement lists nested directly in a compound statement, in order."""
    out: list[cst.BaseSuite] = []
    if isinstance(node, cst.If):
        out.append(node.body)
        orelse = node.orelse
        while isinstance(orelse, cst.If):
            out.append(orelse.body)
            orelse = orelse.orelse
        if orelse is not None:
            out.append(orelse.body)
    elif isinstance(node, cst.Try):
        out.append(node.body)
        out += [h.body for h in node.handlers]
        out += [x.body for x in (node.orelse, node.finalbody) if x is not None]
    elif isinstance(node, cst.For | cst.While | cst.With):
        out.append(node.body)
        if getattr(node, "orelse", None) is not None:
            out.append(node.orelse.body)  # type: ignore[union-attr]
    return [s for s in out if isinstance(s, cst.IndentedBlock)]


def _definite(tree: ast.Module) -> set[str]:
    """Names surely bound after these statements ran to the end: plain assignments."""
    return _top_assigned(tree)


def _entered(node: cst.BaseStatement, suite_index: int) -> set[str]:
    """Names surely bound on entering a nested suite: a for loop's target in its body."""
    if isinstance(node, cst.For) and suite_index == 0:
        target = _tree([node]).body[0].target  # type: ignore[attr-defined]
        return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return set()


def _loop_targets(block: ast.Module) -> set[str]:
    """Names bound as targets of loops or comprehensions inside the block (rebound before
    every read)."""
    out: set[str] = set()
    for n in ast.walk(block):
        if isinstance(n, ast.For | ast.comprehension):
            out |= {m.id for m in ast.walk(n.target) if isinstance(m, ast.Name)}
    return out


class _Walker:
    """Every extractable block of one function, at any depth of its statement lists."""

    def __init__(self, func: cst.FunctionDef) -> None:
        tree = ast.parse(textwrap.dedent(code(func)))
        fn = tree.body[0]
        self.bad = any(
            isinstance(n, ast.Global | ast.Nonlocal | ast.Yield | ast.YieldFrom)
            for n in ast.walk(tree)
        )
        self.params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}  # type: ignore[attr-defined]
        self.locals = self.params | _stores(ast.Module(body=fn.body, type_ignores=[]))  # type: ignore[attr-defined]
        self.assigned = _stores(ast.Module(body=fn.body, type_ignores=[]))  # type: ignore[attr-defined]
        self.uses = _occurrences(ast.Module(body=fn.body, type_ignores=[]))  # type: ignore[attr-defined]
        self.found: list[_Block] = []

    def walk(
        self,
        stmts: list[cst.BaseStatement],
        path: tuple[int, ...],
        bound: set[str],
        in_loop: bool = False,
    ) -> None:
        trees = [_tree([s]) for s in stmts]
        first = 1 if not path and stmts and _is_docstring(stmts[0]) else 0
        for i in range(first, len(stmts)):
            sure = bound | {n for t in trees[first:i] for n in _definite(t)}
            for j in range(i + 1, len(stmts) + 1):
                block = ast.Module(body=[s for t in trees[i:j] for s in t.body], type_ignores=[])
                if not _block_ok(block):
                    break
                self._consider(path, i, j, block, sure, in_loop)
            self._expression(path, i, trees[i], sure)
            loop = isinstance(stmts[i], cst.For | cst.While)
            for k, suite in enumerate(_suites(stmts[i])):
                inner = sure | _entered(stmts[i], k)
                self.walk(list(suite.body), (*path, i, k), inner, in_loop or loop)  # type: ignore[attr-defined]

    def _stable_lambdas(self, tree: ast.AST) -> bool:
        """A lambda moved into the helper closes over the helper's variables instead of the
        function's: the same objects, unless the function rebinds one later. So a lambda
        may only read function variables that are never assigned (parameters as passed)."""
        for lam in (n for n in ast.walk(tree) if isinstance(n, ast.Lambda)):
            own = {a.arg for a in ast.walk(lam.args) if isinstance(a, ast.arg)}
            if (_loads(lam.body) - own) & self.assigned:
                return False
        return True

    def _consider(
        self,
        path: tuple[int, ...],
        i: int,
        j: int,
        block: ast.Module,
        sure: set[str],
        in_loop: bool,
    ) -> None:
        if not self._stable_lambdas(block):
            return
        here = _occurrences(block)
        used = set(here) & self.locals
        outside = {n for n in used if self.uses.get(n, 0) > here[n] or n in self.params}
        assigned = _top_assigned(block)
        for n in used - sure:
            bound_first = n in assigned and not _read_first(block, n)
            if n in outside and not bound_first:
                return  # shared with the rest, and maybe unbound where the block starts
            if n not in outside and in_loop and not (bound_first or n in _loop_targets(block)):
                return  # private, but its value could carry over from an earlier iteration
        inputs = sorted(outside & sure)
        outputs = sorted(outside & _stores(block))
        if all(o in inputs or o in assigned for o in outputs):
            self.found.append(_Block(path, i, j, inputs, outputs))

    def _expression(self, path: tuple[int, ...], i: int, tree: ast.Module, sure: set[str]) -> None:
        node = tree.body[0] if len(tree.body) == 1 else None
        if isinstance(node, ast.Return) and node.value is not None:
            value, kind = node.value, "return"
        elif isinstance(node, ast.If | ast.While):
            value, kind = node.test, "test"
        else:
            return
        if isinstance(value, ast.Name | ast.Constant):
            return
        nodes = list(ast.walk(value))
        # a lambda in a return value is built from the helper's parameters, which hold the
        # same objects the function's variables do; nothing rebinds them afterwards
        allowed = (ast.Lambda,) if kind == "return" else ()
        bad = (*_FORBIDDEN, ast.NamedExpr)
        if any(isinstance(n, bad) and not isinstance(n, allowed) for n in nodes):
            return
        comp_targets = {
            n.id
            for c in nodes
            if isinstance(c, ast.comprehension)
            for n in ast.walk(c.target)
            if isinstance(n, ast.Name)
        }
        if comp_targets & self.locals:
            return
        inputs = _loads(value) & self.locals
        if not inputs <= sure:
            return  # an argument could be unbound where the original never reads it
        self.found.append(_Block(path, i, i + 1, sorted(inputs), [], expression=kind))


def _occurrences(tree: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif isinstance(n, ast.arg):
            counts[n.arg] = counts.get(n.arg, 0) + 1
        elif isinstance(n, ast.alias):  # an import inside the function binds a variable
            key = (n.asname or n.name).split(".")[0]
            counts[key] = counts.get(key, 0) + 1
        elif isinstance(n, ast.FunctionDef | ast.ClassDef):
            counts[n.name] = counts.get(n.name, 0) + 1
    return counts


def _read_first(block: ast.Module, name: str) -> bool:
    """True unless the block's first mention of ``name`` is a top-level plain assignment
    target (after its value is evaluated)."""
    for s in block.body:
        if isinstance(s, ast.Assign) and name in _loads(s.value):
            return True
        if isinstance(s, ast.Assign) and any(name in _loads(t) for t in s.targets):
            return False
        if name in _loads(s):
            return True
    return True


def _candidates(func: cst.FunctionDef) -> list[_Block]:
    walker = _Walker(func)
    if walker.bad:
        return []
    walker.walk(_body(func), (), set(walker.params))
    return walker.found


def _get_list(func: cst.FunctionDef, path: tuple[int, ...]) -> list[cst.BaseStatement]:
    stmts = _body(func)
    for k in range(0, len(path), 2):
        stmts = list(_suites(stmts[path[k]])[path[k + 1]].body)  # type: ignore[attr-defined]
    return stmts


def _set_list(
    stmts: list[cst.BaseStatement], path: tuple[int, ...], new: list[cst.BaseStatement]
) -> list[cst.BaseStatement]:
    """``stmts`` with the statement list at ``path`` replaced by ``new``."""
    if not path:
        return new
    i, k = path[0], path[1]
    node = stmts[i]
    suite = _suites(node)[k]
    inner = _set_list(list(suite.body), path[2:], new)  # type: ignore[attr-defined]
    replaced = suite.with_changes(body=inner)

    class _Swap(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            return replaced if original is suite else updated

    out = list(stmts)
    out[i] = node.visit(_Swap())  # type: ignore[assignment]
    return out


def extract_helper(module: cst.Module, entry: str, ctx: Context) -> tuple[cst.Module, str]:
    """Move a seeded choice of statements of the target (at any depth), or one of its return
    expressions, into a new function placed right after the target.

    Precondition: the target is a plain module-level function without global/nonlocal/yield;
    the block holds no return, yield, await, del, import or nested scope, and break/continue
    only inside its own loops. Every variable of the target the block shares with the rest
    of the function is surely bound where the block starts (parameters, plain assignments
    before it, enclosing loop targets: passed in) or surely bound by the block's own
    top-level assignments before any read (returned); variables only the block uses stay in
    the helper.
    """
    i = _entry_index(module, entry)
    if i is None:
        return module, "the entry point is not a plain module-level function"
    target: cst.FunctionDef = module.body[i]  # type: ignore[assignment]
    options = _candidates(target)
    if not options:
        return module, "no block of the target can be extracted"
    chosen = options[ctx.rng.randrange(len(options))]
    stmts = _get_list(target, chosen.path)
    helper = ctx.fresh("helper_step")
    args = ", ".join(chosen.inputs)
    call = f"{helper}({args})"
    if chosen.expression == "return":
        line: cst.SimpleStatementLine = stmts[chosen.start]  # type: ignore[assignment]
        ret: cst.Return = line.body[0]  # type: ignore[assignment]
        inner = [stmt(f"return {code(ret.value)}\n")]  # type: ignore[arg-type]
        call_line = line.with_changes(body=[ret.with_changes(value=cst.parse_expression(call))])
        what = "a return expression"
    elif chosen.expression == "test":
        node: cst.If | cst.While = stmts[chosen.start]  # type: ignore[assignment]
        inner = [stmt(f"return {code(node.test)}\n")]
        space = "whitespace_before_test" if isinstance(node, cst.If) else "whitespace_after_while"
        call_line = node.with_changes(  # type: ignore[assignment]
            test=cst.parse_expression(call), **{space: cst.SimpleWhitespace(" ")}
        )
        what = f"the test of an {type(node).__name__.lower()} statement"
    else:
        moved = stmts[chosen.start : chosen.end]
        outs = chosen.outputs
        inner = list(moved)
        inner[0] = inner[0].with_changes(leading_lines=[])
        if outs:
            inner.append(stmt(f"return {', '.join(outs)}\n"))
        call_line = stmt(f"{', '.join(outs)} = {call}\n" if outs else f"{call}\n")
        call_line = call_line.with_changes(leading_lines=moved[0].leading_lines)
        what = f"{chosen.end - chosen.start} statement(s)"
    new_list = [*stmts[: chosen.start], call_line, *stmts[chosen.end :]]
    new_func = cst.FunctionDef(
        name=cst.Name(helper),
        params=cst.parse_expression(f"lambda {args}: 0").params,  # type: ignore[attr-defined]
        body=cst.IndentedBlock(body=inner),
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
    )
    body = list(module.body)
    body[i] = _with_body(target, _set_list(_body(target), chosen.path, new_list))
    body.insert(i + 1, new_func)
    return module.with_changes(body=body), f"{what} moved into {helper}({args})"
