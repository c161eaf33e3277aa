"""Facts: the conditions known to hold where a call happens.

At a call site the checker collects the conjuncts of every enclosing ``if`` (negated in
``else``), ``while``/``for`` condition, ternary, ``&&``/``||`` operand, ``for (k :
m.keySet())`` (``m.containsKey(k)``), and of every earlier ``if (c)
return/throw/break/continue;`` in an enclosing block (``!c``). A fact stops holding when
something between it and the call undoes it: a consuming call (``it.next()`` uses up
``it.hasNext()``; ``countTokens() >= n`` allows n ``nextToken()`` calls), a loop between the
guard and the call (the call repeats, the guard does not), or an assignment to the variable.
Known sizes and aliases add facts of their own (:func:`known_facts`): ``n`` for
``list.size()`` when ``int n = list.size();`` is never reassigned, ``m.containsKey(k)`` for a
key taken from ``m.keySet().iterator()``, and the size of a local collection filled in plain
view. Whether the facts imply a rule's guard is :mod:`.conditions`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from beyondpass.methods.robustapi.checker.conditions import (
    E,
    conjuncts,
    linear_fact,
    negate,
    to_expr,
)
from beyondpass.methods.robustapi.checker.java_model import (
    LOOPS,
    CallSite,
    JavaUnit,
    Node,
    lookup,
    method_scope,
    norm,
    text,
    within_method,
)
from beyondpass.methods.robustapi.checker.knowledge import CONSUMERS

_EXITS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})


@dataclass(frozen=True)
class Fact:
    expr: E
    pos: int  # byte offset after which the fact holds
    loop_between: bool  # a loop lies between the fact's construct and the call


def _exits(stmt: Node) -> bool:
    """Does this statement always leave the enclosing block (return/throw/break/continue)?"""
    if stmt.type in _EXITS:
        return True
    if stmt.type == "block":
        kids = [c for c in stmt.named_children if c.type not in ("line_comment", "block_comment")]
        return bool(kids) and _exits(kids[-1])
    if stmt.type == "if_statement":
        alt = stmt.child_by_field_name("alternative")
        return alt is not None and _exits(stmt.child_by_field_name("consequence")) and _exits(alt)
    return False


def _condition(node: Node) -> Node | None:
    cond = node.child_by_field_name("condition")
    if cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count:
        return cond.named_children[0]
    return cond


def facts_at(unit: JavaUnit, call: CallSite) -> list[Fact]:
    """Every condition known to hold where ``call`` runs (before kills are applied)."""
    facts: list[Fact] = []
    scope = method_scope(call.node)
    child = call.node
    loop_seen = False
    parent = child.parent
    while parent is not None:
        p = parent.type
        if p in ("if_statement", "ternary_expression"):
            cond = _condition(parent)
            alt = parent.child_by_field_name("alternative")
            if cond is not None and child != cond:
                e = to_expr(cond)
                if alt is not None and child == alt:
                    e = negate(e)
                facts += [Fact(c, int(cond.end_byte), loop_seen) for c in conjuncts(e)]
        elif p in ("while_statement", "for_statement"):
            cond = _condition(parent)
            body = parent.child_by_field_name("body")
            if cond is not None and body is not None and child == body:
                facts += [Fact(c, int(cond.end_byte), loop_seen) for c in conjuncts(to_expr(cond))]
                if p == "for_statement":
                    facts += _descending_facts(parent, loop_seen)
        elif p == "enhanced_for_statement":
            value = parent.child_by_field_name("value")
            name = parent.child_by_field_name("name")
            body = parent.child_by_field_name("body")
            if (
                value is not None
                and name is not None
                and child == body
                and value.type == "method_invocation"
                and text(value.child_by_field_name("name")) == "keySet"
                and value.child_by_field_name("object") is not None
            ):
                owner = norm(value.child_by_field_name("object"))
                fact = ("call", owner, "containsKey", (text(name),))
                facts.append(Fact(fact, int(value.end_byte), loop_seen))
        elif p == "binary_expression":
            op = parent.child_by_field_name("operator").type
            left = parent.child_by_field_name("left")
            if op in ("&&", "||") and child == parent.child_by_field_name("right"):
                e = to_expr(left)
                if op == "||":
                    e = negate(e)
                facts += [Fact(c, int(left.end_byte), loop_seen) for c in conjuncts(e)]
        if p in ("block", "program", "switch_block_statement_group", "constructor_body"):
            for stmt in parent.named_children:
                if stmt.start_byte >= child.start_byte:
                    break
                if stmt.type == "if_statement" and stmt.child_by_field_name("alternative") is None:
                    cond = _condition(stmt)
                    if cond is not None and _exits(stmt.child_by_field_name("consequence")):
                        e = negate(to_expr(cond))
                        facts += [Fact(c, int(stmt.end_byte), loop_seen) for c in conjuncts(e)]
        if p in LOOPS and child != parent.child_by_field_name("condition"):
            loop_seen = True
        if parent == scope:
            break
        child, parent = parent, parent.parent
    return facts


def _descending_facts(loop: Node, loop_seen: bool) -> list[Fact]:
    """``for (int i = x.size() - 1; ...; i--)``: ``i`` never exceeds ``x.size() - 1``."""
    init = loop.child_by_field_name("init")
    update = loop.child_by_field_name("update")
    if init is None or update is None:
        return []
    var = value = None
    if init.type == "local_variable_declaration":
        d = init.child_by_field_name("declarator")
        if d is not None:
            var, value = d.child_by_field_name("name"), d.child_by_field_name("value")
    elif init.type == "assignment_expression":
        var, value = init.child_by_field_name("left"), init.child_by_field_name("right")
    if var is None or value is None:
        return []
    name = norm(var)
    up = norm(update)
    if up not in (f"{name}--", f"--{name}") and not up.startswith(f"{name}-="):
        return []
    # i <= value, i.e. value - i >= 0
    return [Fact(("cmp", "<=", ("atom", name), to_expr(value)), int(init.end_byte), loop_seen)]


def live_facts(unit: JavaUnit, call: CallSite, facts: Iterable[Fact]) -> list[E]:
    """The facts that still hold at the call: consumed, looped-over and overwritten ones go."""
    out = []
    for f in facts:
        budget = _budget(f.expr)
        if budget is not None:
            receiver, consumers, allowed = budget
            if f.loop_between:
                continue
            used = sum(
                1
                for c in unit.calls
                if c.name in consumers
                and c.receiver_text == receiver
                and f.pos <= c.start < call.start
                and method_scope(c.node) == method_scope(call.node)
            )
            if used >= allowed:
                continue
        if _overwritten(unit, call, f):
            continue
        out.append(f.expr)
    return out


def _budget(e: E) -> tuple[str, tuple[str, ...], int] | None:
    """(receiver, consuming calls, how many) for a consumable fact like ``it.hasNext()``."""
    if e[0] == "call" and e[2] in ("hasNext", "hasMoreTokens", "hasMoreElements") and e[1]:
        return e[1], CONSUMERS[e[2]], 1
    if e[0] == "cmp":
        lin = linear_fact(e)
        for form, const in lin:
            keys = list(form)
            if (
                len(keys) == 1
                and form[keys[0]] == 1
                and keys[0][0] == "call"
                and keys[0][2] == "countTokens"
            ):
                return keys[0][1], CONSUMERS["countTokens"], const
    return None


def _overwritten(unit: JavaUnit, call: CallSite, fact: Fact) -> bool:
    names = {a for a in _atoms(fact.expr)}
    for name in names:
        for pos, _ in unit.assignments.get(name, ()):
            if fact.pos <= pos < call.start:
                return True
    return False


def _atoms(e: E) -> Iterable[str]:
    if not isinstance(e, tuple) or not e:
        return
    if e[0] == "atom":
        yield e[1]
    elif e[0] == "call":
        if e[1]:
            yield e[1].split(".", 1)[0].split("(", 1)[0]
    elif e[0] == "instanceof":
        yield e[1]
    else:
        for part in e[1:]:
            if isinstance(part, tuple) and part and isinstance(part[0], str):
                yield from _atoms(part)
            elif isinstance(part, tuple):
                for p in part:
                    if isinstance(p, tuple):
                        yield from _atoms(p)


def known_facts(unit: JavaUnit, call: CallSite) -> list[E]:
    """The facts that hold at ``call``: the live ones with size aliases resolved
    (``n = list.size()``), keys of a ``keySet()`` iteration and sizes of local collections."""
    live = live_facts(unit, call, facts_at(unit, call))
    aliases = _size_aliases(unit)
    facts = [_substitute(f, aliases) for f in live] if aliases else live
    facts += _keys_from_key_set(unit, call)
    size = _known_size(unit, call)
    if size:
        facts.append(("cmp", ">=", ("call", call.receiver_text, "size", ()), ("int", size)))
    return facts


def _keys_from_key_set(unit: JavaUnit, call: CallSite) -> list[E]:
    """``k = it.next()`` with ``it = m.keySet().iterator()``: ``k`` is a key of ``m``."""
    if call.method != "get" or len(call.args) != 1 or call.args[0].type != "identifier":
        return []
    key = text(call.args[0])
    decl = lookup(unit, key, call.node)
    if decl is None or decl.init is None or key in unit.assignments:
        return []
    init = decl.init
    while init.type in ("cast_expression", "parenthesized_expression"):
        init = init.child_by_field_name("value") or init.named_children[-1]
    if init.type != "method_invocation" or text(init.child_by_field_name("name")) != "next":
        return []
    source = init.child_by_field_name("object")
    if source is None or source.type != "identifier":
        return []
    it = lookup(unit, text(source), init)
    origin = norm(it.init) if it is not None and it.init is not None else ""
    if origin.endswith(".keySet().iterator()"):
        return [("call", origin[: -len(".keySet().iterator()")], "containsKey", (key,))]
    return []


_SHRINK = frozenset({"remove", "clear", "removeIf", "removeAll", "retainAll", "poll", "pop"})


def _known_size(unit: JavaUnit, call: CallSite) -> int:
    """A local collection filled in plain view: ``List.of(a, b)`` / ``Arrays.asList(a, b)``
    has that many elements; each ``add``/``put`` statement executed on the way to the call
    (in an enclosing block, not in a branch or loop) adds one, unless something removes."""
    receiver = call.receiver
    if receiver is None or receiver.type != "identifier":
        return 0
    name = text(receiver)
    decl = lookup(unit, name, call.node)
    top_level = decl is not None and decl.kind == "field" and decl.scope.type == "program"
    if decl is None or (decl.kind != "local" and not top_level) or name in unit.assignments:
        return 0
    scope = method_scope(call.node)
    size = 0
    init = decl.init
    if init is not None and init.type == "method_invocation":
        callee = (
            norm(init.child_by_field_name("object")) + "." + text(init.child_by_field_name("name"))
        )
        if callee in ("Arrays.asList", "List.of", "Set.of", "Collections.singletonList"):
            args = init.child_by_field_name("arguments")
            size = len(args.named_children) if args is not None else 0
    enclosing = {a.id for a in within_method(call.node)} | {scope.id}
    for other in unit.calls:
        if other.receiver_text != name or method_scope(other.node) != scope:
            continue
        if not decl.start < other.start < call.start:
            continue
        if other.method in _SHRINK:
            return 0
        if other.method in ("add", "put", "push", "offer", "addLast", "addFirst"):
            statement = other.node.parent
            if (
                statement is not None
                and statement.type == "expression_statement"
                and statement.parent is not None
                and statement.parent.id in enclosing
            ):
                size += 1
    return size


def _size_aliases(unit: JavaUnit) -> dict[str, E]:
    """``int n = list.size();`` (never reassigned): ``n`` stands for ``list.size()``."""
    out = {}
    for name, decls in unit.decls.items():
        if len(decls) != 1 or name in unit.assignments:
            continue
        init = decls[0].init
        if init is not None and init.type in ("method_invocation", "field_access"):
            e = to_expr(init)
            if (e[0] == "call" and e[2] in ("size", "length") and not e[3]) or (
                e[0] == "atom" and e[1].endswith(".length")
            ):
                out[name] = e
    return out


def _substitute(e: E, aliases: dict[str, E]) -> E:
    if not isinstance(e, tuple) or not e:
        return e
    if e[0] == "atom" and e[1] in aliases:
        return aliases[e[1]]
    if e[0] in ("cmp", "arith"):
        return (e[0], e[1], _substitute(e[2], aliases), _substitute(e[3], aliases))
    if e[0] == "not":
        return ("not", _substitute(e[1], aliases))
    if e[0] in ("and", "or"):
        return (e[0], tuple(_substitute(p, aliases) for p in e[1]))
    return e
