"""The published RobustAPI checker's behaviour, reproduced for ``--semantics original``.

Reading its public source (Evaluator, MethodVisitor, APICallVisitor, UseChecker; Eclipse
JDT 3.32) gives these rules, which this module follows:

* Rules are looked up by method name, then class; the rule file is read into a map, so for
  a (class, method) with several lines only the **last** line counts.
* Calls are collected per method declaration (constructors included); calls in field
  initialisers and initialiser blocks, and inside anonymous class bodies, are never seen;
  nor are calls in the conditions of ``if``/``while``/``for``, the updates of ``for`` and
  the iterable of an enhanced ``for`` (``APICallVisitor`` visits only their bodies).
  Sequences are stored by method *name*, so of several methods with one name only the last
  one is checked. The visitor's own exceptions (``for (i = 0; ...)``, ``for (k :
  keySet())``) make the snippet ``PARSEFAIL``.
* A call's receiver type is known only when the receiver is written as a name declared
  earlier in the method (parameter, local, loop or catch variable, resource) or as a field
  anywhere in the snippet; the type is the declared type as written, without type
  arguments (``Map``, ``java.util.Map``, ``HashMap`` are three different classes). ``new
  T(...)`` is looked up as method ``T`` of class ``T`` (so ``new FileInputStream(f)`` meets
  the ``FileInputStream#FileInputStream`` rule).
* Every resolved call that has a rule is reported as a violation: the checker computes the
  violations of the closest pattern, but records the pattern in its violation map even
  when the list is empty, and prints every map key as ``VIOLATION``. So "pass" means
  "parsed, and calls no API any rule covers".
* Parse failures (any JDT problem at Java 8 level, after the two fixed wrappers) and
  snippets with neither ``;`` nor a second line are ``PARSEFAIL``; so is empty code.

Not reproduced: exceptions thrown inside the original's condition normaliser/SAT step,
which would turn some snippets into ``PARSEFAIL``. On the 1208 recorded gpt-4 answers this
reading agrees with the original checker's verdict on every answer (docs/robustapi.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from beyondpass.methods.robustapi.checker.java_model import Node, text
from beyondpass.methods.robustapi.checker.rules import Rule
from beyondpass.methods.robustapi.extraction.java_code import unescape_entities
from beyondpass.methods.robustapi.extraction.java_syntax import ParsedJava, parse_java_original

_METHODS = frozenset({"method_declaration", "constructor_declaration"})


@dataclass(frozen=True)
class OriginalHit:
    rule: Rule
    line: int  # in the extracted code
    call: str


def pattern_map(rules: list[Rule] | tuple[Rule, ...]) -> dict[tuple[str, str], Rule]:
    """(method, class) -> the rule the original reads for it: the last line wins."""
    out: dict[tuple[str, str], Rule] = {}
    for rule in rules:
        out[(rule.method, rule.cls)] = rule
    return out


def precheck_fails(code: str) -> bool:
    """The original refuses a snippet with no ``;`` that is not more than one line."""
    lines = code.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    return ";" not in code and len(lines) <= 1


def check_original(
    code: str, patterns: dict[tuple[str, str], Rule]
) -> tuple[ParsedJava | None, list[OriginalHit], str]:
    """(parse, hits, error); error is set when the original reports PARSEFAIL."""
    if not code.strip() or precheck_fails(code):
        return None, [], "no statement: empty, or a single line without ';'"
    parsed = parse_java_original(unescape_entities(code))
    if not parsed.ok:
        return parsed, [], parsed.error
    fields: dict[str, str] = {}
    _collect_fields(parsed.root, fields)
    by_name: dict[str, list[tuple[Node, str, str]]] = {}
    for method in _methods(parsed.root):
        name = method.child_by_field_name("name")
        try:
            calls = _resolved_calls(method, fields)
        except _VisitorFailure as exc:
            return parsed, [], f"the original's visitor fails: {exc}"
        by_name.pop(text(name) if name is not None else "", None)
        by_name[text(name) if name is not None else ""] = calls  # later ones replace
    hits: list[OriginalHit] = []
    for calls in by_name.values():
        for call_node, name, type_name in calls:
            key = (name[4:], type_name) if name.startswith("new ") else (name, type_name)
            rule = patterns.get(key)
            if rule is not None:
                hits.append(OriginalHit(rule, parsed.line_of(call_node), name))
    return parsed, hits, ""


def _type_text(type_node: Node | None) -> str:
    """The declared type as JDT prints it, without type arguments."""
    if type_node is None:
        return ""
    if type_node.type == "generic_type":
        base = next((c for c in type_node.named_children if c.type != "type_arguments"), None)
        return _type_text(base)
    return "".join(text(type_node).split())


def _collect_fields(root: Node, fields: dict[str, str]) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "field_declaration":
            tname = _type_text(node.child_by_field_name("type"))
            for d in node.children_by_field_name("declarator"):
                name = d.child_by_field_name("name")
                if name is not None:
                    fields[text(name)] = tname
        stack.extend(reversed(node.children))


def _methods(root: Node) -> list[Node]:
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _METHODS:
            out.append(node)
            continue
        stack.extend(reversed(node.children))
    return out


class _VisitorFailure(Exception):
    """An exception the original's visitor throws; its driver reports PARSEFAIL."""


def _resolved_calls(method: Node, fields: dict[str, str]) -> list[tuple[Node, str, str]]:
    """(node, call name, receiver type) of each call whose receiver type JDT's visitor knew
    (:class:`_ApiCallVisitor`)."""
    visitor = _ApiCallVisitor(fields)
    visitor.visit(method)
    return visitor.calls


class _ApiCallVisitor:
    """Walks a method as ``APICallVisitor`` does, one ``visit_<node type>`` method per visit
    method of the original, so the two read side by side: ``if``/``while`` conditions,
    ``for`` conditions and updates and the iterable of an enhanced ``for`` are never
    visited, so their calls are not seen; the symbol table is one map per method, filled in
    visiting order (a later declaration of a name replaces an earlier one, whatever its
    scope). A node type without a method is walked into, child by child."""

    def __init__(self, fields: dict[str, str]) -> None:
        self.fields = fields
        self.locals: dict[str, str] = {}
        self.calls: list[tuple[Node, str, str]] = []

    def visit(self, node: Node | None) -> None:
        if node is None:
            return
        own = getattr(self, f"visit_{node.type}", None)
        if own is not None:
            own(node)
            return
        for child in node.children:
            self.visit(child)

    def declare(self, name: Node | None, tname: str) -> None:
        if name is not None:
            self.locals[text(name)] = tname

    # -- declarations: they fill the symbol table, then their children are walked ----------

    def visit_local_variable_declaration(self, node: Node) -> None:
        tname = _type_text(node.child_by_field_name("type"))
        for d in node.children_by_field_name("declarator"):
            self.declare(d.child_by_field_name("name"), tname)
        self._walk(node)

    def visit_resource(self, node: Node) -> None:
        tname = _type_text(node.child_by_field_name("type"))
        self.declare(node.child_by_field_name("name"), tname)
        self._walk(node)

    def visit_formal_parameter(self, node: Node) -> None:
        self.declare(node.child_by_field_name("name"), _param_type(node))
        self._walk(node)

    def visit_spread_parameter(self, node: Node) -> None:
        d = next((c for c in node.named_children if c.type == "variable_declarator"), None)
        name = d.child_by_field_name("name") if d is not None else None
        self.declare(name, _param_type(node))
        self._walk(node)

    def visit_catch_formal_parameter(self, node: Node) -> None:
        ctype = next((c for c in node.named_children if c.type == "catch_type"), None)
        tname = " | ".join(text(c) for c in ctype.named_children) if ctype else ""
        self.declare(node.child_by_field_name("name"), tname)
        self._walk(node)

    # -- statements: only their bodies are visited ------------------------------------------

    def visit_if_statement(self, node: Node) -> None:
        self.visit(node.child_by_field_name("consequence"))
        self.visit(node.child_by_field_name("alternative"))

    def visit_while_statement(self, node: Node) -> None:
        self.visit(node.child_by_field_name("body"))

    def visit_for_statement(self, node: Node) -> None:
        for init in node.children_by_field_name("init"):
            if init.type != "local_variable_declaration":
                # ``for (i = 0; ...)``: the visitor casts every initialiser to a
                # declaration, and the ClassCastException makes the snippet PARSEFAIL
                raise _VisitorFailure("a for loop initialiser that is not a declaration")
            self.visit(init)
        self.visit(node.child_by_field_name("body"))

    def visit_enhanced_for_statement(self, node: Node) -> None:
        value = node.child_by_field_name("value")
        if value is not None and "".join(text(value).split()).find("keySet()") == 0:
            # ``for (k : keySet())``: the visitor takes the text before ``.keySet()`` with
            # substring(0, -1) and throws
            raise _VisitorFailure("an enhanced for over keySet() without a receiver")
        tname = _type_text(node.child_by_field_name("type"))
        self.declare(node.child_by_field_name("name"), tname)
        self.visit(node.child_by_field_name("body"))

    # -- calls ------------------------------------------------------------------------------

    def visit_method_invocation(self, node: Node) -> None:
        obj = node.child_by_field_name("object")
        name = node.child_by_field_name("name")
        self.visit(obj)
        self.visit(node.child_by_field_name("arguments"))
        if obj is not None and obj.type != "super":
            receiver = "".join(text(obj).split())
            tname = self.locals.get(receiver, self.fields.get(receiver))
            if tname is not None:
                self.calls.append((node, text(name) if name is not None else "", tname))

    def visit_object_creation_expression(self, node: Node) -> None:
        # an anonymous class body is not visited: only the arguments are
        self.visit(node.child_by_field_name("arguments"))
        tnode = node.child_by_field_name("type")
        tname = "".join(text(tnode).split()) if tnode is not None else ""
        self.calls.append((node, f"new {tname}", tname))

    def _walk(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)


def _param_type(node: Node) -> str:
    """A parameter's type as JDT's ``SingleVariableDeclaration.getType()`` prints it."""
    tnode = node.child_by_field_name("type")
    if tnode is None:  # tree-sitter puts a varargs parameter's type outside the field
        tnode = next((c for c in node.named_children if c.type.endswith("type")), None)
    return _type_text(tnode)
