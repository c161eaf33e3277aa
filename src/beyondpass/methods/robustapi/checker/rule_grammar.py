"""Reading the rule language: a rule line parsed with a real grammar into a :class:`Rule`.

Why a grammar (lark) instead of splitting on ", ": guards contain commas and parentheses,
and a malformed line must be reported with its line and column rather than silently
producing a different rule. Besides the syntax, :func:`parse_rule` checks the structure
(every block closed, ``CATCH`` only after a try block, the rule's own method called in its
sequence) and reports violations as ``file:line: what``. What a rule *is* (its items,
guards and nested blocks) is :mod:`.rules`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from beyondpass.errors import DataError
from beyondpass.methods.robustapi.checker.rules import (
    Arith,
    Block,
    BoolOp,
    Call,
    Catch,
    Compare,
    Control,
    GuardExpr,
    Item,
    Lit,
    Not,
    Ref,
    Rule,
)


class RuleError(DataError):
    """A rule line that does not parse or does not make sense; names file, line, column."""


GRAMMAR = r"""
start: qname "#" NAME "#" sequence
sequence: item ("," item)*
?item: control | catch | call
control: TRY | IF | ELSE | LOOP | FINALLY | END_BLOCK
catch: "CATCH" "(" qname ")"
call: NEW? qname "(" [params] ")" ("@" guard)?
params: type ("," type)*
type: qname ARRAY*
qname: NAME ("." NAME)*

guard: or_expr
?or_expr: and_expr ("||" and_expr)*
?and_expr: not_expr ("&&" not_expr)*
?not_expr: "!" not_expr -> not_
         | comparison
?comparison: sum (CMP sum)?
?sum: atom (ADD atom)*
?atom: "(" or_expr ")"
     | INT -> int_lit
     | "true" -> true_lit
     | "false" -> false_lit
     | "null" -> null_lit
     | ref
ref: VAR ("." NAME "(" [args] ")")*
args: sum ("," sum)*

TRY: "TRY"
IF: "IF"
ELSE: "ELSE"
LOOP: "LOOP"
FINALLY: "FINALLY"
END_BLOCK: "END_BLOCK"
NEW: "new"
ARRAY: "[]"
VAR.2: /rcv|ret|arg\d+/
CMP: "==" | "!=" | "<=" | ">=" | "<" | ">"
ADD: "+" | "-"
NAME: /[A-Za-z_$][A-Za-z0-9_$]*/
INT: /\d+/
%ignore /[ \t]+/
"""


@functools.cache
def _parser():  # type: ignore[no-untyped-def]
    """The LALR parser, built once (lark is imported only when rules are read)."""
    try:
        import lark
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise DataError(
            "reading API-usage rules needs the 'lark' package — pip install 'beyondpass[java]'"
        ) from exc
    return lark.Lark(GRAMMAR, parser="lalr", maybe_placeholders=False)


def _to_guard(tree) -> GuardExpr:  # type: ignore[no-untyped-def]
    from lark import Token, Tree

    if isinstance(tree, Token):  # pragma: no cover - grammar always wraps tokens
        raise ValueError(f"unexpected token {tree!r}")
    assert isinstance(tree, Tree)
    kind = tree.data
    kids = tree.children
    if kind == "guard":
        return _to_guard(kids[0])
    if kind in ("or_expr", "and_expr"):
        return BoolOp("||" if kind == "or_expr" else "&&", tuple(_to_guard(k) for k in kids))
    if kind == "not_":
        return Not(_to_guard(kids[0]))
    if kind == "comparison":
        return Compare(str(kids[1]), _to_guard(kids[0]), _to_guard(kids[2]))
    if kind == "sum":
        expr = _to_guard(kids[0])
        for i in range(1, len(kids), 2):
            expr = Arith(str(kids[i]), expr, _to_guard(kids[i + 1]))  # type: ignore[arg-type]
        return expr
    if kind == "int_lit":
        return Lit(int(str(kids[0])))
    if kind == "true_lit":
        return Lit(True)
    if kind == "false_lit":
        return Lit(False)
    if kind == "null_lit":
        return Lit(None)
    if kind == "ref":
        var = str(kids[0])
        calls: list[tuple[str, tuple[GuardExpr, ...]]] = []
        rest = kids[1:]
        i = 0
        while i < len(rest):
            name = str(rest[i])
            args: tuple[GuardExpr, ...] = ()
            if i + 1 < len(rest) and isinstance(rest[i + 1], Tree) and rest[i + 1].data == "args":
                args = tuple(_to_guard(a) for a in rest[i + 1].children)
                i += 1
            calls.append((name, args))
            i += 1
        return Ref(var, tuple(calls))
    raise ValueError(f"unknown guard node {kind}")  # pragma: no cover


def _qname(tree) -> str:  # type: ignore[no-untyped-def]
    return ".".join(str(t) for t in tree.children)


def _to_items(tree) -> list[Item]:  # type: ignore[no-untyped-def]
    from lark import Token

    items: list[Item] = []
    for node in tree.children:
        if node.data == "control":
            items.append(Control(str(node.children[0])))  # type: ignore[arg-type]
        elif node.data == "catch":
            items.append(Catch(_qname(node.children[0])))
        else:  # call
            kids = list(node.children)
            is_new = bool(kids and isinstance(kids[0], Token) and kids[0].type == "NEW")
            if is_new:
                kids = kids[1:]
            name = _qname(kids[0])
            params: tuple[str, ...] = ()
            guard: GuardExpr = Lit(True)
            for kid in kids[1:]:
                if kid.data == "params":
                    params = tuple(
                        _qname(t.children[0]) + "[]" * (len(t.children) - 1) for t in kid.children
                    )
                elif kid.data == "guard":
                    guard = _to_guard(kid)
            items.append(Call(name, params, is_new, guard))
    return items


def _structure(items: list[Item], where: str) -> tuple[Block | Call, ...]:
    """Nest the flat sequence into blocks; reject sequences whose blocks do not match."""
    root = Block("ROOT")
    stack: list[Block] = [root]
    # the block whose handlers may still grow (a TRY just closed, an IF just closed)
    last_closed: Block | None = None
    for n, item in enumerate(items, 1):
        if isinstance(item, Call):
            stack[-1].body.append(item)
            last_closed = None
        elif isinstance(item, Catch) or (isinstance(item, Control) and item.kind == "FINALLY"):
            if last_closed is None or last_closed.kind != "TRY":
                what = f"CATCH({item.type})" if isinstance(item, Catch) else "FINALLY"
                raise RuleError(
                    f"{where}: item {n} ({what}) must follow the END_BLOCK of a TRY block"
                )
            handler = Block(
                "CATCH" if isinstance(item, Catch) else "FINALLY",
                catch_type=item.type if isinstance(item, Catch) else None,
            )
            last_closed.handlers.append(handler)
            stack.append(handler)
            last_closed = None
        elif item.kind == "ELSE":
            if last_closed is None or last_closed.kind != "IF":
                raise RuleError(f"{where}: item {n} (ELSE) must follow the END_BLOCK of an IF")
            handler = Block("ELSE")
            last_closed.handlers.append(handler)
            stack.append(handler)
            last_closed = None
        elif item.kind == "END_BLOCK":
            if len(stack) == 1:
                raise RuleError(f"{where}: item {n} (END_BLOCK) closes no open block")
            closed = stack.pop()
            if closed.kind in ("CATCH", "FINALLY"):
                # the TRY these belong to may take more handlers
                owner = _owner_of(root, closed)
                last_closed = owner
            elif closed.kind == "ELSE":
                last_closed = None
            else:
                last_closed = closed
        else:
            block = Block(item.kind)
            stack[-1].body.append(block)
            stack.append(block)
            last_closed = None
    if len(stack) > 1:
        raise RuleError(f"{where}: {stack[-1].kind} block is never closed (add END_BLOCK)")
    for block in _blocks(root.body):
        if block.kind == "TRY" and not any(h.kind in ("CATCH", "FINALLY") for h in block.handlers):
            raise RuleError(f"{where}: TRY block has neither CATCH nor FINALLY")
    return tuple(root.body)


def _owner_of(root: Block, handler: Block) -> Block | None:
    for block in _blocks(root.body):
        if handler in block.handlers:
            return block
    return None


def _blocks(nodes: Iterable[Block | Call]) -> Iterable[Block]:
    for node in nodes:
        if isinstance(node, Block):
            yield node
            yield from _blocks(node.body)
            for h in node.handlers:
                yield h
                yield from _blocks(h.body)


def parse_rule(text: str, *, source: str = "<rules>", line: int = 1) -> Rule:
    """Parse one rule line; raise :class:`RuleError` naming ``source:line`` on any problem."""
    parser = _parser()  # first: it reports a missing lark in one line
    import lark

    where = f"{source}:{line}"
    stripped = text.strip()
    try:
        tree = parser.parse(stripped)
    except lark.exceptions.UnexpectedCharacters as exc:
        raise RuleError(
            f"{where}: column {exc.column}: unexpected character {stripped[exc.pos_in_stream]!r}"
            f" — a rule is Class#method#ITEM, ITEM, ... (see docs/robustapi.md)"
        ) from None
    except lark.exceptions.UnexpectedToken as exc:
        at_end = exc.token.type == "$END"
        token = "end of line" if at_end else repr(str(exc.token))
        expected = ", ".join(sorted(_readable(t) for t in exc.expected)[:8])
        column = len(stripped) + 1 if at_end or exc.column == -1 else exc.column
        raise RuleError(
            f"{where}: column {column}: unexpected {token}, expected {expected}"
        ) from None
    except lark.exceptions.UnexpectedEOF as exc:  # pragma: no cover - LALR reports tokens
        raise RuleError(f"{where}: line ends too early ({exc})") from None
    cls = _qname(tree.children[0])
    method = str(tree.children[1])
    items = _to_items(tree.children[2])
    structure = _structure(items, where)
    rule = Rule(cls, method, tuple(items), stripped, source, line, structure)
    for call in rule.calls():
        _check_guard_vars(call, where)
    return rule


def _check_guard_vars(call: Call, where: str) -> None:
    def refs(e: GuardExpr) -> Iterable[Ref]:
        if isinstance(e, Ref):
            yield e
            for _, args in e.calls:
                for a in args:
                    yield from refs(a)
        elif isinstance(e, Not):
            yield from refs(e.operand)
        elif isinstance(e, BoolOp):
            for o in e.operands:
                yield from refs(o)
        elif isinstance(e, Compare | Arith):
            yield from refs(e.left)
            yield from refs(e.right)

    for ref in refs(call.guard):
        if ref.var.startswith("arg") and int(ref.var[3:]) >= max(len(call.params), 1):
            raise RuleError(
                f"{where}: guard of {call.key}() uses {ref.var}, but the call has "
                f"{len(call.params)} parameter(s)"
            )


_TOKEN_NAMES = {
    "HASH": "'#'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "AT": "'@'",
    "NAME": "a name",
    "VAR": "rcv/argN/ret",
    "INT": "a number",
    "CMP": "a comparison",
    "ADD": "'+'/'-'",
    "$END": "end of line",
}


def _readable(token_type: str) -> str:
    return _TOKEN_NAMES.get(token_type, token_type.strip("_").lower().replace("_", " "))


def parse_rules(text: str, *, source: str = "<rules>") -> list[Rule]:
    """Parse a whole rule file; blank lines are skipped, every other line must be a rule."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            rules.append(parse_rule(line, source=source, line=number))
    if not rules:
        raise RuleError(f"{source}: no rules (expected lines like Class#method#SEQUENCE)")
    return rules
