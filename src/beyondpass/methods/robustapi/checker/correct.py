"""beyondpass's semantics: a call site violates a rule only when its usage breaks the rule.

How each rule item reads at a call site (try/catch, guards, ``IF``/``LOOP``, calls before
and after the *focal* call, overloads) is stated once, in docs/robustapi.md ("How every
rule is read"); this module walks a rule's items at a call site and collects the reasons
it is broken, with :mod:`.facts` (what holds where the call happens), :mod:`.try_blocks`
(the try and handlers a rule asks for), :mod:`.overloads` (which overload a call is) and
:mod:`.releases` (where a ``close()``/``recycle()`` counts). All rules of an API must hold
(RobustAPI's checker builds every pattern as required); each rule that does not is
reported with the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass

from beyondpass.methods.robustapi.checker import conditions as C
from beyondpass.methods.robustapi.checker.facts import known_facts
from beyondpass.methods.robustapi.checker.java_model import (
    LOOPS,
    CallSite,
    JavaUnit,
    lookup,
    method_scope,
    norm,
    text,
    within_method,
)
from beyondpass.methods.robustapi.checker.knowledge import (
    PRODUCES,
    is_subtype,
    simple_name,
)
from beyondpass.methods.robustapi.checker.overloads import other_overload_reasons
from beyondpass.methods.robustapi.checker.releases import called_after, release_targets
from beyondpass.methods.robustapi.checker.rules import Block, Call, Rule, RuleSet, guard_text
from beyondpass.methods.robustapi.checker.try_blocks import check_try


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
    facts = known_facts(unit, call)
    out = []
    for rule in rules:
        reasons = _check(unit, call, rule, facts)
        if reasons:
            out.append(Finding(rule, call, tuple(reasons)))
    return out


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
            reasons += check_try(call, rule, block)
        elif block.kind in ("IF", "LOOP") and not focal.guarded:
            wanted = ("if_statement", "ternary_expression") if block.kind == "IF" else tuple(LOOPS)
            if not any(a.type in wanted for a in within_method(call.node)):
                reasons.append(f"not inside {'an if' if block.kind == 'IF' else 'a loop'}")
        elif block.kind in ("CATCH", "FINALLY", "ELSE"):
            wanted_kind = {"CATCH": "catch_clause", "FINALLY": "finally_clause", "ELSE": "else"}
            if not any(a.type == wanted_kind[block.kind] for a in within_method(call.node)):
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
            if not called_after(unit, call, node.key, result):
                targets = ", ".join(sorted(release_targets(unit, call, result)))
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
    for loop in within_method(call.node):
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
