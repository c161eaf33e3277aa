"""Whether a call sits in the ``try`` a rule asks for, with a handler for its exception.

A rule ``TRY, call(), END_BLOCK, CATCH(E), END_BLOCK`` holds at a call site when a ``try``
around the call (in its method) has a handler that meets ``CATCH(E)`` (``E``, a supertype,
or a narrower type that still covers what the API throws: :func:`.knowledge.catch_handles`);
a ``throws`` clause of the method does not count, since it hands the exception to a caller
the snippet does not have. ``FINALLY`` asks for a ``finally`` block around the call.
"""

from __future__ import annotations

from beyondpass.methods.robustapi.checker.java_model import (
    CallSite,
    Node,
    ancestors,
    method_scope,
    text,
)
from beyondpass.methods.robustapi.checker.knowledge import API_THROWS, catch_handles, simple_name
from beyondpass.methods.robustapi.checker.rules import Block, Rule


def check_try(call: CallSite, rule: Rule, block: Block) -> list[str]:
    """Why ``call`` does not meet the rule's TRY ``block`` and its handlers (none: it does)."""
    caught, throws, has_finally = handlers_at(call)
    thrown = API_THROWS.get((rule.cls, rule.method), ())
    reasons = []
    for handler in block.handlers:
        if handler.kind == "CATCH" and handler.catch_type:
            need = simple_name(handler.catch_type)
            # ``throws`` passes the exception to a caller the snippet does not have: the
            # rule asks for the call inside a try that catches it
            if not any(catch_handles(c, need, thrown) for c in caught):
                where = f"caught {', '.join(caught)}" if caught else "not inside a try"
                if throws:
                    where += f"; the method only declares throws {', '.join(throws)}"
                reasons.append(f"{need} is not handled ({where})")
        elif handler.kind == "FINALLY" and not has_finally:
            reasons.append("not inside a try with a finally block")
    return reasons


def handlers_at(call: CallSite) -> tuple[list[str], list[str], bool]:
    """(types caught around the call, types its method declares in ``throws``, finally?)."""
    caught: list[str] = []
    has_finally = False
    child = call.node
    scope = method_scope(call.node)
    for a in ancestors(call.node):
        if a.type in ("try_statement", "try_with_resources_statement"):
            body = a.child_by_field_name("body")
            resources = a.child_by_field_name("resources")
            if child == body or (resources is not None and child == resources):
                for clause in a.named_children:
                    if clause.type == "catch_clause":
                        caught += catch_types(clause)
                    elif clause.type == "finally_clause":
                        has_finally = True
        if a == scope:
            break
        child = a
    throws: list[str] = []
    if scope.type in ("method_declaration", "constructor_declaration"):
        for part in scope.named_children:
            if part.type == "throws":
                throws += [simple_name(text(t)) for t in part.named_children]
    return caught, throws, has_finally


def catch_types(clause: Node) -> list[str]:
    param = next((c for c in clause.named_children if c.type == "catch_formal_parameter"), None)
    if param is None:
        return []
    ctype = next((c for c in param.named_children if c.type == "catch_type"), None)
    if ctype is None:
        return []
    return [simple_name(text(t)) for t in ctype.named_children]
