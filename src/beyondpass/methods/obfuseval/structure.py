"""Structure obfuscation: the reference's call structure changed, its behaviour kept.

Three transforms on the module of the reference solution (libcst edits, ``ast`` for the
name analysis), each with a precondition checked on the tree:

- **inline_helper**: a call of a module-level helper in the target (the entry point),
  standing alone as ``x = h(a)``, ``return h(a)`` or ``h(a)``, is replaced by the helper's
  body with fresh local names (the seed's "inline callees into the target");
- **extract_helper**: a run of the target's top-level statements (or its final return
  expression) becomes a new module-level function, its inputs passed and outputs returned;
- **reorder_definitions**: a run of adjacent module-level functions is permuted.

docs/obfuseval.md states each precondition and why it keeps behaviour; every variant is
still executed against the original on the tests' inputs (transform.py).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context, code, stmt

NOT_APPLICABLE = "not applicable"

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_FORBIDDEN = (
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.Global,
    ast.Nonlocal,
    ast.Delete,
    ast.Import,
    ast.ImportFrom,
    *_SCOPES,
)


@dataclass
class StructureResult:
    module: cst.Module
    applied: dict[str, str] = field(default_factory=dict)  # transform -> what it did
    skipped: dict[str, str] = field(default_factory=dict)  # transform -> why not applicable


def _tree(nodes: list[cst.BaseStatement]) -> ast.Module:
    return ast.parse(textwrap.dedent("".join(code(n) for n in nodes)))


def _stores(tree: ast.AST) -> set[str]:
    """Names bound in ``tree``'s scope: assignment targets, ``def``/``class``
    and import names, ``except ... as``; a comprehension's own variables are not (they live
    in the comprehension's scope)."""
    inner = {
        id(n)
        for c in ast.walk(tree)
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if id(node) not in inner:
                out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) or (
            isinstance(node, ast.ExceptHandler) and node.name
        ):
            out.add(node.name)  # type: ignore[arg-type]
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out


def _loads(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _params(func: cst.FunctionDef) -> list[str] | None:
    """Plain positional parameters without defaults; None for anything else."""
    p = func.params
    if (
        p.posonly_params
        or p.kwonly_params
        or p.star_kwarg
        or p.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
    ):
        return None
    if any(q.default is not None for q in p.params):
        return None
    return [q.name.value for q in p.params]


def _body(func: cst.FunctionDef) -> list[cst.BaseStatement]:
    if not isinstance(func.body, cst.IndentedBlock):
        return [cst.SimpleStatementLine(body=func.body.body)]  # type: ignore[attr-defined]
    return list(func.body.body)


def _is_docstring(node: cst.BaseStatement) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Expr)
        and isinstance(node.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _plain_function(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.FunctionDef)
        and not node.decorators
        and node.asynchronous is None
        and isinstance(node.body, cst.IndentedBlock)
    )


def _entry_index(module: cst.Module, entry: str) -> int | None:
    for i, node in enumerate(module.body):
        if _plain_function(node) and node.name.value == entry:  # type: ignore[attr-defined]
            return i
    return None


def _with_body(func: cst.FunctionDef, body: list[cst.BaseStatement]) -> cst.FunctionDef:
    return func.with_changes(body=func.body.with_changes(body=body))


# --- inline ---------------------------------------------------------------------------


def _inlinable(module: cst.Module, target: str) -> dict[str, cst.FunctionDef]:
    """Module-level helpers whose body is straight-line code ending in ``return e``."""
    counts: dict[str, int] = {}
    for node in module.body:
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            counts[node.name.value] = counts.get(node.name.value, 0) + 1
    rebound = {
        n.id
        for n in ast.walk(ast.parse(module.code))
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    out: dict[str, cst.FunctionDef] = {}
    for node in module.body:
        if not _plain_function(node) or node.name.value == target:  # type: ignore[attr-defined]
            continue
        name = node.name.value  # type: ignore[attr-defined]
        if counts[name] != 1 or name in rebound or _params(node) is None:  # type: ignore[arg-type]
            continue
        body = [s for s in _body(node) if not _is_docstring(s)]  # type: ignore[arg-type]
        if not body or not all(isinstance(s, cst.SimpleStatementLine) for s in body):
            continue
        tree = _tree(body)
        last = tree.body[-1] if tree.body else None
        if not isinstance(last, ast.Return) or last.value is None:
            continue
        inner = [n for s in tree.body[:-1] for n in ast.walk(s)]
        inner += list(ast.walk(last.value))
        if any(isinstance(n, _FORBIDDEN) for n in inner) or name in _loads(tree):
            continue
        out[name] = node  # type: ignore[assignment]
    return out


class _Rename(cst.CSTTransformer):
    """Rename plain name uses (not attributes, not call keywords)."""

    def __init__(self, mapping: dict[str, str]) -> None:
        super().__init__()
        self.mapping = mapping
        self.keep: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.keep.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keep.add(id(node.keyword))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if id(original) in self.keep or original.value not in self.mapping:
            return updated
        return updated.with_changes(value=self.mapping[original.value])


def _call_of(line: cst.BaseStatement, helpers: dict[str, cst.FunctionDef]) -> str | None:
    """The helper a statement line calls as its whole value (``x = h(a)``, ``return h(a)``)."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    value = small.value if isinstance(small, cst.Assign | cst.Return | cst.Expr) else None
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
        return None
    helper = helpers.get(value.func.value)
    if helper is None or len(value.args) != len(_params(helper) or []):
        return None
    if any(a.keyword is not None or a.star for a in value.args):
        return None
    return value.func.value


def _inline_at(
    line: cst.SimpleStatementLine, helper: cst.FunctionDef, ctx: Context
) -> list[cst.BaseStatement]:
    body = [s for s in _body(helper) if not _is_docstring(s)]
    local = sorted(_stores(_tree(body)) | set(_params(helper) or []))
    mapping = {n: ctx.fresh(n) for n in local}
    renamer = _Rename(mapping)
    call: cst.Call = line.body[0].value  # type: ignore[attr-defined,assignment]
    out: list[cst.BaseStatement] = [
        stmt(f"{mapping[p]} = {code(a.value)}\n")
        for p, a in zip(_params(helper) or [], call.args, strict=True)
    ]
    out += [s.visit(renamer) for s in body[:-1]]  # type: ignore[misc]
    result = body[-1].body[0].value.visit(renamer)  # type: ignore[attr-defined]
    small = line.body[0]
    if isinstance(small, cst.Expr):
        out.append(stmt(f"{code(result)}\n"))
    else:
        out.append(line.with_changes(body=[small.with_changes(value=result)]))
    if out:
        out[0] = out[0].with_changes(leading_lines=line.leading_lines)
    return out


class _Inliner(cst.CSTTransformer):
    def __init__(self, helpers: dict[str, cst.FunctionDef], ctx: Context) -> None:
        super().__init__()
        self.helpers, self.ctx = helpers, ctx
        self.done: list[str] = []
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.depth -= 1
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        name = _call_of(updated, self.helpers) if self.depth == 1 else None
        if name is None:
            return updated
        self.done.append(name)
        return cst.FlattenSentinel(_inline_at(updated, self.helpers[name], self.ctx))


def inline_helpers(
    module: cst.Module, entry: str, ctx: Context, keep: set[str]
) -> tuple[cst.Module, str]:
    """Inline every stand-alone call of a straight-line helper in ``entry``.

    Precondition: the helper is a plain module-level function defined once and never
    rebound, with positional parameters only, a body of simple statements ending in its only
    return, no nested scope, no recursion; the target binds no name the helper reads (else
    the inlined code would see the target's variable) and has no ``global``/``nonlocal``.
    The helper's definition is removed when nothing else (module, tests, prompt: ``keep``)
    names it.
    """
    i = _entry_index(module, entry)
    if i is None:
        return module, "the entry point is not a plain module-level function"
    target: cst.FunctionDef = module.body[i]  # type: ignore[assignment]
    helpers = _inlinable(module, entry)
    target_tree = ast.parse(textwrap.dedent(code(target)))
    if any(isinstance(n, ast.Global | ast.Nonlocal) for n in ast.walk(target_tree)):
        return module, "the target declares global/nonlocal names"
    fn = target_tree.body[0]
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}  # type: ignore[attr-defined]
    target_locals = params | _stores(ast.Module(body=fn.body, type_ignores=[]))  # type: ignore[attr-defined]
    for name, helper in list(helpers.items()):
        body = _tree([s for s in _body(helper) if not _is_docstring(s)])
        free = _loads(body) - _stores(body) - set(_params(helper) or [])
        if free & target_locals:
            del helpers[name]  # the inlined code would read the target's variable instead
    if not helpers:
        return module, "the target calls no helper that can be inlined"
    inliner = _Inliner(helpers, ctx)
    new_target = target.visit(inliner)
    if not inliner.done:
        return module, "the target calls no helper that can be inlined"
    body = list(module.body)
    body[i] = new_target  # type: ignore[assignment]
    module = module.with_changes(body=body)
    removed = []
    for name in sorted(set(inliner.done)):
        rest = [
            n for n in module.body if not (isinstance(n, cst.FunctionDef) and n.name.value == name)
        ]
        still = any(name in _loads(ast.parse(textwrap.dedent(code(n)))) for n in rest)
        if not still and name not in keep:
            module = module.with_changes(body=rest)
            removed.append(name)
    gone = f"; definition removed: {', '.join(removed)}" if removed else ""
    return (
        module,
        f"inlined {len(inliner.done)} call(s) of {', '.join(sorted(set(inliner.done)))}{gone}",
    )


# --- extract --------------------------------------------------------------------------


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


# --- reorder --------------------------------------------------------------------------


def _header_names(func: cst.FunctionDef) -> set[str]:
    """Names evaluated when the ``def`` runs: defaults and annotations."""
    header = func.with_changes(body=cst.IndentedBlock(body=[stmt("pass\n")]))
    tree = ast.parse(code(header))
    fn = tree.body[0]
    exprs: list[ast.AST] = [*fn.args.defaults, *[d for d in fn.args.kw_defaults if d]]  # type: ignore[attr-defined]
    exprs += [a.annotation for a in ast.walk(fn.args) if isinstance(a, ast.arg) and a.annotation]  # type: ignore[attr-defined]
    if fn.returns is not None:  # type: ignore[attr-defined]
        exprs.append(fn.returns)  # type: ignore[attr-defined]
    return {n for e in exprs for n in _loads(e)}


def reorder_definitions(
    module: cst.Module, ctx: Context, stop: int | None = None
) -> tuple[cst.Module, str]:
    """Permute one run of adjacent plain functions (before index ``stop`` when given).

    Precondition: the functions are undecorated (a decorator runs code at definition) and no
    default or annotation of one names another function of the run; functions only look
    their globals up when called, so their order among themselves cannot matter.
    """
    limit = len(module.body) if stop is None else stop
    runs: list[list[int]] = []
    run: list[int] = []
    names = {n.name.value for n in module.body if isinstance(n, cst.FunctionDef)}
    for k in range(limit):
        node = module.body[k]
        if _plain_function(node) and not (_header_names(node) & names):  # type: ignore[arg-type]
            run.append(k)
            continue
        if len(run) > 1:
            runs.append(run)
        run = []
    if len(run) > 1:
        runs.append(run)
    if not runs:
        return module, "no two adjacent functions can swap places"
    chosen = runs[ctx.rng.randrange(len(runs))]
    order = list(chosen)
    while order == chosen:
        ctx.rng.shuffle(order)
    body = list(module.body)
    nodes = [body[k] for k in order]
    lines = [body[k].leading_lines for k in chosen]
    for slot, node, lead in zip(chosen, nodes, lines, strict=True):
        body[slot] = node.with_changes(leading_lines=lead)
    moved = ", ".join(body[k].name.value for k in chosen)  # type: ignore[attr-defined]
    return module.with_changes(body=body), f"new order: {moved}"


def restructure(
    module: cst.Module, entry: str, ctx: Context, keep: set[str], prompt_ends: bool
) -> StructureResult:
    """Inline, extract and reorder where each applies; ``prompt_ends``: the prompt ends in
    the target's signature (completion), so only functions before the target are reordered
    and extracted helpers go after it."""
    result = StructureResult(module)
    steps = [
        ("inline_helper", lambda m: inline_helpers(m, entry, ctx, keep)),
        (
            "reorder_definitions",
            lambda m: reorder_definitions(m, ctx, _entry_index(m, entry) if prompt_ends else None),
        ),
        ("extract_helper", lambda m: extract_helper(m, entry, ctx)),
    ]
    for name, step in steps:
        new, what = step(result.module)
        if new is result.module:
            result.skipped[name] = f"{NOT_APPLICABLE}: {what}"
        else:
            result.module, result.applied[name] = new, what
    return result
