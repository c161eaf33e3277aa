"""The API-usage rules of ExampleCheck/RobustAPI: what a rule says, as data.

A rule file has one rule per line, ``Class#method#SEQUENCE``::

    File#createNewFile#TRY, createNewFile()@true, END_BLOCK, CATCH(Exception), END_BLOCK
    List#get#LOOP, get(int)@arg0<rcv.size(), END_BLOCK

The sequence lists control structures (``TRY``, ``IF``, ``ELSE``, ``LOOP``, ``FINALLY``,
``CATCH(Type)``, each closed by ``END_BLOCK``) and calls ``name(ParamTypes)`` or
``new Type(ParamTypes)``, each optionally guarded by ``@condition``: a boolean expression
over ``rcv`` (the receiver), ``argN`` (the N-th argument) and ``ret`` (the returned value)
that must hold where the call happens. A :class:`Rule` keeps both the flat sequence and
its nesting into blocks, which is what the checkers walk; reading the text is
:mod:`.rule_grammar`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# -- guard expressions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    """``true``, ``false``, ``null`` or an integer."""

    value: bool | int | None


@dataclass(frozen=True)
class Ref:
    """``rcv``, ``argN`` or ``ret``, optionally followed by calls: ``rcv.size()``."""

    var: str
    calls: tuple[tuple[str, tuple[GuardExpr, ...]], ...] = ()


@dataclass(frozen=True)
class Not:
    operand: GuardExpr


@dataclass(frozen=True)
class BoolOp:
    op: Literal["&&", "||"]
    operands: tuple[GuardExpr, ...]


@dataclass(frozen=True)
class Compare:
    op: str  # == != < <= > >=
    left: GuardExpr
    right: GuardExpr


@dataclass(frozen=True)
class Arith:
    op: Literal["+", "-"]
    left: GuardExpr
    right: GuardExpr


GuardExpr = Lit | Ref | Not | BoolOp | Compare | Arith


def guard_text(expr: GuardExpr) -> str:
    """The guard written back in the rule language (normalised spacing)."""
    if isinstance(expr, Lit):
        if isinstance(expr.value, bool):
            return "true" if expr.value else "false"
        return "null" if expr.value is None else str(expr.value)
    if isinstance(expr, Ref):
        text = expr.var
        for name, args in expr.calls:
            text += f".{name}({','.join(guard_text(a) for a in args)})"
        return text
    if isinstance(expr, Not):
        return f"!{guard_text(expr.operand)}"
    if isinstance(expr, BoolOp):
        return f" {expr.op} ".join(guard_text(o) for o in expr.operands)
    return f"{guard_text(expr.left)}{expr.op}{guard_text(expr.right)}"


# -- rule items -----------------------------------------------------------------------------

ControlKind = Literal["TRY", "IF", "ELSE", "LOOP", "FINALLY", "END_BLOCK"]


@dataclass(frozen=True)
class Control:
    kind: ControlKind


@dataclass(frozen=True)
class Catch:
    type: str


@dataclass(frozen=True)
class Call:
    """A call in a rule: ``name(params)`` or ``new name(params)``, guarded by ``guard``."""

    name: str
    params: tuple[str, ...]
    is_new: bool = False
    guard: GuardExpr = Lit(True)

    @property
    def key(self) -> str:
        """How calls are matched: the method name, or ``new Type`` for constructors.

        Parameter types are not compared (ExampleCheck matches by name, and snippets rarely
        let a checker know argument types); they stay in the rule for documentation.
        """
        return f"new {self.name}" if self.is_new else self.name

    @property
    def guarded(self) -> bool:
        return self.guard != Lit(True)

    def __str__(self) -> str:
        guard = guard_text(self.guard)
        return f"{'new ' if self.is_new else ''}{self.name}({','.join(self.params)})@{guard}"


Item = Control | Catch | Call


# -- structure (the sequence as nested blocks) ----------------------------------------------


@dataclass
class Block:
    """A control structure of a rule and what the rule puts inside it.

    ``kind`` is TRY, IF, ELSE, LOOP, FINALLY or CATCH; a TRY block's ``handlers`` are its
    CATCH and FINALLY blocks, an IF's ``handlers`` its ELSE.
    """

    kind: str
    catch_type: str | None = None
    body: list[Block | Call] = field(default_factory=list)
    handlers: list[Block] = field(default_factory=list)


@dataclass(frozen=True)
class Rule:
    """One parsed rule line."""

    cls: str
    method: str
    items: tuple[Item, ...]
    text: str  # the line as written
    source: str  # file name
    line: int
    structure: tuple[Block | Call, ...]

    @property
    def id(self) -> str:
        """Stable identifier: where the rule was written."""
        return f"{self.source}:{self.line}"

    @property
    def api(self) -> str:
        return f"{self.cls}.{self.method}"

    @property
    def sequence(self) -> str:
        return self.text.split("#", 2)[2].strip() if self.text.count("#") >= 2 else self.text

    @property
    def focal(self) -> Call | None:
        """The call the rule is about: its own method (or constructor for ``C#C``)."""
        for item in self.items:
            if isinstance(item, Call) and (
                item.name == self.method and (not item.is_new or self.method == self.cls)
            ):
                return item
        return None

    def calls(self) -> list[Call]:
        return [i for i in self.items if isinstance(i, Call)]


# -- rule sets ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleSet:
    """All rules of a file, looked up by (class, method)."""

    rules: tuple[Rule, ...]
    source: str
    sha256: str = ""
    replaced: tuple[tuple[Rule, Rule], ...] = ()  # (as written, erratum applied)

    def for_api(self, cls: str, method: str) -> list[Rule]:
        return [r for r in self.rules if r.cls == cls and r.method == method]

    @property
    def classes(self) -> set[str]:
        return {r.cls for r in self.rules}
