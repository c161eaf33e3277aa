"""Putting a model's function into a copy of the project, exactly where the original was.

libcst parses both the module and the answer; the target definition (found by its scope:
``function`` or ``Class.method``) is replaced by the answer's definition of the same name,
keeping the original's decorators when the answer has none and its blank lines before.
Imports and helper functions the answer adds go to the module level, right before the
target's top-level statement. Nothing else of the module changes (comments, formatting).

Every other statement of the answer (a constant, a class of its own, code at module level,
the other members of a class repeated around a method) is left out, never silently:
:func:`dropped_statements` lists them, and the verdict stores and the report sums them,
so an answer that relied on a module-level helper is visibly a splice loss, not a mystery.
"""

from __future__ import annotations

import libcst as cst


class SpliceError(Exception):
    """The answer cannot be spliced; the message says why (a task failure, not a crash)."""


_SHOWN = 80  # characters of a dropped statement's first line kept in the record


def _first_line(module: cst.Module, node: cst.CSTNode) -> str:
    lines = [ln for ln in module.code_for_node(node).strip().splitlines() if ln.strip()]
    return (lines[0].strip() if lines else "")[:_SHOWN]


def _answer_parts(
    answer: str, name: str
) -> tuple[cst.FunctionDef, list[cst.BaseStatement], list[str]]:
    """The target definition, the statements kept beside it, and the first line of every
    statement left out."""
    try:
        module = cst.parse_module(answer)
    except cst.ParserSyntaxError as exc:
        raise SpliceError(f"SyntaxError: {exc.message} (line {exc.raw_line})") from None
    target: cst.FunctionDef | None = None
    extra: list[cst.BaseStatement] = []
    dropped: list[str] = []
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name and target is None:
            target = stmt
            continue
        if (
            isinstance(stmt, cst.ClassDef)
            and target is None
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            inner = [
                s for s in stmt.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name
            ]
            if inner:  # the answer repeated the class around the method
                target = inner[0]
                owner = stmt.name.value
                dropped += [
                    f"{owner}: {_first_line(module, s)}" for s in stmt.body.body if s is not target
                ]
                continue
        if isinstance(stmt, cst.FunctionDef) or (
            isinstance(stmt, cst.SimpleStatementLine)
            and all(isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body)
        ):
            extra.append(stmt)
        else:
            dropped.append(_first_line(module, stmt))
    if target is None:
        raise SpliceError(f"the answer defines no function {name!r}")
    return target, extra, dropped


def dropped_statements(answer: str, name: str) -> list[str]:
    """The first line of each statement of ``answer`` that the splice leaves out (a class
    member as ``Class: line``); raises :class:`SpliceError` like :func:`splice`."""
    return _answer_parts(answer, name)[2]


def splice(source: str, scope: tuple[str, ...], answer: str) -> str:
    """``source`` with the definition at ``scope`` replaced by the answer's."""
    new_fn, extra, _ = _answer_parts(answer, scope[-1])
    module = cst.parse_module(source)
    body = list(module.body)
    for index, stmt in enumerate(body):
        if len(scope) == 1 and isinstance(stmt, cst.FunctionDef) and stmt.name.value == scope[0]:
            body[index] = _replace(stmt, new_fn)
            break
        if (
            len(scope) == 2
            and isinstance(stmt, cst.ClassDef)
            and stmt.name.value == scope[0]
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            inner = list(stmt.body.body)
            for j, member in enumerate(inner):
                if isinstance(member, cst.FunctionDef) and member.name.value == scope[1]:
                    inner[j] = _replace(member, new_fn)
                    break
            else:
                continue
            body[index] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
            break
    else:
        raise SpliceError(f"{'.'.join(scope)} is not in the module")
    if extra:
        lead = [
            e.with_changes(leading_lines=[cst.EmptyLine()]) if isinstance(e, cst.FunctionDef) else e
            for e in extra
        ]
        body[index:index] = lead
    return module.with_changes(body=body).code


def _replace(old: cst.FunctionDef, new: cst.FunctionDef) -> cst.FunctionDef:
    decorators = new.decorators or old.decorators
    return new.with_changes(decorators=decorators, leading_lines=old.leading_lines)
