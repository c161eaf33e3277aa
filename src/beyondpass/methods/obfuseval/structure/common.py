"""What the structure transforms share: name analysis on ``ast``, function shapes."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import code

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
