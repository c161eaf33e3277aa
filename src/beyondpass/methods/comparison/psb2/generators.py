"""Seeded random inputs per PSB2 problem, following PSB2's published input distributions.

PSB2's own random sets (a million cases per problem) are not shipped offline; these
generators draw from the same domains (Helmuth & Kelly, GECCO 2021, Table 2; the
``*-input`` functions of Clojush's PSB2 problems) with our own code. Each generator takes a
``random.Random`` and returns one input list; ``generate_inputs`` derives one independent
stream per problem from the seed, so a problem's cases do not change when another
problem's generator does. ``problems.Problem.violations`` states the constraints that
tests hold every generated input to.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from beyondpass.methods.comparison.psb2.problems import DIGITS, LOWER, PRINTABLE

Gen = Callable[[random.Random], list[Any]]


def _ints(rng: random.Random, lo: int, hi: int, min_len: int, max_len: int) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(rng.randint(min_len, max_len))]


def _floats(rng: random.Random, lo: float, hi: float, n: int, digits: int) -> list[float]:
    return [round(rng.uniform(lo, hi), digits) for _ in range(n)]


def _text(rng: random.Random, alphabet: str, min_len: int, max_len: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(min_len, max_len)))


def _words(rng: random.Random, max_len: int, seps: str) -> str:
    """Lower-case words joined by separators drawn from ``seps``, at most ``max_len`` long."""
    target = rng.randint(1, max_len)
    out = _text(rng, LOWER, 1, min(target, 8))
    while len(out) + 2 <= target:
        out += rng.choice(seps) + _text(rng, LOWER, 1, min(target - len(out) - 1, 8))
    return out


def basement(rng: random.Random) -> list[Any]:
    while True:
        vector = _ints(rng, -100, 100, 1, 20)
        total = 0
        for v in vector:
            total += v
            if total < 0:
                return [vector]


def bouncing_balls(rng: random.Random) -> list[Any]:
    start = round(rng.uniform(1.001, 100.0), 3)
    first = round(rng.uniform(1.0, start - 0.001), 3)
    return [start, min(first, round(start - 0.001, 3)), rng.randint(1, 20)]


def bowling(rng: random.Random) -> list[Any]:
    def mark(pins: int) -> str:
        return "-" if pins == 0 else str(pins)

    def frame(last: bool) -> str:
        first = rng.randint(0, 10)
        if first == 10:
            return "X" + (_bonus(2) if last else "")
        second = rng.randint(0, 10 - first)
        if first + second == 10:
            return mark(first) + "/" + (_bonus(1) if last else "")
        return mark(first) + mark(second)

    def _bonus(n: int) -> str:
        out, standing = "", 10
        for _ in range(n):
            pins = rng.randint(0, standing)
            if pins == 10:
                out += "X"
            elif standing < 10 and pins == standing:
                out += "/"
            else:
                out += mark(pins)
            standing = 10 if pins == standing else standing - pins
        return out

    return ["".join(frame(i == 9) for i in range(10))]


def camel_case(rng: random.Random) -> list[Any]:
    return [_words(rng, 20, "- ")]


def coin_sums(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 10000)]


def cut_vector(rng: random.Random) -> list[Any]:
    return [_ints(rng, 1, 10000, 1, 20)]


def dice_game(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 100), rng.randint(1, 100)]


def find_pair(rng: random.Random) -> list[Any]:
    while True:
        vector = _ints(rng, -10000, 10000, 2, 20)
        i, j = rng.sample(range(len(vector)), 2)
        target = vector[i] + vector[j]
        sums = [a + b for k, a in enumerate(vector) for b in vector[k + 1 :]]
        if sums.count(target) == 1:
            return [vector, target]


def fizz_buzz(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 50000)]


def fuel_cost(rng: random.Random) -> list[Any]:
    return [_ints(rng, 6, 10000, 1, 20)]


def gcd(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 1000000), rng.randint(1, 1000000)]


def indices_of_substring(rng: random.Random) -> list[Any]:
    alphabet = rng.choice([PRINTABLE, "ab", "abc"])  # small alphabets make matches likely
    text = _text(rng, alphabet, 1, 20)
    if rng.random() < 0.5:
        start = rng.randrange(len(text))
        target = text[start : start + rng.randint(1, 5)]
    else:
        target = _text(rng, alphabet, 1, 5)
    return [text, target]


def leaders(rng: random.Random) -> list[Any]:
    return [_ints(rng, 0, 1000, 0, 20)]


def luhn(rng: random.Random) -> list[Any]:
    return [[rng.randint(0, 9) for _ in range(16)]]


def mastermind(rng: random.Random) -> list[Any]:
    return [_text(rng, "BRGYOW", 4, 4), _text(rng, "BRGYOW", 4, 4)]


def middle_character(rng: random.Random) -> list[Any]:
    return [_text(rng, PRINTABLE, 1, 100)]


def paired_digits(rng: random.Random) -> list[Any]:
    return [_text(rng, DIGITS, 2, 20)]


def shopping_list(rng: random.Random) -> list[Any]:
    n = rng.randint(1, 20)
    return [_floats(rng, 0.0, 50.0, n, 2), _floats(rng, 0.0, 100.0, n, 2)]


def snow_day(rng: random.Random) -> list[Any]:
    return [
        rng.randint(0, 20),
        round(rng.uniform(0.0, 20.0), 2),
        round(rng.uniform(0.0, 10.0), 2),
        round(rng.uniform(0.0, 1.0), 2),
    ]


def solve_boolean(rng: random.Random) -> list[Any]:
    n = rng.randint(0, 9)
    parts = [rng.choice("tf")]
    for _ in range(n):
        parts += [rng.choice("&|"), rng.choice("tf")]
    return ["".join(parts)]


def spin_words(rng: random.Random) -> list[Any]:
    return ["" if rng.random() < 0.02 else _words(rng, 20, " ")]


def square_digits(rng: random.Random) -> list[Any]:
    return [rng.randint(0, 1000000)]


def substitution_cipher(rng: random.Random) -> list[Any]:
    source = "".join(rng.sample(LOWER, rng.randint(0, 26)))
    target = "".join(rng.choice(LOWER) for _ in source)
    message = "".join(rng.choice(source) for _ in range(rng.randint(0, 26))) if source else ""
    return [source, target, message]


def twitter(rng: random.Random) -> list[Any]:
    return [_text(rng, PRINTABLE, 0, 200)]


def vector_distance(rng: random.Random) -> list[Any]:
    n = rng.randint(1, 20)
    return [_floats(rng, -100.0, 100.0, n, 4), _floats(rng, -100.0, 100.0, n, 4)]


GENERATORS: dict[str, Gen] = {
    name: fn
    for name, fn in globals().copy().items()
    if callable(fn)
    and not name.startswith("_")
    and fn.__module__ == __name__
    and name != "generate_inputs"
}


def generate_inputs(problem: str, n: int, seed: int) -> list[list[Any]]:
    """``n`` inputs for ``problem``, the same for the same seed on every machine."""
    rng = random.Random(f"psb2:{problem}:{seed}")  # str seeds hash with SHA-512: stable
    gen = GENERATORS[problem]
    return [gen(rng) for _ in range(n)]
