"""The published RobustAPI checker's behaviour, reproduced for ``--semantics original``.

Reading its public source (Evaluator, MethodVisitor, APICallVisitor, UseChecker; Eclipse
JDT 3.32) gives these rules, which this module follows:

* Rules are looked up by method name, then class; the rule file is read into a map, so for
  a (class, method) with several lines only the **last** line counts.
* Calls are collected per method declaration (constructors included); calls in field
  initialisers and initialiser blocks, and inside anonymous class bodies, are never seen.
  Sequences are stored by method *name*, so of several methods with one name only the last
  one is checked.
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
which would turn some snippets into ``PARSEFAIL`` (their inputs are the conditions of
guarded calls; no formula for them is published).
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
    by_name: dict[str, Node] = {}
    for method in _methods(parsed.root):
        name = method.child_by_field_name("name")
        by_name[text(name) if name is not None else ""] = method  # later ones replace
    hits: list[OriginalHit] = []
    for method in sorted(by_name.values(), key=lambda m: m.start_byte):
        for call_node, name, type_name in _resolved_calls(method, fields):
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


def _resolved_calls(method: Node, fields: dict[str, str]) -> list[tuple[Node, str, str]]:
    """(node, call name, receiver type) of each call whose receiver type JDT's visitor knew."""
    decls: list[tuple[int, str, str]] = []
    calls: list[tuple[Node, str, str | None]] = []
    stack = [method]
    while stack:
        node = stack.pop()
        t = node.type
        if t in ("local_variable_declaration",):
            tname = _type_text(node.child_by_field_name("type"))
            for d in node.children_by_field_name("declarator"):
                name = d.child_by_field_name("name")
                if name is not None:
                    decls.append((int(node.start_byte), text(name), tname))
        elif t in ("formal_parameter", "spread_parameter", "resource", "catch_formal_parameter"):
            name = node.child_by_field_name("name")
            if t == "catch_formal_parameter":
                ctype = next((c for c in node.named_children if c.type == "catch_type"), None)
                tname = " | ".join(text(c) for c in ctype.named_children) if ctype else ""
            else:
                tname = _type_text(node.child_by_field_name("type"))
            if name is not None and tname:
                decls.append((int(node.start_byte), text(name), tname))
        elif t == "enhanced_for_statement":
            name = node.child_by_field_name("name")
            if name is not None:
                decls.append(
                    (int(node.start_byte), text(name), _type_text(node.child_by_field_name("type")))
                )
        elif t == "method_invocation":
            obj = node.child_by_field_name("object")
            name = node.child_by_field_name("name")
            receiver = "".join(text(obj).split()) if obj is not None else None
            calls.append((node, text(name) if name is not None else "", receiver))
        elif t == "object_creation_expression":
            tnode = node.child_by_field_name("type")
            tname = "".join(text(tnode).split()) if tnode is not None else ""
            calls.append((node, f"new {tname}", f"={tname}"))
            # an anonymous class body is not visited: only the arguments are
            args = node.child_by_field_name("arguments")
            if args is not None:
                stack.extend(reversed(args.children))
            continue
        stack.extend(reversed(node.children))
    decls.sort()
    out = []
    for node, name, receiver in calls:
        if receiver is None:
            continue
        if receiver.startswith("="):
            out.append((node, name, receiver[1:]))
            continue
        visible = [tname for start, n, tname in decls if n == receiver and start < node.start_byte]
        if visible:
            out.append((node, name, visible[-1]))
        elif receiver in fields:
            out.append((node, name, fields[receiver]))
    return out
