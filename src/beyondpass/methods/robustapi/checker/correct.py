"""beyondpass's semantics: a call site violates a rule only when its usage breaks the rule.

How each rule item reads at a call site (try/catch, guards, ``IF``/``LOOP``, calls before
and after the *focal* call, overloads) is stated once, in docs/robustapi.md ("How every
rule is read"); this module implements it, with :mod:`.overloads` (which overload a call
is) and :mod:`.releases` (where a ``close()``/``recycle()`` counts). All rules of an API
must hold (RobustAPI's checker builds every pattern as required); each rule that does not
is reported with the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass

from beyondpass.methods.robustapi.checker import conditions as C
from beyondpass.methods.robustapi.checker.facts import facts_at, live_facts
from beyondpass.methods.robustapi.checker.java_model import (
    LOOPS,
    CallSite,
    JavaUnit,
    Node,
    ancestors,
    lookup,
    method_scope,
    norm,
    text,
)
from beyondpass.methods.robustapi.checker.knowledge import (
    API_THROWS,
    PRODUCES,
    VIEW_ACCESSORS,
    catch_handles,
    is_subtype,
    simple_name,
)
from beyondpass.methods.robustapi.checker.overloads import other_overload_reasons
from beyondpass.methods.robustapi.checker.releases import (
    RESULT_RELEASED,
    handed_to_releaser,
    on_every_path,
)
from beyondpass.methods.robustapi.checker.rules import Block, Call, Rule, RuleSet, guard_text


@dataclass(frozen=True)
class Finding:
    """One rule broken at one call site."""

    rule: Rule
    call: CallSite
    reasons: tuple[str, ...]


def rules_for(
    ruleset: RuleSet, unit: JavaUnit, call: CallSite, hint: tuple[str, str] | None
) -> list[Rule]:
    """The rules covering a call site: same method, receiver of the rule's class or a
    subtype. A receiver whose type the snippet does not reveal is taken to be of the
    question's API class when the call is that API's method (``hint``)."""
    if call.static_on is not None:
        return []
    if call.is_new:
        return [r for r in ruleset.rules if r.method == r.cls == call.method]
    candidates = [r for r in ruleset.rules if r.method == call.method and r.cls != r.method]
    if not candidates:
        return []
    if call.type is not None:
        return [r for r in candidates if is_subtype(call.type, r.cls, unit.hierarchy)]
    if hint is not None and call.method == hint[1]:
        call.type_assumed = True
        return [r for r in candidates if r.cls == hint[0]]
    return []


def check_call(unit: JavaUnit, call: CallSite, rules: list[Rule]) -> list[Finding]:
    facts = _facts(unit, call)
    out = []
    for rule in rules:
        reasons = _check(unit, call, rule, facts)
        if reasons:
            out.append(Finding(rule, call, tuple(reasons)))
    return out


# -- facts with aliases ------------------------------------------------------------------------


def _facts(unit: JavaUnit, call: CallSite) -> list[C.E]:
    live = live_facts(unit, call, facts_at(unit, call))
    aliases = _size_aliases(unit)
    facts = [_substitute(f, aliases) for f in live] if aliases else live
    facts += _keys_from_key_set(unit, call)
    size = _known_size(unit, call)
    if size:
        facts.append(("cmp", ">=", ("call", call.receiver_text, "size", ()), ("int", size)))
    return facts


def _keys_from_key_set(unit: JavaUnit, call: CallSite) -> list[C.E]:
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
    enclosing = {a.id for a in _within_method(call.node)} | {scope.id}
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


def _size_aliases(unit: JavaUnit) -> dict[str, C.E]:
    """``int n = list.size();`` (never reassigned): ``n`` stands for ``list.size()``."""
    out = {}
    for name, decls in unit.decls.items():
        if len(decls) != 1 or name in unit.assignments:
            continue
        init = decls[0].init
        if init is not None and init.type in ("method_invocation", "field_access"):
            e = C.to_expr(init)
            if (e[0] == "call" and e[2] in ("size", "length") and not e[3]) or (
                e[0] == "atom" and e[1].endswith(".length")
            ):
                out[name] = e
    return out


def _substitute(e: C.E, aliases: dict[str, C.E]) -> C.E:
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


# -- one rule at one call site -----------------------------------------------------------------


def _path_to(
    nodes: tuple[Block | Call, ...] | list[Block | Call], focal: Call
) -> list[Block] | None:
    for node in nodes:
        if node is focal:
            return []
        if isinstance(node, Block):
            for part in [node.body, *[h.body for h in node.handlers]]:
                inner = _path_to(part, focal)
                if inner is not None:
                    owner = (
                        node
                        if part is node.body
                        else next(h for h in node.handlers if h.body is part)
                    )
                    return [owner, *inner] if owner is node else [node, owner, *inner]
    return None


def _check(unit: JavaUnit, call: CallSite, rule: Rule, facts: list[C.E]) -> list[str]:
    focal = rule.focal
    if focal is None:
        return []
    overload = other_overload_reasons(unit, call, rule, focal)
    if overload is not None:
        return overload
    reasons: list[str] = []
    path = _path_to(rule.structure, focal) or []
    result = result_variable(call)
    for i, block in enumerate(path):
        if block.kind == "TRY" and (
            i + 1 >= len(path) or path[i + 1].kind not in ("CATCH", "FINALLY")
        ):
            reasons += _check_try(unit, call, rule, block)
        elif block.kind in ("IF", "LOOP") and not focal.guarded:
            wanted = ("if_statement", "ternary_expression") if block.kind == "IF" else tuple(LOOPS)
            if not any(a.type in wanted for a in _within_method(call.node)):
                reasons.append(f"not inside {'an if' if block.kind == 'IF' else 'a loop'}")
        elif block.kind in ("CATCH", "FINALLY", "ELSE"):
            wanted_kind = {"CATCH": "catch_clause", "FINALLY": "finally_clause", "ELSE": "else"}
            if not any(a.type == wanted_kind[block.kind] for a in _within_method(call.node)):
                reasons.append(f"not inside a {block.kind.lower()} block")
    if focal.guarded:
        goal = C.instantiate(focal.guard, call, result)
        if not C.implies(facts, goal) and not _nonempty_source(unit, call, goal, facts):
            reasons.append(f"guard {guard_text(focal.guard)} is not checked before the call")
        else:
            lower = C.index_lower_bound_needed(goal)
            if lower is not None and not C.holds(facts, lower):
                reasons.append("index may be negative: the collection is not known to be non-empty")
    items = list(rule.items)
    at = next(i for i, it in enumerate(items) if it is focal)
    for item in items[:at]:
        if (
            isinstance(item, Call)
            and not _produces_operand(item, rule, focal)
            and not _called_before(unit, call, item)
        ):
            reasons.append(f"{item.key}() is not called on {call.receiver_text} before it")
    for node in _after_focal(rule.structure, focal):
        if isinstance(node, Call):
            if not _called_after(unit, call, node.key, result):
                targets = ", ".join(sorted(_targets(unit, call, result)))
                reasons.append(f"{node.key}() is not called on {targets or 'its result'} after it")
        elif node.kind == "IF" and not _result_checked(unit, call, result, facts):
            reasons.append("the returned value is not checked")
        elif node.kind in ("LOOP", "TRY") and not _structure_after(call, node.kind):
            reasons.append(f"no {node.kind.lower()} after it")
    return reasons


_ITERATOR_OF = {"hasNext": ("iterator", "listIterator")}
_VIEWS = ("values()", "keySet()", "entrySet()")


def _nonempty_source(unit: JavaUnit, call: CallSite, goal: C.E, facts: list[C.E]) -> bool:
    """``it.hasNext()`` also holds for the first ``next()`` of an iterator over a collection
    known to be non-empty (``if (list.isEmpty()) return; list.iterator().next()``), and for
    the k-th when the collection is known to have at least k elements."""
    if goal[0] != "call" or goal[2] not in _ITERATOR_OF or call.receiver is None:
        return False
    source_node = call.receiver
    start = call.receiver.start_byte
    if call.receiver.type == "identifier":
        decl = lookup(unit, text(call.receiver), call.node)
        if decl is None or decl.init is None or call.receiver_text in unit.assignments:
            return False
        source_node, start = decl.init, decl.start
    if source_node.type != "method_invocation":
        return False
    if text(source_node.child_by_field_name("name")) not in _ITERATOR_OF[goal[2]]:
        return False
    owner = source_node.child_by_field_name("object")
    if owner is None:
        return False
    collection = norm(owner)
    for view in _VIEWS:
        if collection.endswith("." + view):
            collection = collection[: -len(view) - 1]
    for loop in _within_method(call.node):
        if loop.type in LOOPS and not loop.start_byte <= start:
            return False  # the call repeats; the size fact does not grow
    used = sum(
        1
        for c in unit.calls
        if c.method == "next"
        and c.receiver_text == call.receiver_text
        and start < c.start < call.start
    )
    return C.holds(facts, ({("size", collection): 1}, used + 1))


def _within_method(node: Node) -> list[Node]:
    scope = method_scope(node)
    out = []
    for a in ancestors(node):
        if a == scope:
            break
        out.append(a)
    return out


def _after_focal(structure: tuple[Block | Call, ...], focal: Call) -> list[Block | Call]:
    """Items after the focal call that do not enclose it, in rule order."""
    flat: list[Block | Call] = []
    found = False

    def walk(nodes: list[Block | Call] | tuple[Block | Call, ...]) -> None:
        nonlocal found
        for node in nodes:
            if node is focal:
                found = True
                continue
            if isinstance(node, Call):
                if found:
                    flat.append(node)
                continue
            encloses = _path_to([node], focal) is not None
            if found and not encloses:
                flat.append(node)
                continue
            walk(node.body)
            for h in node.handlers:
                walk(h.body)

    walk(structure)
    return flat


# -- try / catch -------------------------------------------------------------------------------


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


def _check_try(unit: JavaUnit, call: CallSite, rule: Rule, block: Block) -> list[str]:
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


# -- calls before and after --------------------------------------------------------------------


def _produces_operand(item: Call, rule: Rule, focal: Call) -> bool:
    """Does this rule item only say where the receiver or an argument came from?"""
    operand_types = {rule.cls, *(simple_name(p) for p in focal.params)}
    if item.is_new:
        return simple_name(item.name) in operand_types
    produced = PRODUCES.get(item.name)
    return produced == "<class>" or produced in operand_types


def _same_object(a: str, b: str) -> bool:
    return a == b or {a, b} <= {"this", "super"}


def _called_before(unit: JavaUnit, call: CallSite, item: Call) -> bool:
    scope = method_scope(call.node)
    for other in unit.calls:
        if other.start >= call.start or other.name != item.key:
            continue
        if method_scope(other.node) == scope and _same_object(
            other.receiver_text, call.receiver_text
        ):
            return True
    return False


def result_variable(call: CallSite) -> str | None:
    """The variable the call's value is stored in (``T v = call`` / ``v = call``)."""
    node = call.node
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "variable_declarator" and parent.child_by_field_name("value") == node:
        return text(parent.child_by_field_name("name"))
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        return norm(parent.child_by_field_name("left"))
    if parent.type == "resource" and parent.child_by_field_name("value") == node:
        name = parent.child_by_field_name("name")
        return text(name) if name is not None else None
    return None


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


def _targets(unit: JavaUnit, call: CallSite, result: str | None) -> set[str]:
    if result and call.method in RESULT_RELEASED:
        return {result}  # the cursor a query returns is what must be closed, not the database
    targets = set()
    if call.receiver is not None and call.receiver.type in ("identifier", "field_access"):
        targets.add(call.receiver_text)
        targets |= _origins(unit, call.receiver_text)
    if result:
        targets.add(result)
    return targets


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


def _called_after(unit: JavaUnit, call: CallSite, name: str, result: str | None) -> bool:
    targets = _targets(unit, call, result)
    if _returned_directly(call):
        return True  # ``return db.query(...)``: the caller must release it
    if not targets:
        return False
    if any(_owned_elsewhere(unit, call, t) for t in targets):
        return True
    scope = method_scope(call.node)
    finally_blocks = [
        c
        for a in _within_method(call.node)
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


def _returned_directly(call: CallSite) -> bool:
    node = call.node
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    return parent is not None and parent.type == "return_statement"


def _same_value_vars(unit: JavaUnit, call: CallSite) -> set[str]:
    """Variables holding the value of an identical call made earlier (``v = m.get(k)``
    before ``if (v != null) use(m.get(k))``)."""
    wanted = norm(call.node)
    out = set()
    for name, decls in unit.decls.items():
        if any(d.init is not None and norm(d.init) == wanted for d in decls):
            out.add(name)
    for name, assigned in unit.assignments.items():
        if any(right is not None and norm(right) == wanted for _, right in assigned):
            out.add(name)
    return out


def _result_checked(unit: JavaUnit, call: CallSite, result: str | None, facts: list[C.E]) -> bool:
    node = call.node
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    if parent is not None and parent.type in ("binary_expression", "instanceof_expression"):
        op = parent.child_by_field_name("operator")
        if parent.type == "instanceof_expression" or (op is not None and op.type in C.COMPARISONS):
            return True
    if parent is not None and parent.type == "argument_list":
        wrapper = parent.parent
        if wrapper is not None and wrapper.type == "method_invocation":
            wname = text(wrapper.child_by_field_name("name"))
            if wname in ("ofNullable", "isNull", "nonNull", "isEmpty", "requireNonNullElse"):
                return True
    same = _same_value_vars(unit, call)
    if same and any(
        f[0] == "cmp" and any(side == ("atom", v) for side in (f[2], f[3]) for v in same)
        for f in facts
    ):
        return True
    if call.method == "get" and call.args:
        key = norm(call.args[0])
        if any(
            f[0] == "call"
            and f[1] == call.receiver_text
            and f[2] in ("containsKey", "has")
            and f[3] == (key,)
            for f in facts
        ):
            return True
    if result:
        scope = method_scope(call.node)
        stack = [scope]
        while stack:
            n = stack.pop()
            if n.end_byte <= call.end:
                continue
            if n.start_byte > call.end and n.type in ("binary_expression", "instanceof_expression"):
                op = n.child_by_field_name("operator")
                if n.type == "instanceof_expression" or (
                    op is not None and op.type in C.COMPARISONS
                ):
                    sides = [n.child_by_field_name("left"), n.child_by_field_name("right")]
                    if any(s is not None and norm(s) == result for s in sides):
                        return True
            if n.start_byte > call.end and n.type == "method_invocation":
                mname = text(n.child_by_field_name("name"))
                args = n.child_by_field_name("arguments")
                if (
                    mname in ("isNull", "nonNull", "isEmpty", "ofNullable")
                    and args is not None
                    and any(norm(a) == result for a in args.named_children)
                ):
                    return True
            stack.extend(n.children)
    return False


def _structure_after(call: CallSite, kind: str) -> bool:
    scope = method_scope(call.node)
    wanted = LOOPS if kind == "LOOP" else {"try_statement", "try_with_resources_statement"}
    stack = [scope]
    while stack:
        n = stack.pop()
        if n.start_byte > call.end and n.type in wanted:
            return True
        stack.extend(n.children)
    return False
