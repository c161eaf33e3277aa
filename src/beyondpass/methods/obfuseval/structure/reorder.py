"""reorder_definitions: adjacent independent functions change places."""

from __future__ import annotations

import ast

import libcst as cst

from beyondpass.methods.obfuseval.rewrite_base import Context, code, stmt
from beyondpass.methods.obfuseval.structure.common import (
    _loads,
    _plain_function,
)


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
