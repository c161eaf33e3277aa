"""inline_helper: a helper's body copied into the target in place of its call."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context, code, stmt
from beyondpass.methods.obfuseval.structure.common import (
    _FORBIDDEN,
    _body,
    _entry_index,
    _is_docstring,
    _loads,
    _params,
    _plain_function,
    _stores,
    _tree,
)


def _inlinable(module: cst.Module, target: str) -> dict[str, cst.FunctionDef]:
    """Module-level helpers whose body ends in its only ``return e`` (any statements before)."""
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
        # loops, branches and try blocks are fine before the final return: their break and
        # continue stay inside the helper's own loops, and _FORBIDDEN keeps every other
        # return, yield, scope and name-binding form we do not rename out of them
        if not body or not isinstance(body[-1], cst.SimpleStatementLine):
            continue
        tree = _tree(body)
        last = tree.body[-1] if tree.body else None
        if not isinstance(last, ast.Return) or last.value is None:
            continue
        inner = [n for s in tree.body[:-1] for n in ast.walk(s)]
        inner += list(ast.walk(last.value))
        if any(isinstance(n, (*_FORBIDDEN, ast.Match)) for n in inner) or name in _loads(tree):
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
    rebound, with positional parameters only, a body (loops and branches allowed) ending in
    its only return, no nested scope, no match statement, no recursion; the target binds no
    name the helper reads (else the inlined code would see the target's variable) and has no
    ``global``/``nonlocal``.
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
