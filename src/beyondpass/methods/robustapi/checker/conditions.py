"""Guards: conditions as expressions, and whether the facts at a call imply a rule's guard.

Conditions become small tuples (``("call", "it", "hasNext", ())``, ``("cmp", "<", a, b)``,
``("not", e)``...), both the Java conditions around a call site (:mod:`.facts` collects the
ones that hold there) and a rule's guard instantiated at the call (``rcv``/``argN``/``ret``
replaced by the call's expressions).

Implication is deliberately simple and sound: a fact implies a goal when they are the same
expression, by the null-check equivalences below, or, for integer bounds, when both are the
same linear form over the same atoms (``i < list.size()`` implies ``arg0 < rcv.size()`` with
``arg0 = i``; ``!list.isEmpty()`` implies ``0 < list.size()``).
"""

from __future__ import annotations

from typing import Any

from beyondpass.methods.robustapi.checker import rules as R
from beyondpass.methods.robustapi.checker.java_model import (
    CallSite,
    Node,
    norm,
    text,
)
from beyondpass.methods.robustapi.checker.knowledge import simple_name

E = tuple[Any, ...]
#: Java's comparison operators
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


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
        if op in COMPARISONS:
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
