"""Where a release (``close()``, ``recycle()``) a rule asks for after its call may be.

The rule (docs/robustapi.md states it once, for readers): a release of the object counts
when it is

* later in the same method **on every path** from the call: not inside a branch the call
  is not also inside — an ``if``/``else`` branch (unless the other branch releases too,
  or the condition only tests the object against ``null``), a ``case``, a ``catch``, a loop
  body, the right side of ``&&``/``||``, a ternary branch, a lambda; early ``return``s
  between the call and the release are not followed;
* in a ``finally`` of a ``try`` around the call, or implied by try-with-resources;
* for ``query()`` the object is the returned cursor, not the database;
* in another method, when the object is a field (``onDestroy()`` recycles what
  ``onCreate()`` obtained: the framework calls both);
* in another method of the snippet that the object is handed to later (``closeAll(in)``,
  whose body closes its parameter), or in a known closing helper
  (``IOUtils.closeQuietly(in)``).

It is not needed when the object belongs to the caller (a parameter, a view of one, or
returned by the method).
"""

from __future__ import annotations

from beyondpass.methods.robustapi.checker.java_model import (
    LOOPS,
    CallSite,
    JavaUnit,
    Node,
    ancestors,
    contains,
    lookup,
    method_scope,
    norm,
    text,
    within_method,
)
from beyondpass.methods.robustapi.checker.knowledge import VIEW_ACCESSORS

#: calls whose returned object (not their receiver) is what a release after them is about
RESULT_RELEASED = frozenset({"query", "rawQuery"})
#: static helpers that release the object they are given
CLOSING_HELPERS = frozenset({"closeQuietly", "closeSilently", "closeStream", "safeClose"})


def on_every_path(release: Node, call: Node, targets: set[str], name: str) -> bool:
    """Is ``release`` (later in the call's method) reached whenever ``call`` was?"""
    scope = method_scope(call)
    child = release
    for a in ancestors(release):
        if a == scope:
            return True
        if not contains(a, call) and _conditional(a, child, targets, name):
            return False
        child = a
    return True


def _conditional(a: Node, child: Node, targets: set[str], name: str) -> bool:
    """Does ``a`` run ``child`` only on some paths?"""
    t = a.type
    if t == "if_statement":
        if child == a.child_by_field_name("condition"):
            return False
        if _null_test(a.child_by_field_name("condition"), targets):
            return False
        other = (
            a.child_by_field_name("alternative")
            if child == a.child_by_field_name("consequence")
            else a.child_by_field_name("consequence")
        )
        return other is None or not _releases(other, targets, name)
    if t in LOOPS:
        return child == a.child_by_field_name("body")
    if t in ("switch_block_statement_group", "switch_rule", "catch_clause", "lambda_expression"):
        return True
    if t == "ternary_expression":
        return child != a.child_by_field_name("condition")
    if t == "binary_expression":
        op = a.child_by_field_name("operator")
        return (
            op is not None and op.type in ("&&", "||") and child == a.child_by_field_name("right")
        )
    return False


def _null_test(cond: Node | None, targets: set[str]) -> bool:
    """``if (c != null)`` around ``c.close()``: on the other path there is nothing to release."""
    flat = "".join(text(cond).split()) if cond is not None else ""
    return any(f"{t}!=null" in flat or f"null!={t}" in flat for t in targets)


def _releases(node: Node, targets: set[str], name: str) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "method_invocation" and text(n.child_by_field_name("name")) == name:
            obj = n.child_by_field_name("object")
            if obj is not None and norm(obj) in targets:
                return True
        stack.extend(n.children)
    return False


def handed_to_releaser(unit: JavaUnit, call: CallSite, targets: set[str], name: str) -> bool:
    """Is an object of ``targets`` passed, after the call, to a closing helper or to a method
    of the snippet that calls ``name()`` on the parameter it arrives in?"""
    scope = method_scope(call.node)
    for other in unit.calls:
        if other.start <= call.start or method_scope(other.node) != scope:
            continue
        positions = [i for i, a in enumerate(other.args) if norm(a) in targets]
        if not positions:
            continue
        if other.method in CLOSING_HELPERS:
            return True
        for method in _methods_named(unit, other.method, len(other.args)):
            params = _param_names(method)
            body = method.child_by_field_name("body")
            if body is not None and any(_releases(body, {params[i]}, name) for i in positions):
                return True
    return False


def _methods_named(unit: JavaUnit, name: str, arity: int) -> list[Node]:
    out = []
    stack = [unit.parsed.root]
    while stack:
        n = stack.pop()
        if (
            n.type == "method_declaration"
            and text(n.child_by_field_name("name")) == name
            and len(_param_names(n)) == arity
        ):
            out.append(n)
        stack.extend(n.children)
    return out


def _param_names(method: Node) -> list[str]:
    params = method.child_by_field_name("parameters")
    if params is None:
        return []
    names = []
    for p in params.named_children:
        if p.type == "formal_parameter":
            n = p.child_by_field_name("name")
            names.append(text(n) if n is not None else "")
    return names


def called_after(unit: JavaUnit, call: CallSite, name: str, result: str | None) -> bool:
    """Is ``name()`` (a release) called on what ``call`` obliges to release, where it counts
    (the rule above), or is the release not this method's job?"""
    targets = release_targets(unit, call, result)
    if _returned_directly(call):
        return True  # ``return db.query(...)``: the caller must release it
    if not targets:
        return False
    if any(_owned_elsewhere(unit, call, t) for t in targets):
        return True
    scope = method_scope(call.node)
    finally_blocks = [
        c
        for a in within_method(call.node)
        if a.type in ("try_statement", "try_with_resources_statement")
        for c in a.named_children
        if c.type == "finally_clause"
    ]
    for other in unit.calls:
        if other.name != name or other.receiver_text not in targets:
            continue
        if method_scope(other.node) != scope:
            # a field released in another method (onDestroy, close()) is released
            decl = lookup(unit, other.receiver_text, other.node)
            if decl is not None and decl.kind == "field":
                return True
            continue
        if any(f.start_byte <= other.start and other.end <= f.end_byte for f in finally_blocks):
            return True
        if other.start > call.end and on_every_path(other.node, call.node, targets, name):
            return True
    if handed_to_releaser(unit, call, targets, name):
        return True
    if name == "close":
        for target in targets:
            for d in unit.decls.get(target, ()):
                if d.kind == "resource":
                    return True
    return False


def release_targets(unit: JavaUnit, call: CallSite, result: str | None) -> set[str]:
    """The objects a release after ``call`` must be made on: its receiver (and what that is a
    view of) and the variable holding its result; for a query, only the returned cursor."""
    if result and call.method in RESULT_RELEASED:
        return {result}  # the cursor a query returns is what must be closed, not the database
    targets = set()
    if call.receiver is not None and call.receiver.type in ("identifier", "field_access"):
        targets.add(call.receiver_text)
        targets |= _origins(unit, call.receiver_text)
    if result:
        targets.add(result)
    return targets


def _origins(unit: JavaUnit, name: str) -> set[str]:
    """Objects ``name`` is a view of: ``ch = out.getChannel()`` gives ``out``."""
    inits = [d.init for d in unit.decls.get(name, ()) if d.init is not None]
    inits += [right for _, right in unit.assignments.get(name, ()) if right is not None]
    out = set()
    for init in inits:
        if (
            init.type == "method_invocation"
            and text(init.child_by_field_name("name")) in VIEW_ACCESSORS
        ):
            obj = init.child_by_field_name("object")
            if obj is not None and obj.type in ("identifier", "field_access"):
                out.add(norm(obj))
    return out


def _owned_elsewhere(unit: JavaUnit, call: CallSite, target: str) -> bool:
    """Whether releasing ``target`` is someone else's job: it is a parameter of the method
    (the caller owns it) or the method returns it (the caller gets the obligation)."""
    decl = lookup(unit, target.split(".")[-1], call.node)
    if decl is not None and decl.kind == "param":
        return True
    scope = method_scope(call.node)
    stack = [scope]
    while stack:
        n = stack.pop()
        if n.type == "return_statement" and n.start_byte > call.start:
            value = next((c for c in n.named_children), None)
            if value is not None and norm(value) == target:
                return True
        stack.extend(n.children)
    return False


def _returned_directly(call: CallSite) -> bool:
    """``return db.query(...)``: the call's value goes straight to the caller."""
    node = call.node
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    return parent is not None and parent.type == "return_statement"
