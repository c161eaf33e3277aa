"""The 25 PSB2 problems as typed signatures with their stated input constraints.

Types make a case renderable for any language (``textio``): ``int``, ``float``, ``str``,
``bool``, ``vec_int``, ``vec_float``. The constraints are the input domains PSB2 publishes
for its random cases (Helmuth & Kelly, "PSB2: The Second Program Synthesis Benchmark
Suite", GECCO 2021, Table 2, and the ``*-input`` functions of the PSB2 problems in the
Clojush repository, github.com/lspector/Clojush, src/clojush/problems/psb2/). They are
written here independently of the generators so a test can hold one against the other.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

TYPES = ("int", "float", "str", "bool", "vec_int", "vec_float")

LOWER = string.ascii_lowercase
DIGITS = string.digits
PRINTABLE = "".join(chr(c) for c in range(32, 127))  # visible ASCII and the space


@dataclass(frozen=True)
class Arg:
    """One input or output: a name, a type, and for inputs the published domain.

    ``lo``/``hi`` bound numbers (or each element of a vector); ``min_len``/``max_len``
    bound strings and vectors; ``alphabet`` lists the characters a string may hold.
    """

    name: str
    type: str
    lo: float | None = None
    hi: float | None = None
    min_len: int | None = None
    max_len: int | None = None
    alphabet: str | None = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"unknown PSB2 type {self.type!r}")

    def violations(self, value: Any) -> list[str]:
        """Why ``value`` is outside this argument's domain (empty when it is inside)."""
        out: list[str] = []
        items: Sequence[Any]
        if self.type.startswith("vec_"):
            if not isinstance(value, list):
                return [f"{self.name}: not a vector"]
            items = value
            out += self._length(len(value))
            elem = "int" if self.type == "vec_int" else "float"
        elif self.type == "str":
            if not isinstance(value, str):
                return [f"{self.name}: not a string"]
            out += self._length(len(value))
            bad = sorted({c for c in value if self.alphabet is not None and c not in self.alphabet})
            if bad:
                out.append(f"{self.name}: characters {bad!r} outside the alphabet")
            return out
        else:
            items, elem = [value], self.type
        for item in items:
            if elem == "int" and (not isinstance(item, int) or isinstance(item, bool)):
                out.append(f"{self.name}: {item!r} is not an integer")
            elif elem == "float" and not isinstance(item, float):
                out.append(f"{self.name}: {item!r} is not a float")
            elif elem == "bool" and not isinstance(item, bool):
                out.append(f"{self.name}: {item!r} is not a Boolean")
            elif self.lo is not None and item < self.lo or self.hi is not None and item > self.hi:
                out.append(f"{self.name}: {item!r} outside [{self.lo}, {self.hi}]")
        return out

    def _length(self, n: int) -> list[str]:
        if (
            self.min_len is not None
            and n < self.min_len
            or (self.max_len is not None and n > self.max_len)
        ):
            return [f"{self.name}: length {n} outside [{self.min_len}, {self.max_len}]"]
        return []


@dataclass(frozen=True)
class Problem:
    """A PSB2 problem: its name (underscores, as edge.jsonl spells it), inputs, outputs
    and the conditions on a whole input that no single domain states."""

    name: str
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    condition: Callable[..., str] | None = field(default=None, compare=False)
    condition_text: str = ""

    @property
    def hyphenated(self) -> str:
        return self.name.replace("_", "-")

    def violations(self, inputs: Sequence[Any]) -> list[str]:
        """Every way ``inputs`` break the published constraints (empty: all hold)."""
        if len(inputs) != len(self.inputs):
            return [f"{len(inputs)} inputs, expected {len(self.inputs)}"]
        out = [
            v
            for arg, value in zip(self.inputs, inputs, strict=False)
            for v in arg.violations(value)
        ]
        if not out and self.condition is not None:
            why = self.condition(*inputs)
            if why:
                out.append(why)
        return out


def _negative_prefix(vector: list[int]) -> str:
    total = 0
    for value in vector:
        total += value
        if total < 0:
            return ""
    return "no prefix sum is negative"


def _bounce_below_start(start: float, first: float, _bounces: int) -> str:
    return "" if first < start else "the first bounce is not lower than the start"


def _valid_bowling(rolls: str) -> str:
    """A complete 10-frame game: frames of X, d/, dd (d a digit or -), bonus rolls."""
    i = 0
    for frame in range(10):
        if i >= len(rolls):
            return "the game has fewer than 10 frames"
        if rolls[i] == "X":
            i += 1
            bonus = 2 if frame == 9 else 0
        else:
            if i + 1 >= len(rolls) or rolls[i] in "X/" or rolls[i + 1] == "X":
                return f"frame {frame + 1} is malformed"
            if rolls[i + 1] != "/":
                pins = sum(0 if c == "-" else int(c) for c in rolls[i : i + 2])
                if pins > 9:
                    return f"frame {frame + 1} knocks down {pins} pins without a spare"
            bonus = 1 if frame == 9 and rolls[i + 1] == "/" else 0
            i += 2
    if len(rolls) - i != bonus:
        return "wrong number of bonus rolls after the 10th frame"
    return ""


def _one_pair(vector: list[int], target: int) -> str:
    pairs = sum(
        vector[i] + vector[j] == target
        for i in range(len(vector))
        for j in range(i + 1, len(vector))
    )
    return "" if pairs == 1 else f"{pairs} pairs sum to the target, expected exactly 1"


def _boolean_expression(expr: str) -> str:
    ok = len(expr) % 2 == 1 and all(
        (c in "tf") if i % 2 == 0 else (c in "&|") for i, c in enumerate(expr)
    )
    return "" if ok else "not an alternation of t/f and &/|"


def _words(text: str) -> str:
    return (
        "" if "  " not in text and text == text.strip() else "words not separated by single spaces"
    )


def _camel_words(text: str) -> str:
    groups = text.split(" ")
    ok = all(part for group in groups for part in group.split("-"))
    return "" if ok else "an empty word between separators"


def _cipher(source: str, target: str, message: str) -> str:
    if len(source) != len(target):
        return "cipher strings differ in length"
    if len(set(source)) != len(source):
        return "the cipher maps a character twice"
    if any(c not in source for c in message):
        return "the message uses a character the cipher does not map"
    return ""


def _same_length(a: list[float], b: list[float]) -> str:
    return "" if len(a) == len(b) else "vectors differ in length"


def _a(name: str, type_: str, **kw: Any) -> Arg:
    return Arg(name, type_, **kw)


def _p(name: str, inputs: list[Arg], outputs: list[tuple[str, str]], cond=None, text="") -> Problem:
    return Problem(name, tuple(inputs), tuple(Arg(n, t) for n, t in outputs), cond, text)


PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in (
        _p(
            "basement",
            [_a("vector", "vec_int", lo=-100, hi=100, min_len=1, max_len=20)],
            [("index", "int")],
            _negative_prefix,
            "some prefix sum is negative",
        ),
        _p(
            "bouncing_balls",
            [
                _a("start_height", "float", lo=1.0, hi=100.0),
                _a("first_bounce", "float", lo=1.0, hi=100.0),
                _a("bounces", "int", lo=1, hi=20),
            ],
            [("distance", "float")],
            _bounce_below_start,
            "first bounce < start height",
        ),
        _p(
            "bowling",
            [_a("rolls", "str", min_len=10, max_len=21, alphabet="X/-123456789")],
            [("score", "int")],
            _valid_bowling,
            "a complete, valid 10-frame game",
        ),
        _p(
            "camel_case",
            [_a("text", "str", min_len=1, max_len=20, alphabet=LOWER + "- ")],
            [("camel", "str")],
            _camel_words,
            "no empty word between separators",
        ),
        _p(
            "coin_sums",
            [_a("cents", "int", lo=1, hi=10000)],
            [("pennies", "int"), ("nickels", "int"), ("dimes", "int"), ("quarters", "int")],
        ),
        _p(
            "cut_vector",
            [_a("vector", "vec_int", lo=0, hi=10000, min_len=1, max_len=20)],
            [("left", "vec_int"), ("right", "vec_int")],
        ),
        _p(
            "dice_game",
            [_a("n", "int", lo=1, hi=1000), _a("m", "int", lo=1, hi=1000)],
            [("probability", "float")],
        ),
        _p(
            "find_pair",
            [
                _a("vector", "vec_int", lo=-10000, hi=10000, min_len=2, max_len=20),
                _a("target", "int", lo=-20000, hi=20000),
            ],
            [("first", "int"), ("second", "int")],
            _one_pair,
            "exactly one pair sums to target",
        ),
        _p("fizz_buzz", [_a("x", "int", lo=1, hi=1000000)], [("answer", "str")]),
        _p(
            "fuel_cost",
            [_a("vector", "vec_int", lo=6, hi=10000, min_len=1, max_len=20)],
            [("fuel", "int")],
        ),
        _p(
            "gcd",
            [_a("a", "int", lo=1, hi=1000000), _a("b", "int", lo=1, hi=1000000)],
            [("gcd", "int")],
        ),
        _p(
            "indices_of_substring",
            [
                _a("text", "str", min_len=1, max_len=20, alphabet=PRINTABLE),
                _a("target", "str", min_len=1, max_len=6, alphabet=PRINTABLE),
            ],
            [("indices", "vec_int")],
        ),
        _p(
            "leaders",
            [_a("vector", "vec_int", lo=0, hi=1000, min_len=0, max_len=20)],
            [("leaders", "vec_int")],
        ),
        _p("luhn", [_a("digits", "vec_int", lo=0, hi=9, min_len=16, max_len=16)], [("sum", "int")]),
        _p(
            "mastermind",
            [
                _a("code", "str", min_len=4, max_len=4, alphabet="BRGYOW"),
                _a("guess", "str", min_len=4, max_len=4, alphabet="BRGYOW"),
            ],
            [("white", "int"), ("black", "int")],
        ),
        _p(
            "middle_character",
            [_a("text", "str", min_len=1, max_len=100, alphabet=PRINTABLE)],
            [("middle", "str")],
        ),
        _p(
            "paired_digits",
            [_a("digits", "str", min_len=2, max_len=20, alphabet=DIGITS)],
            [("sum", "int")],
        ),
        _p(
            "shopping_list",
            [
                _a("prices", "vec_float", lo=0.0, hi=50.0, min_len=1, max_len=20),
                _a("discounts", "vec_float", lo=0.0, hi=100.0, min_len=1, max_len=20),
            ],
            [("total", "float")],
            _same_length,
            "as many discounts as prices",
        ),
        _p(
            "snow_day",
            [
                _a("hours", "int", lo=0, hi=20),
                _a("snow", "float", lo=0.0, hi=20.0),
                _a("rate", "float", lo=0.0, hi=10.0),
                _a("melt", "float", lo=0.0, hi=1.0),
            ],
            [("snow", "float")],
        ),
        _p(
            "solve_boolean",
            [_a("expression", "str", min_len=1, max_len=39, alphabet="tf|&")],
            [("value", "bool")],
            _boolean_expression,
            "t/f alternating with &/|",
        ),
        _p(
            "spin_words",
            [_a("text", "str", min_len=0, max_len=20, alphabet=LOWER + " ")],
            [("spun", "str")],
            _words,
            "words separated by single spaces",
        ),
        _p("square_digits", [_a("n", "int", lo=0, hi=1000000)], [("squares", "str")]),
        _p(
            "substitution_cipher",
            [
                _a("source", "str", min_len=0, max_len=26, alphabet=LOWER),
                _a("target", "str", min_len=0, max_len=26, alphabet=LOWER),
                _a("message", "str", min_len=0, max_len=26, alphabet=LOWER),
            ],
            [("deciphered", "str")],
            _cipher,
            "a one-to-one cipher covering the message",
        ),
        _p(
            "twitter",
            [_a("tweet", "str", min_len=0, max_len=200, alphabet=PRINTABLE)],
            [("verdict", "str")],
        ),
        _p(
            "vector_distance",
            [
                _a("a", "vec_float", lo=-100.0, hi=100.0, min_len=1, max_len=20),
                _a("b", "vec_float", lo=-100.0, hi=100.0, min_len=1, max_len=20),
            ],
            [("distance", "float")],
            _same_length,
            "vectors of equal length",
        ),
    )
}


def problem(name: str) -> Problem:
    """The problem named ``name`` (hyphens or underscores), or a one-line KeyError."""
    key = name.strip().replace("-", "_")
    if key not in PROBLEMS:
        raise KeyError(f"unknown PSB2 problem {name!r} — known: {', '.join(PROBLEMS)}")
    return PROBLEMS[key]
