"""What a parsed Java snippet says about its API calls: call sites, declarations, types.

One pass over the tree-sitter tree collects every method call and ``new`` expression with
its receiver, arguments and line, every declaration (locals, parameters, fields, resources,
catch and loop variables) and the snippet's own class hierarchy. Receiver types are
inferred from declarations (``var`` from the initialiser), ``new`` and cast expressions,
``this``/``super``, a few well-known factory calls (``iterator()``, ``getChannel()``...) and
static fields (``System.in``). Conditions are converted into small expression tuples so the
checker can reason about guards (see :mod:`.conditions`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from beyondpass.methods.robustapi.checker.knowledge import (
    FIELD_TYPES,
    MEMBER_RETURN_TYPES,
    RETURN_TYPES,
    simple_name,
)
from beyondpass.methods.robustapi.extraction.java_syntax import ParsedJava

Node = Any  # tree_sitter.Node

#: nodes that bound "the same method": ordering questions are asked within one of these
METHOD_SCOPES = frozenset(
    {
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "static_initializer",
        "field_declaration",
        "program",
    }
)
#: nodes that bound where a declared name is visible (lambdas bind their parameters)
DECL_SCOPES = METHOD_SCOPES | {"lambda_expression", "catch_clause", "enhanced_for_statement"}
LOOPS = frozenset({"while_statement", "for_statement", "enhanced_for_statement", "do_statement"})
TYPE_DECLS = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
)

_SPACE = re.compile(r"\s+")


def text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def norm(node: Node | None) -> str:
    """Canonical text of an expression: no whitespace, no outer parentheses, no ``this.``."""
    if node is None:
        return ""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    out = _SPACE.sub("", text(node))
    return out[5:] if out.startswith("this.") else out


@dataclass
class Decl:
    name: str
    type: str | None  # simple type name, None when not written (lambda params)
    kind: str  # local, param, field, resource, catch, for
    scope: Node  # where it is visible
    start: int  # byte where it is declared
    init: Node | None = None  # initialiser expression


@dataclass
class CallSite:
    """One method call or ``new`` expression."""

    node: Node
    name: str  # method name, or "new Type" for constructors
    method: str  # method name, or the simple type name for constructors
    receiver: Node | None  # the object expression; None for unqualified calls and ``new``
    args: list[Node]
    line: int  # 1-based, in the snippet as written
    is_new: bool = False
    type: str | None = None  # inferred receiver type (constructed type for ``new``)
    type_assumed: bool = False  # type taken from the question's API, not from the code
    static_on: str | None = None  # ``Cipher.getInstance``: the class name

    @property
    def receiver_text(self) -> str:
        return norm(self.receiver) if self.receiver is not None else "this"

    @property
    def start(self) -> int:
        return int(self.node.start_byte)

    @property
    def end(self) -> int:
        return int(self.node.end_byte)


@dataclass
class JavaUnit:
    """The facts of one parsed snippet."""

    parsed: ParsedJava
    calls: list[CallSite] = field(default_factory=list)
    decls: dict[str, list[Decl]] = field(default_factory=lambda: defaultdict(list))
    assignments: dict[str, list[tuple[int, Node]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    class_supers: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def hierarchy(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple(sorted(self.class_supers.items()))

    def line(self, node: Node) -> int:
        return self.parsed.line_of(node)


def ancestors(node: Node) -> list[Node]:
    out = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out


def contains(outer: Node, inner: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def method_scope(node: Node) -> Node:
    """The method (constructor, initialiser, field, or the whole snippet) holding ``node``."""
    for a in ancestors(node):
        if a.type in METHOD_SCOPES:
            return a
        if a.type == "block" and a.parent is not None and a.parent.type == "class_body":
            return a  # instance initialiser
    return node


def within_method(node: Node) -> list[Node]:
    """The ancestors of ``node`` inside its method, innermost first: what encloses the call
    there (a try, an if, a loop), without what encloses the method itself."""
    scope = method_scope(node)
    out = []
    for a in ancestors(node):
        if a == scope:
            break
        out.append(a)
    return out


def decl_scope(node: Node) -> Node:
    for a in ancestors(node):
        if a.type in DECL_SCOPES:
            return a
        if a.type == "block" and a.parent is not None and a.parent.type == "class_body":
            return a
    return node


def enclosing_class(node: Node) -> Node | None:
    for a in ancestors(node):
        if a.type in TYPE_DECLS:
            return a
        if a.type == "object_creation_expression" and a.child_by_field_name("body") is not None:
            return None  # anonymous class: its type is not written
    return None


def build_unit(parsed: ParsedJava) -> JavaUnit:
    """Collect call sites, declarations, assignments and classes in one walk."""
    unit = JavaUnit(parsed)
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        _visit(unit, node)
        stack.extend(reversed(node.children))
    for call in unit.calls:
        _type_call(unit, call)
    return unit


def _declared_type(node: Node) -> str | None:
    t = node.child_by_field_name("type")
    if t is None:
        return None
    name = simple_name(text(t))
    return None if name == "var" else name


def _visit(unit: JavaUnit, node: Node) -> None:
    t = node.type
    if t in ("method_invocation", "object_creation_expression"):
        unit.calls.append(_call_site(unit, node))
    elif t in ("local_variable_declaration", "field_declaration"):
        kind = "field" if t == "field_declaration" else "local"
        dtype = _declared_type(node)
        scope = node if kind == "field" else decl_scope(node)
        if kind == "local" and scope.type == "program":
            kind = "field"  # bare top-level declarations are seen by the snippet's methods
        for d in node.children_by_field_name("declarator"):
            name = d.child_by_field_name("name")
            dims = d.child_by_field_name("dimensions")
            if name is not None:
                unit.decls[text(name)].append(
                    Decl(
                        text(name),
                        (dtype + "[]" if dims is not None and dtype else dtype),
                        kind,
                        scope,
                        int(node.start_byte),
                        d.child_by_field_name("value"),
                    )
                )
    elif t in ("formal_parameter", "spread_parameter", "catch_formal_parameter", "resource"):
        name = node.child_by_field_name("name")
        if name is None and t == "spread_parameter":
            inner = next((c for c in node.named_children if c.type == "variable_declarator"), None)
            name = inner.child_by_field_name("name") if inner is not None else None
        if name is None:
            return
        if t == "catch_formal_parameter":
            ctype = next((c for c in node.named_children if c.type == "catch_type"), None)
            dtype = simple_name(text(ctype)) if ctype is not None else None
            kind = "catch"
        else:
            dtype = _declared_type(node)
            kind = {"resource": "resource"}.get(t, "param")
        if t == "spread_parameter" and dtype:
            dtype += "[]"
        unit.decls[text(name)].append(
            Decl(
                text(name),
                dtype,
                kind,
                decl_scope(node),
                int(node.start_byte),
                node.child_by_field_name("value"),
            )
        )
    elif t == "enhanced_for_statement":
        name = node.child_by_field_name("name")
        if name is not None:
            unit.decls[text(name)].append(
                Decl(text(name), _declared_type(node), "for", node, int(node.start_byte))
            )
    elif t == "lambda_expression":
        params = node.child_by_field_name("parameters")
        if params is not None and params.type in ("identifier", "inferred_parameters"):
            names = [params] if params.type == "identifier" else params.named_children
            for n in names:
                unit.decls[text(n)].append(Decl(text(n), None, "param", node, int(node.start_byte)))
    elif t == "assignment_expression":
        left = node.child_by_field_name("left")
        if left is not None:
            unit.assignments[norm(left)].append(
                (int(node.start_byte), node.child_by_field_name("right"))
            )
    elif t in TYPE_DECLS:
        name = node.child_by_field_name("name")
        supers: list[str] = []
        sup = node.child_by_field_name("superclass")
        if sup is not None:
            supers += [simple_name(text(c)) for c in sup.named_children]
        ifaces = node.child_by_field_name("interfaces")
        if ifaces is not None:
            for tl in ifaces.named_children:
                supers += [simple_name(text(c)) for c in tl.named_children]
        if name is not None:
            unit.class_supers[text(name)] = tuple(supers)


def _call_site(unit: JavaUnit, node: Node) -> CallSite:
    args_node = node.child_by_field_name("arguments")
    args = list(args_node.named_children) if args_node is not None else []
    args = [a for a in args if a.type not in ("line_comment", "block_comment")]
    if node.type == "object_creation_expression":
        tnode = node.child_by_field_name("type")
        tname = simple_name(text(tnode)) if tnode is not None else "?"
        return CallSite(
            node, f"new {tname}", tname, None, args, unit.line(node), is_new=True, type=tname
        )
    name_node = node.child_by_field_name("name")
    return CallSite(
        node,
        text(name_node) if name_node is not None else "?",
        text(name_node) if name_node is not None else "?",
        node.child_by_field_name("object"),
        args,
        unit.line(node),
    )


# -- types ----------------------------------------------------------------------------------


def lookup(unit: JavaUnit, name: str, at: Node) -> Decl | None:
    """The declaration of ``name`` visible at ``at``: the nearest enclosing local or
    parameter declared before it, else a field (fields are visible everywhere)."""
    best: Decl | None = None
    best_key: tuple[int, int] | None = None
    for d in unit.decls.get(name, ()):
        if d.kind == "field":
            key = (0, d.start)
        elif contains(d.scope, at) and (
            d.kind in ("param", "catch", "for") or d.start < at.start_byte
        ):
            key = (1 + int(d.scope.start_byte), d.start)
        else:
            continue
        if best_key is None or key > best_key:
            best, best_key = d, key
    return best


def type_of(unit: JavaUnit, node: Node | None, depth: int = 0) -> str | None:
    """The simple type name of an expression, when the snippet (or our tables) tell it."""
    if node is None or depth > 8:
        return None
    t = node.type
    if t == "parenthesized_expression" and node.named_child_count:
        return type_of(unit, node.named_children[0], depth + 1)
    if t == "identifier":
        d = lookup(unit, text(node), node)
        if d is None:
            return None
        if d.type is not None:
            return d.type
        return type_of(unit, d.init, depth + 1)
    if t == "this":
        cls = enclosing_class(node)
        name = cls.child_by_field_name("name") if cls is not None else None
        return text(name) if name is not None else None
    if t == "super":
        cls = enclosing_class(node)
        name = cls.child_by_field_name("name") if cls is not None else None
        supers = unit.class_supers.get(text(name), ()) if name is not None else ()
        return supers[0] if supers else None
    if t == "field_access":
        full = norm(node)
        if full in FIELD_TYPES:
            return FIELD_TYPES[full]
        obj = node.child_by_field_name("object")
        fname = node.child_by_field_name("field")
        if obj is not None and obj.type == "this" and fname is not None:
            d = lookup(unit, text(fname), node)
            return d.type if d is not None else None
        return None
    if t == "object_creation_expression":
        tn = node.child_by_field_name("type")
        return simple_name(text(tn)) if tn is not None else None
    if t in ("cast_expression",):
        tn = node.child_by_field_name("type")
        return simple_name(text(tn)) if tn is not None else None
    if t == "array_access":
        inner = type_of(unit, node.child_by_field_name("array"), depth + 1)
        return inner[:-2] if inner and inner.endswith("[]") else None
    if t == "ternary_expression":
        return type_of(unit, node.child_by_field_name("consequence"), depth + 1)
    if t == "method_invocation":
        name = text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        if name == "getInstance" and obj is not None and is_class_ref(unit, obj):
            return simple_name(text(obj))
        if obj is not None:
            recv = type_of(unit, obj, depth + 1)
            if recv is not None and (recv, name) in MEMBER_RETURN_TYPES:
                return MEMBER_RETURN_TYPES[(recv, name)]
            if recv is None and name == "parse" and norm(obj).endswith("JsonParser()"):
                return "JsonElement"
        return RETURN_TYPES.get(name)
    return None


def is_class_ref(unit: JavaUnit, node: Node) -> bool:
    """``Cipher`` in ``Cipher.getInstance(...)``: a type name, not a variable."""
    if node.type not in ("identifier", "field_access", "scoped_identifier"):
        return False
    last = norm(node).rsplit(".", 1)[-1]
    if not last[:1].isupper():
        return False
    return node.type != "identifier" or lookup(unit, text(node), node) is None


def _type_call(unit: JavaUnit, call: CallSite) -> None:
    if call.is_new:
        return
    if call.receiver is None:
        call.type = type_of(unit, _this_of(call.node), 0) if enclosing_class(call.node) else None
        return
    if is_class_ref(unit, call.receiver):
        call.static_on = simple_name(text(call.receiver))
        return
    call.type = type_of(unit, call.receiver)


def _this_of(node: Node) -> Node:
    """A stand-in ``this`` node for an unqualified call: the call itself resolves like it."""

    class _This:
        type = "this"

        def __init__(self, n: Node) -> None:
            self.parent = n.parent
            self.start_byte = n.start_byte
            self.end_byte = n.end_byte

    return _This(node)
