"""What the structure and semantic rewrites share: counted sites, fresh names, code facts.

A rewrite is a libcst transformer that numbers every place where its precondition holds
(a *site*) and rewrites the sites it was told to; a first pass with nothing chosen counts
them. Fresh names come from the task's :class:`NameMaker`, so they are plausible words that
collide with nothing the task spells (code, tests, prompt).
"""

from __future__ import annotations

import ast
import builtins
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from beyondpass.methods.obfuseval.names import NameMaker

_EMPTY = cst.Module(body=[])


def code(node: cst.CSTNode) -> str:
    """Source of one node."""
    return _EMPTY.code_for_node(node)


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


def paren(node: cst.BaseExpression) -> str:
    """``node``'s code, parenthesised unless it is atomic."""
    atomic = (
        cst.Name,
        cst.Integer,
        cst.Float,
        cst.SimpleString,
        cst.Call,
        cst.Subscript,
        cst.Attribute,
    )
    text = code(node)
    if isinstance(node, atomic) or node.lpar:
        return text
    return f"({text})"


def block(statements: list[cst.BaseStatement]) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=statements)


def body_of(node: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A suite's statements; a one-line suite (``if c: x()``) becomes one statement line."""
    if isinstance(node, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=node.body)]
    return list(node.body)  # type: ignore[attr-defined]


def name_counts(node: cst.CSTNode) -> Counter[str]:
    """How often each identifier is spelled in ``node`` (attribute names included:
    conservative, a precondition counting them refuses more, never less)."""
    counts: Counter[str] = Counter()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            counts[n.value] += 1

    node.visit(_V())
    return counts


def contains(node: cst.CSTNode, kinds: tuple[type, ...]) -> bool:
    found = False

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(n, kinds):
                found = True
            return not found

    node.visit(_V())
    return found


def target_names(target: cst.BaseExpression) -> list[str] | None:
    """Names a loop target binds; None for targets that are not plain names/tuples."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        out: list[str] = []
        for el in target.elements:
            if isinstance(el, cst.StarredElement):
                return None
            inner = target_names(el.value)
            if inner is None:
                return None
            out += inner
        return out
    return None


def shadowed_builtins(source: str) -> frozenset[str]:
    """Builtin names the module binds itself (then ``range``, ``any`` ... are not builtins)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(dir(builtins))
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return frozenset(bound & set(dir(builtins)))


@dataclass
class Context:
    """One variant's randomness and fresh-name source."""

    rng: random.Random
    names: NameMaker
    shadowed: frozenset[str] = frozenset()
    scoped: set[str] = field(default_factory=set)  # functions with global/nonlocal
    guarded: set[str] = field(default_factory=set)  # functions with try
    made: list[str] = field(default_factory=list)

    def fresh(self, hint: str) -> str:
        new = self.names.new_name(hint)
        self.made.append(new)
        return new


class Rewrite(cst.CSTTransformer):
    """A counted rewrite: ``chosen`` None counts sites, else rewrites the chosen ones."""

    name: ClassVar[str] = ""
    #: one line: where the rewrite applies (shown in docs and reports)
    precondition: ClassVar[str] = ""

    #: ``ast`` node types without which the rewrite has no site (a cheap pre-check)
    needs: ClassVar[tuple[type[ast.AST], ...]] = ()
    #: whether the rewrite needs a function without ``try`` (see :meth:`function`)
    strict: ClassVar[bool] = False

    def __init__(
        self,
        ctx: Context,
        chosen: frozenset[int] | None = None,
        coin: random.Random | None = None,
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.chosen = chosen
        self.coin = coin
        self.sites = 0
        self.applied = 0
        self.functions: list[cst.FunctionDef | cst.ClassDef | cst.Lambda] = []
        self._counts: dict[int, Counter[str]] = {}

    # scopes: rewrites that bind names work only directly inside a function
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self.functions.pop()
        return self.rewrite_function(original, updated)

    def rewrite_function(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.functions.append(node)

    def leave_ClassDef(
        self, original: cst.ClassDef, updated: cst.ClassDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self.functions.pop()
        return updated

    def function(self) -> cst.FunctionDef | None:
        """The innermost scope when it is a plain function without ``global``/``nonlocal``
        (and, for :attr:`strict` rewrites, without ``try``: a caught exception could observe
        a half-built value), else None."""
        if not self.functions or not isinstance(self.functions[-1], cst.FunctionDef):
            return None
        func = self.functions[-1]
        name = func.name.value
        if name in self.ctx.scoped or (self.strict and name in self.ctx.guarded):
            return None
        return func

    def private(self, names: list[str], inner: cst.CSTNode) -> bool:
        """Every name in ``names`` is spelled in the enclosing function only inside ``inner``
        (so moving it in or out of a comprehension scope cannot change what it refers to)."""
        func = self.function()
        if func is None:
            return False
        if id(func) not in self._counts:
            self._counts[id(func)] = name_counts(func)
        everywhere, here = self._counts[id(func)], name_counts(inner)
        return all(everywhere[n] == here[n] for n in names)

    def builtin(self, *names: str) -> bool:
        return not (set(names) & self.ctx.shadowed)

    def take(self) -> bool:
        """Count a site; True when this one is to be rewritten."""
        index = self.sites
        self.sites += 1
        pick = self.coin.random() < 0.5 if self.coin is not None else False
        if pick or (self.chosen is not None and index in self.chosen):
            self.applied += 1
            return True
        return False


def run_rewrites(
    module: cst.Module,
    library: list[type[Rewrite]],
    ctx: Context,
    exclusive: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> tuple[cst.Module, dict[str, int], list[str]]:
    """Apply the library in a seeded order, each at a seeded non-empty subset of its sites
    (each site with probability 1/2, at least one).

    Of a pair in ``exclusive`` (a rewrite and its inverse) at most one runs per variant.
    Returns the module, ``{rewrite: sites rewritten}`` and the rewrites that had no site.
    """
    order = list(library)
    ctx.rng.shuffle(order)
    applied: dict[str, int] = {}
    absent: list[str] = []
    source = module.code
    present = module_facts(source, ctx)
    for kind in order:
        if any(
            kind.name in pair and (set(pair) - {kind.name}) & set(applied) for pair in exclusive
        ):
            continue
        if kind.needs and not present & set(kind.needs):
            absent.append(kind.name)
            continue
        # one pass choosing each site by a seeded coin; if every coin fell tails, a second
        # pass rewrites one seeded site, so a rewrite that applies is always used
        worker = kind(ctx, coin=random.Random(ctx.rng.random()))
        new = module.visit(worker)
        if worker.sites == 0:
            absent.append(kind.name)
            continue
        if not worker.applied:
            worker = kind(ctx, frozenset({ctx.rng.randrange(worker.sites)}))
            new = module.visit(worker)
        if worker.applied:
            applied[kind.name] = worker.applied
            module, source = new, new.code
            present = module_facts(source, ctx)
    return module, applied, absent


def module_facts(source: str, ctx: Context) -> set[type[ast.AST]]:
    """One ``ast`` pass over the module: the node types present, and into ``ctx`` the
    builtins it shadows and the functions holding global/nonlocal or try (by name: two
    functions of one name share the stricter answer)."""
    ctx.shadowed = shadowed_builtins(source)
    tree = ast.parse(source)
    ctx.scoped, ctx.guarded = set(), set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            kinds = {type(n) for n in ast.walk(fn)}
            if kinds & {ast.Global, ast.Nonlocal}:
                ctx.scoped.add(fn.name)
            if kinds & {ast.Try, ast.TryStar}:
                ctx.guarded.add(fn.name)
    return {type(n) for n in ast.walk(tree)}
