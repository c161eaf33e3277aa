"""Which overload a call site calls, for rules that name one by its parameter types.

A rule's call names one overload: ``getBytes(String)``, ``read()``, ``write(String)``. A call
site is *of that overload* when it has as many arguments as the rule's call has parameters
and every argument whose type the snippet reveals fits its parameter (same type, a subtype,
a primitive widening, or any type for ``Object``). **An argument of unknown type is assumed
to fit**: a snippet rarely declares everything, and guessing a mismatch would invent
violations. :data:`EQUIVALENT` lists overloads that mean the same for a rule
(``getBytes(Charset)`` names the charset as ``getBytes(String)`` does).

What another overload means depends on the rule (see :func:`other_overload_reasons`):

* a rule that is *only* its call (``String#getBytes#getBytes(String)@true``) demands that
  overload: any other one (``s.getBytes()``, platform-dependent bytes) violates it;
* a rule that also demands surroundings (a try, a guard, a call before or after, a check of
  the result) applies to every overload of its method, because they share the obligation
  (``read(byte[])`` throws ``IOException`` as ``read()`` does) — except the overloads of
  :data:`WITHOUT_OBLIGATION`, which do not have what the rule is about.
"""

from __future__ import annotations

from beyondpass.methods.robustapi.checker.java_model import CallSite, JavaUnit, Node, type_of
from beyondpass.methods.robustapi.checker.knowledge import is_subtype, simple_name
from beyondpass.methods.robustapi.checker.rules import Call, Rule

#: (class, method, rule's parameters) -> other parameter lists that mean the same for it
EQUIVALENT: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[str, ...], ...]] = {
    ("String", "getBytes", ("String",)): (("Charset",),),
}

#: (class, method) -> argument counts of overloads that lack the rule's obligation:
#: ``new SimpleDateFormat()`` has no pattern to reject; ``parse(String, ParsePosition)``
#: returns null instead of throwing ``ParseException``
WITHOUT_OBLIGATION: dict[tuple[str, str], frozenset[int]] = {
    ("SimpleDateFormat", "SimpleDateFormat"): frozenset({0}),
    ("SimpleDateFormat", "parse"): frozenset({2}),
}

_LITERALS = {
    "string_literal": "String",
    "text_block": "String",
    "character_literal": "char",
    "decimal_integer_literal": "int",
    "hex_integer_literal": "int",
    "octal_integer_literal": "int",
    "binary_integer_literal": "int",
    "decimal_floating_point_literal": "double",
    "true": "boolean",
    "false": "boolean",
}
#: primitive widening conversions (JLS 5.1.2), each type to the types it widens to
_WIDENS = {
    "byte": {"short", "int", "long", "float", "double"},
    "short": {"int", "long", "float", "double"},
    "char": {"int", "long", "float", "double"},
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
}
_BOXES = {"int": "Integer", "long": "Long", "char": "Character", "boolean": "Boolean"}


def argument_type(unit: JavaUnit, node: Node) -> str | None:
    """The simple type of an argument, when a literal or the snippet tells it."""
    literal = _LITERALS.get(node.type)
    if literal is not None:
        return literal
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        if (
            op is not None
            and op.type == "+"
            and any(s is not None and argument_type(unit, s) == "String" for s in sides)
        ):
            return "String"
        return None
    return type_of(unit, node)


def fits(arg: str | None, param: str) -> bool:
    """May an argument of type ``arg`` (None: unknown) be passed for ``param``?"""
    if arg is None:
        return True
    arg, param = simple_name(arg), simple_name(param)
    if arg == param or param == "Object" or _BOXES.get(arg) == param:
        return True
    if param in _WIDENS.get(arg, ()):
        return True
    if arg.endswith("[]") or param.endswith("[]"):
        return False
    return is_subtype(arg, param)


def is_rule_overload(unit: JavaUnit, call: CallSite, rule: Rule, focal: Call) -> bool:
    """Does the call site call the overload the rule's call names (or an equivalent)?"""
    wanted = [focal.params, *EQUIVALENT.get((rule.cls, focal.name, focal.params), ())]
    types = [argument_type(unit, a) for a in call.args]
    return any(
        len(params) == len(types) and all(fits(t, p) for t, p in zip(types, params, strict=True))
        for params in wanted
    )


def other_overload_reasons(
    unit: JavaUnit, call: CallSite, rule: Rule, focal: Call
) -> list[str] | None:
    """None when the rule applies to the call as usual; else the reasons it is broken
    (``[]``: the rule does not concern this overload)."""
    if is_rule_overload(unit, call, rule, focal):
        return None
    if all(item is focal for item in rule.items):
        types = [argument_type(unit, a) or "?" for a in call.args]
        return [
            f"calls {focal.name}({', '.join(types)}); the rule asks for "
            f"{focal.name}({', '.join(focal.params)})"
        ]
    if len(call.args) in WITHOUT_OBLIGATION.get((rule.cls, focal.name), frozenset()):
        return []
    return None
