"""Guards: which conditions hold where a call happens, and whether they imply a rule's guard.

Conditions become small tuples (``("call", "it", "hasNext", ())``, ``("cmp", "<", a, b)``,
``("not", e)``...). At a call site the checker collects *facts*: the conjuncts of every
enclosing ``if`` (negated in ``else``), ``while``/``for`` condition, ternary, ``&&``/``||``
operand, ``for (k : m.keySet())`` (``m.containsKey(k)``), and of every earlier
``if (c) return/throw/break/continue;`` in an enclosing block (``!c``). A fact stops holding
when something between it and the call undoes it: a consuming call (``it.next()`` uses up
``it.hasNext()``; ``countTokens() >= n`` allows n ``nextToken()`` calls), a loop between the
guard and the call (the call repeats, the guard does not), or an assignment to the variable.

Implication is deliberately simple and sound: a fact implies a goal when they are the same
expression, by the null-check equivalences below, or, for integer bounds, when both are the
same linear form over the same atoms (``i < list.size()`` implies ``arg0 < rcv.size()`` with
``arg0 = i``; ``!list.isEmpty()`` implies ``0 < list.size()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from beyondpass.methods.robustapi.checker import rules as R
from beyondpass.methods.robustapi.checker.java_model import (
    LOOPS,
    CallSite,
    JavaUnit,
    Node,
    method_scope,
    norm,
    text,
)
from beyondpass.methods.robustapi.checker.knowledge import CONSUMERS, simple_name

E = tuple[Any, ...]
_CMP = {"==", "!=", "<", "<=", ">", ">="}
_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_MIRROR = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_EXITS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})


def to_expr(node: Node) -> E:
    """A Java expression node as an expression tuple."""
    t = node.type
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return to_expr(node.named_children[0])
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        operand = node.child_by_field_name("operand")
        if op is not None and operand is not None:
            if op.type == "!":
                return ("not", to_expr(operand))
            if op.type == "-" and operand.type == "decimal_integer_literal":
                return ("int", -_int(operand))
    if t == "binary_expression":
        op = node.child_by_field_name("operator").type
        left = to_expr(node.child_by_field_name("left"))
        right = to_expr(node.child_by_field_name("right"))
        if op in ("&&", "||"):
            kind = "and" if op == "&&" else "or"
            parts: list[E] = []
            for side in (left, right):
                parts.extend(side[1] if side[0] == kind else [side])
            return (kind, tuple(parts))
        if op in _CMP:
            return ("cmp", op, left, right)
        if op in ("+", "-"):
            return ("arith", op, left, right)
    if t == "method_invocation":
        obj = node.child_by_field_name("object")
        args = node.child_by_field_name("arguments")
        arg_texts = tuple(norm(a) for a in (args.named_children if args is not None else []))
        return (
            "call",
            norm(obj) if obj is not None else None,
            text(node.child_by_field_name("name")),
            arg_texts,
        )
    if t == "instanceof_expression":
        right = node.child_by_field_name("right")
        return (
            "instanceof",
            norm(node.child_by_field_name("left")),
            simple_name(text(right)) if right is not None else "",
        )
    if t == "null_literal":
        return ("null",)
    if t in ("true", "false"):
        return ("bool", t == "true")
    if t == "decimal_integer_literal":
        return ("int", _int(node))
    return ("atom", norm(node))


def _int(node: Node) -> int:
    try:
        return int(text(node).rstrip("lL").replace("_", ""))
    except ValueError:
        return 0


def negate(e: E) -> E:
    kind = e[0]
    if kind == "not":
        return e[1]
    if kind == "and":
        return ("or", tuple(negate(p) for p in e[1]))
    if kind == "or":
        return ("and", tuple(negate(p) for p in e[1]))
    if kind == "cmp":
        return ("cmp", _FLIP[e[1]], e[2], e[3])
    if kind == "bool":
        return ("bool", not e[1])
    return ("not", e)


def conjuncts(e: E) -> list[E]:
    return [c for p in e[1] for c in conjuncts(p)] if e[0] == "and" else [e]


# -- rule guards instantiated at a call site -------------------------------------------------


def instantiate(guard: R.GuardExpr, call: CallSite, result: str | None) -> E:
    """The rule's guard with ``rcv``/``argN``/``ret`` replaced by the call's expressions."""
    if isinstance(guard, R.Lit):
        if guard.value is None:
            return ("null",)
        if isinstance(guard.value, bool):
            return ("bool", guard.value)
        return ("int", guard.value)
    if isinstance(guard, R.Ref):
        if guard.var == "rcv":
            base = call.receiver_text
            base_expr: E = to_expr(call.receiver) if call.receiver is not None else ("atom", "this")
        elif guard.var == "ret":
            base = result or "<result>"
            base_expr = ("atom", base)
        else:
            index = int(guard.var[3:])
            arg = call.args[index] if index < len(call.args) else None
            base = norm(arg) if arg is not None else f"<{guard.var}>"
            base_expr = to_expr(arg) if arg is not None else ("atom", base)
        expr = base_expr
        for name, args in guard.calls:
            arg_texts = tuple(_as_text(instantiate(a, call, result)) for a in args)
            expr = ("call", base, name, arg_texts)
            base = f"{base}.{name}({','.join(arg_texts)})"
        return expr
    if isinstance(guard, R.Not):
        return negate(instantiate(guard.operand, call, result))
    if isinstance(guard, R.BoolOp):
        return (
            "and" if guard.op == "&&" else "or",
            tuple(instantiate(o, call, result) for o in guard.operands),
        )
    if isinstance(guard, R.Compare):
        return (
            "cmp",
            guard.op,
            instantiate(guard.left, call, result),
            instantiate(guard.right, call, result),
        )
    return (
        "arith",
        guard.op,
        instantiate(guard.left, call, result),
        instantiate(guard.right, call, result),
    )


def _as_text(e: E) -> str:
    if e[0] == "atom":
        return e[1]
    if e[0] == "int":
        return str(e[1])
    if e[0] == "call":
        return f"{e[1] + '.' if e[1] else ''}{e[2]}({','.join(e[3])})"
    return repr(e)


# -- facts at a call site --------------------------------------------------------------------


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


# -- implication ------------------------------------------------------------------------------

Linear = dict[E, int]


def _linear(e: E) -> tuple[Linear, int] | None:
    """``e`` as sum(coef * atom) + const, or None when it is not linear."""
    if e[0] == "int":
        return {}, e[1]
    if e[0] == "arith":
        left, right = _linear(e[2]), _linear(e[3])
        if left is None or right is None:
            return None
        sign = 1 if e[1] == "+" else -1
        form = dict(left[0])
        for k, v in right[0].items():
            form[k] = form.get(k, 0) + sign * v
        return {k: v for k, v in form.items() if v}, left[1] + sign * right[1]
    if e[0] in ("atom", "call"):
        if e[0] == "call" and e[2] == "length" and not e[3]:
            return {("size", e[1]): 1}, 0  # s.length() and s.size() are both sizes
        if e[0] == "call" and e[2] == "size" and not e[3]:
            return {("size", e[1]): 1}, 0
        if e[0] == "atom" and e[1].endswith(".length"):
            return {("size", e[1][:-7]): 1}, 0
        return {e: 1}, 0
    return None


def linear_fact(e: E) -> list[tuple[Linear, int]]:
    """Constraints ``form >= const`` a fact establishes (integers)."""
    if e[0] == "not" and e[1][0] == "call" and e[1][2] == "isEmpty" and e[1][1]:
        return [({("size", e[1][1]): 1}, 1)]
    if e[0] != "cmp":
        return []
    op, left, right = e[1], _linear(e[2]), _linear(e[3])
    if left is None or right is None:
        return []
    diff: Linear = dict(left[0])
    for k, v in right[0].items():
        diff[k] = diff.get(k, 0) - v
    diff = {k: v for k, v in diff.items() if v}
    const = right[1] - left[1]  # left - right  (op)  0  <=>  diff (op) const
    neg = {k: -v for k, v in diff.items()}
    if op == ">":
        return [(diff, const + 1)]
    if op == ">=":
        return [(diff, const)]
    if op == "<":
        return [(neg, -const + 1)]
    if op == "<=":
        return [(neg, -const)]
    if op == "==":
        return [(diff, const), (neg, -const)]
    if op == "!=" and const == 0 and len(diff) == 1:
        ((key, coef),) = diff.items()
        if key[0] == "size":  # size != 0 means size >= 1
            return [({key: 1}, 1)] if coef > 0 else [({key: 1}, 1)]
    return []


def _same_null_check(goal_subject: str, fact: E) -> bool:
    if fact[0] == "cmp" and fact[1] == "!=":
        sides = {fact[2], fact[3]}
        return ("null",) in sides and any(
            s[0] != "null" and _text_of(s) == goal_subject for s in sides
        )
    if fact[0] == "instanceof":
        return fact[1] == goal_subject
    return fact[0] == "call" and fact[2] in ("nonNull", "isNotNull") and fact[3] == (goal_subject,)


def _text_of(e: E) -> str:
    if e[0] == "atom":
        return e[1]
    if e[0] == "call":
        return f"{e[1] + '.' if e[1] else ''}{e[2]}({','.join(e[3])})"
    return ""


def _key_presence(subject: E, fact: E) -> bool:
    """``m.containsKey(k)`` / ``o.has(k)`` guarantee ``m.get(k)`` is present."""
    return (
        subject[0] == "call"
        and subject[2] == "get"
        and len(subject[3]) == 1
        and fact[0] == "call"
        and fact[1] == subject[1]
        and fact[2] in ("containsKey", "has")
        and fact[3] == subject[3]
    )


def implies(facts: list[E], goal: E) -> bool:
    """Do the facts establish the goal? (sound, not complete; see the module docstring)"""
    kind = goal[0]
    if kind == "bool":
        return bool(goal[1])
    if kind == "and":
        return all(implies(facts, g) for g in goal[1])
    if kind == "or":
        return any(implies(facts, g) for g in goal[1])
    if goal in facts:
        return True
    if kind == "cmp" and goal[1] == "!=" and ("null",) in (goal[2], goal[3]):
        subject = goal[2] if goal[3] == ("null",) else goal[3]
        subject_text = _text_of(subject)
        return any(_same_null_check(subject_text, f) or _key_presence(subject, f) for f in facts)
    if kind == "call" and goal[2] in ("hasMoreTokens", "hasMoreElements") and not goal[3]:
        same = {("call", goal[1], "hasMoreTokens", ()), ("call", goal[1], "hasMoreElements", ())}
        count = {("call", goal[1], "countTokens", ()): 1}
        return any(f in same for f in facts) or holds(facts, (count, 1))
    if kind == "call" and goal[2] == "isJsonPrimitive":
        return any(
            f[0] == "instanceof" and f[1] == goal[1] and f[2] == "JsonPrimitive" for f in facts
        )
    if kind == "cmp" and goal[1] == "<" and _random_below(goal[2], goal[3]):
        return True
    if kind == "cmp":
        wanted = linear_fact(goal)
        if not wanted:
            return False
        have = [c for f in facts for c in linear_fact(f)]
        return all(any(form == w and const >= wc for form, const in have) for w, wc in wanted)
    return False


def _random_below(index: E, bound: E) -> bool:
    """``random.nextInt(list.size())`` is below ``list.size()`` by its contract."""
    return (
        index[0] == "call"
        and index[2] == "nextInt"
        and len(index[3]) == 1
        and index[3][0] == _text_of(bound)
    )


def index_lower_bound_needed(goal: E) -> tuple[Linear, int] | None:
    """``get(x.size() - k)`` needs ``x.size() >= k``: the rule's upper bound holds trivially
    there, but the index is negative when the collection is empty."""
    if goal[0] != "cmp" or goal[1] != "<":
        return None
    index = _linear(goal[2])
    bound = _linear(goal[3])
    if index is None or bound is None:
        return None
    for key, coef in index[0].items():
        if key[0] == "size" and coef == 1 and bound[0] == {key: 1} and index[1] < 0:
            return {key: 1}, -index[1]
    return None


def holds(facts: list[E], constraint: tuple[Linear, int]) -> bool:
    have = [c for f in facts for c in linear_fact(f)]
    form, const = constraint
    return any(f == form and c >= const for f, c in have)
