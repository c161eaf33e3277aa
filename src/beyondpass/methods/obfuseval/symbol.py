"""Symbol obfuscation: rename every identifier a task defines, consistently and scope-aware.

libcst gives a concrete syntax tree (comments, formatting and docstrings survive a round
trip, unlike ``ast``) and a scope analysis that resolves each name to its binding; a name is
renamed only where it resolves to a binding the task makes (never a builtin or an import).
All renames of a task happen in one pass over each tree and one regex pass over prose, so
they cannot cascade (the seed's sequential substitutions could).

Attributes have no scope to resolve them: ``x.total`` may be the task's own attribute or a
library's. An attribute name is renamed, at its definition (a method or class attribute in
a class body, a ``self.NAME``/``cls.NAME`` assignment) and at every ``.NAME`` access, only
when the task defines it, it is no attribute of a built-in type (``items``, ``append``,
``real``...), and the task never reads it from an imported module (``math.total``): then
every ``.NAME`` in the task can only mean the task's own attribute, whatever object it is
read from. Verification by execution backs the rule up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    Assignment,
    BuiltinAssignment,
    ClassScope,
    GlobalScope,
    MetadataWrapper,
    ScopeProvider,
)

from beyondpass.methods.obfuseval.names import NameMaker

#: calls that reach names through strings or the namespace: renaming could break them
DYNAMIC_CALLS = frozenset(
    {"getattr", "setattr", "hasattr", "delattr", "globals", "locals", "vars", "eval", "exec"}
)
#: English function words: a parameter called ``a`` is not renamed where the prose says "a"
#: conventional names that carry nothing of the task: kept as they are
CONVENTIONS = frozenset({"self", "cls"})
_STOP = "a an and are as at be by do for i if in is it no not of on or so the to up we"
PROSE_STOPWORDS = frozenset(_STOP.split(" "))


class Unsupported(Exception):
    """The task cannot be renamed safely; the message is the reason it is excluded."""


@dataclass
class ModuleFacts:
    """What one module binds and uses."""

    bound: set[str] = field(default_factory=set)  # names the task's own code binds
    identifiers: set[str] = field(default_factory=set)  # every identifier spelled in it
    functions: dict[str, set[str]] = field(default_factory=dict)  # function -> its params
    globals: set[str] = field(default_factory=set)  # bound at module level
    dynamic: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)  # attribute names the task defines
    foreign_attributes: set[str] = field(default_factory=set)  # read from imported modules


def _builtin_attributes() -> frozenset[str]:
    kinds = (object, str, bytes, int, float, complex, bool, list, tuple, dict, set, frozenset,
             type, range, slice, BaseException)  # fmt: skip
    return frozenset(name for kind in kinds for name in dir(kind))


#: attribute names of built-in types: ``.items`` may be a dict's, so it is never renamed
BUILTIN_ATTRIBUTES = _builtin_attributes()


def _is_import(assignment: object) -> bool:
    return isinstance(assignment, Assignment) and isinstance(
        assignment.node, cst.Import | cst.ImportFrom
    )


def _renamable(scope: object, name: str, program_globals: frozenset[str]) -> bool | None:
    """True: ``name`` resolves, in ``scope``, to a binding the task makes; None: unresolved.

    A test runs with the program's globals bound, so in a test a builtin the program
    redefines (MBPP's ``def sum(a, b)``) is the program's name.
    """
    assignments = list(scope[name])  # type: ignore[index]
    if not assignments:
        return None
    if name in program_globals and all(isinstance(a, BuiltinAssignment) for a in assignments):
        return True
    return all(
        isinstance(a, Assignment) and not _is_import(a) and not isinstance(a.scope, ClassScope)
        for a in assignments
    )


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self) -> None:
        self.facts = ModuleFacts()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        base = node.value
        if not isinstance(base, cst.Name):
            return
        scope = self.get_metadata(ScopeProvider, base, None)
        if scope is not None and any(_is_import(a) for a in scope[base.value]):
            self.facts.foreign_attributes.add(node.attr.value)

    def _targets(self, targets: list[cst.BaseExpression]) -> None:
        for target in targets:
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value in CONVENTIONS
            ):
                self.facts.attributes.add(target.attr.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets([t.target for t in node.targets])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets([node.target])

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets([node.target])

    def visit_Name(self, node: cst.Name) -> None:
        self.facts.identifiers.add(node.value)
        if node.value in DYNAMIC_CALLS:
            self.facts.dynamic.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        names += [p.name.value for p in params.kwonly_params]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.append(star.name.value)
        self.facts.functions[node.name.value] = set(names)


def collect(module: MetadataWrapper) -> ModuleFacts:
    visitor = _Collector()
    module.visit(visitor)
    facts = visitor.facts
    for scope in set(module.resolve(ScopeProvider).values()):
        if scope is None:
            continue
        for assignment in scope.assignments:
            dunder = assignment.name.startswith("__") and assignment.name.endswith("__")
            dunder = dunder or assignment.name in CONVENTIONS
            if not isinstance(assignment, Assignment) or _is_import(assignment) or dunder:
                continue
            if isinstance(scope, ClassScope):
                facts.attributes.add(assignment.name)
                continue
            facts.bound.add(assignment.name)
            if isinstance(scope, GlobalScope):
                facts.globals.add(assignment.name)
    facts.attributes = {
        a for a in facts.attributes if not (a.startswith("__") and a.endswith("__"))
    }
    return facts


def renamable_attributes(facts: list[ModuleFacts]) -> set[str]:
    """The attribute names of a task (all its modules' facts) that are safe to rename."""
    defined = set().union(*(f.attributes for f in facts))
    foreign = set().union(*(f.foreign_attributes for f in facts))
    return {a for a in defined if a not in BUILTIN_ATTRIBUTES and a not in foreign}


class _Renamer(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(
        self,
        mapping: Mapping[str, str],
        functions: Mapping[str, set[str]],
        program_globals: frozenset[str],
        attributes: frozenset[str],
    ) -> None:
        self.mapping = mapping
        self.program_globals = program_globals
        self.functions = functions
        self.attributes = attributes
        self.skip: set[int] = set()  # Name nodes that are attributes or foreign keywords
        self.keywords: set[int] = set()  # keyword arguments of the task's own functions
        self.members: set[int] = set()  # the task's own attributes (accesses and definitions)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.attributes:
            self.members.add(id(node.attr))
        else:
            self.skip.add(id(node.attr))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        own = isinstance(node.func, cst.Name) and self._resolves(node.func)
        params = self.functions.get(node.func.value, set()) if own else set()  # type: ignore[union-attr]
        for arg in node.args:
            if arg.keyword is not None:
                if arg.keyword.value in params:
                    self.keywords.add(id(arg.keyword))
                else:
                    self.skip.add(id(arg.keyword))

    def _resolves(self, node: cst.Name) -> bool:
        if node.value not in self.mapping:
            return False
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return False
        own = _renamable(scope, node.value, self.program_globals)
        return own is None or own  # unresolved: a name another module of the task defines

    def _class_member(self, node: cst.Name) -> bool:
        """A name bound in a class body (a method, a class attribute) that is renamable."""
        if node.value not in self.attributes:
            return False
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return False
        found = list(scope[node.value])
        return bool(found) and all(
            isinstance(a, Assignment) and isinstance(a.scope, ClassScope) for a in found
        )

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        key = id(original)
        if key in self.keywords or key in self.members:
            return updated.with_changes(value=self.mapping[original.value])
        if key in self.skip:
            return updated
        if not self._resolves(original) and not self._class_member(original):
            return updated
        return updated.with_changes(value=self.mapping[original.value])

    def leave_Comment(self, original: cst.Comment, updated: cst.Comment) -> cst.Comment:
        return updated.with_changes(value=rename_prose(updated.value, self.mapping))

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        return _docstring(updated, self.mapping)


def _docstring(
    line: cst.SimpleStatementLine, mapping: Mapping[str, str]
) -> cst.SimpleStatementLine:
    """Rename inside a statement that is a bare string (a docstring: no behaviour)."""
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Expr):
        return line
    value = line.body[0].value
    if not isinstance(value, cst.SimpleString):
        return line
    new = value.with_changes(value=rename_prose(value.value, mapping))
    return line.with_changes(body=[line.body[0].with_changes(value=new)])


def rename_prose(text: str, mapping: Mapping[str, str]) -> str:
    """Whole-word renames in one regex pass (no cascade); English function words kept."""
    words = sorted((k for k in mapping if k.lower() not in PROSE_STOPWORDS), key=len, reverse=True)
    if not words:
        return text
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, words)) + r")\b")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def _expand_indent_tabs(code: str) -> str:
    """Leading tabs as the Python tokenizer reads them (to the next multiple of 8)."""
    lines = code.split("\n")
    out = []
    for line in lines:
        body = line.lstrip(" \t")
        out.append(line[: len(line) - len(body)].expandtabs(8) + body)
    return "\n".join(out)


def parse(code: str, what: str) -> MetadataWrapper:
    """libcst's tree; indentation mixing tabs and spaces is read as Python reads it."""
    try:
        return MetadataWrapper(cst.parse_module(code))
    except cst.ParserSyntaxError as exc:
        first = exc.message
    try:
        return MetadataWrapper(cst.parse_module(_expand_indent_tabs(code)))
    except cst.ParserSyntaxError:
        raise Unsupported(f"{what} does not parse ({first})") from None


def rename(
    wrapper: MetadataWrapper,
    mapping: Mapping[str, str],
    functions: Mapping[str, set[str]],
    program_globals: frozenset[str] = frozenset(),
    attributes: frozenset[str] = frozenset(),
) -> str:
    """The module's code with ``mapping`` applied where names resolve to the task's bindings;
    ``program_globals``: the program's module-level names (for test modules); ``attributes``:
    the task's attribute names to rename (``renamable_attributes``; each in ``mapping``)."""
    return wrapper.visit(_Renamer(mapping, functions, program_globals, attributes)).code


def make_mapping(bound: set[str], taken: set[str], seed: str) -> dict[str, str]:
    """Old -> new for every bound name, in a deterministic order."""
    maker = NameMaker(seed, taken)
    return {old: maker.new_name(old) for old in sorted(bound)}
