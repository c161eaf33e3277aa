"""Seeded random inputs per PSB2 problem, following PSB2's published input distributions.

PSB2's own random sets (a million cases per problem) are not shipped offline; these
generators draw from the distributions of the ``*-input`` functions and ``data-domains`` of
the PSB2 problems in the Clojush repository (``src/clojush/problems/psb2/*.clj``; Helmuth &
Kelly, GECCO 2021), read and re-expressed with our own code: the same value ranges and
lengths, the same mixtures of lengths (weighted by Clojush's test-set counts), the same
skews (basement's answer index, paired-digits' repeats, indices-of-substring's target
copies). Where we differ on purpose, the docstring says so. Each generator takes a
``random.Random`` and returns one input list; ``generate_inputs`` derives one independent
stream per problem from the seed, so a problem's cases do not change when another
problem's generator does. ``problems.Problem.violations`` states the constraints that
tests hold every generated input to.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from beyondpass.methods.psb2.benchmark.problems import DIGITS, LOWER, PRINTABLE

Gen = Callable[[random.Random], list[Any]]


VISIBLE = "".join(chr(c) for c in range(33, 127))  # Twitter's random tweets: no space


def _mixture(rng: random.Random, weighted: list[tuple[int, Callable[[], Any]]]) -> Any:
    """One draw from the component chosen with the given weights (Clojush's test-set counts
    per data domain, e.g. 250 length-1 vectors out of 2000)."""
    total = sum(w for w, _ in weighted)
    pick = rng.uniform(0, total)
    for weight, make in weighted:
        pick -= weight
        if pick < 0:
            return make()
    return weighted[-1][1]()


def _ints(rng: random.Random, lo: int, hi: int, length: int) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(length)]


def _text(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _first_negative_prefix(vector: list[int]) -> int | None:
    total = 0
    for i, v in enumerate(vector):
        total += v
        if total < 0:
            return i
    return None


def basement(rng: random.Random) -> list[Any]:
    """Length 1-20; the answer index uniform over the vector; later elements more likely
    negative (the chance of a negative element at index i is (i+1)/(len+1))."""
    length = rng.randint(1, 20)
    answer = rng.randrange(length)
    while True:
        vector = [
            -rng.randint(0, 100) if rng.random() < (i + 1) / (length + 1) else rng.randint(0, 100)
            for i in range(length)
        ]
        if _first_negative_prefix(vector) == answer:
            return [vector]


def bouncing_balls(rng: random.Random) -> list[Any]:
    """Start height in [1, 100), first bounce in [1, start), 1-20 bounces."""
    start = 1.0 + rng.random() * 99.0
    return [start, 1.0 + rng.random() * (start - 1.0), rng.randint(1, 20)]


def bowling(rng: random.Random) -> list[Any]:
    """Ten frames, each first roll 0-10 and second roll 0-(10-first), as Clojush draws them;
    the bonus rolls of the 10th frame are valid rolls (Clojush draws them independently of
    the pins left standing, which can give impossible games)."""

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
    """Words of 1-5 letters joined by "-" (66%) or " ", cut to a length of 1-20 with a
    trailing separator dropped."""
    length = rng.randint(1, 20)
    text = _text(rng, LOWER, rng.randint(1, 5))
    while len(text) < length:
        text += ("-" if rng.random() < 0.66 else " ") + _text(rng, LOWER, rng.randint(1, 5))
    text = text[:length]
    return [text[:-1] if text[-1] in "- " else text]


def coin_sums(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 10000)]


def cut_vector(rng: random.Random) -> list[Any]:
    """Elements 0-10,000; lengths 1 (250), 2 (250), 3-5 (500), 20 (50), 1-20 (950)."""
    length = _mixture(
        rng,
        [
            (250, lambda: 1),
            (250, lambda: 2),
            (500, lambda: rng.randint(3, 5)),
            (50, lambda: 20),
            (950, lambda: rng.randint(1, 20)),
        ],
    )
    return [_ints(rng, 0, 10000, length)]


def dice_game(rng: random.Random) -> list[Any]:
    """Dice of 1-1,000 sides; equal dice in 100 of 2000 cases."""
    if rng.random() < 100 / 2000:
        n = rng.randint(1, 1000)
        return [n, n]
    return [rng.randint(1, 1000), rng.randint(1, 1000)]


def find_pair(rng: random.Random) -> list[Any]:
    """Distinct elements in [-10,000, 10,000], 2-20 of them before duplicates are dropped;
    the target is the sum of two different elements and no other pair sums to it."""
    while True:
        vector = list(dict.fromkeys(_ints(rng, -10000, 10000, rng.randint(2, 20))))
        first, second = rng.choice(vector), rng.choice(vector)
        if first == second or len(vector) < 2:
            continue
        target = first + second
        sums = [a + b for k, a in enumerate(vector) for b in vector[k + 1 :]]
        if sums.count(target) == 1:
            return [vector, target]


def fizz_buzz(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 1000000)]


def fuel_cost(rng: random.Random) -> list[Any]:
    """Elements 6-10,000; half the vectors 1-5 long, half 6-20."""
    length = rng.randint(1, 5) if rng.random() < 0.5 else rng.randint(6, 20)
    return [_ints(rng, 6, 10000, length)]


def gcd(rng: random.Random) -> list[Any]:
    return [rng.randint(1, 1000000), rng.randint(1, 1000000)]


def indices_of_substring(rng: random.Random) -> list[Any]:
    """A target of 1-6 visible characters (short ones likelier); a text of 1-10 or 11-20
    characters built from copies of the target (each slot the target with a probability
    drawn from [0, 0.8)) and random characters, cut to its length."""
    length = rng.randint(1, 10) if rng.random() < 0.5 else rng.randint(11, 20)
    target = _text(rng, PRINTABLE, rng.choice([1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6]))
    chance = 0.8 * rng.random()
    text = "".join(
        target if rng.random() < chance else rng.choice(PRINTABLE) for _ in range(length)
    )
    return [text[:length], target]


def leaders(rng: random.Random) -> list[Any]:
    return [_ints(rng, 0, 1000, rng.randint(1, 20))]


def luhn(rng: random.Random) -> list[Any]:
    return [_ints(rng, 0, 9, 16)]


def mastermind(rng: random.Random) -> list[Any]:
    """Two codes of four pegs in six colours; the same code twice in 200 of 2000 cases."""
    code = _text(rng, "BRGYOW", 4)
    return [code, code if rng.random() < 0.1 else _text(rng, "BRGYOW", 4)]


def middle_character(rng: random.Random) -> list[Any]:
    return [_text(rng, PRINTABLE, rng.randint(1, 100))]


def paired_digits(rng: random.Random) -> list[Any]:
    """2-20 digits; each next digit repeats the last with a per-string probability drawn
    from [0, 1), so some strings are full of pairs."""
    length = rng.randint(2, 20)
    repeat = rng.random()
    text = rng.choice(DIGITS)
    while len(text) < length:
        text += text[-1] if rng.random() < repeat else rng.choice(DIGITS)
    return [text]


def shopping_list(rng: random.Random) -> list[Any]:
    """1-20 prices in [0, 50] and discounts in [0, 100] (percent), two decimals."""
    n = rng.randint(1, 20)
    return [
        [round(rng.random() * 50, 2) for _ in range(n)],
        [round(rng.random() * 100, 2) for _ in range(n)],
    ]


def snow_day(rng: random.Random) -> list[Any]:
    return [rng.randint(0, 20), rng.random() * 20, rng.random() * 10, rng.random()]


def solve_boolean(rng: random.Random) -> list[Any]:
    """2-20 terms t/f joined by & or |."""
    terms = [rng.choice("tf") for _ in range(rng.randint(2, 20))]
    return ["".join(t + rng.choice("&|") for t in terms[:-1]) + terms[-1]]


def spin_words(rng: random.Random) -> list[Any]:
    """Words (80%: 1-8 letters, 20%: 1-16) separated by spaces, cut to a length of 1-20
    with a trailing space dropped."""
    length = rng.randint(1, 20)
    words: list[str] = []
    while len(" ".join(words)) < length:
        words.append(_text(rng, LOWER, rng.randint(1, 8 if rng.random() < 0.8 else 16)))
    text = " ".join(words)[:length]
    return [text.rstrip(" ")]


def square_digits(rng: random.Random) -> list[Any]:
    return [rng.randint(0, 999998)]


def substitution_cipher(rng: random.Random) -> list[Any]:
    """A cipher of 1-26 distinct letters onto 1-26 distinct letters (two shuffles of the
    alphabet), and a message of 0-26 letters from its source side."""
    size = rng.randint(1, 26)
    source = "".join(rng.sample(LOWER, 26)[:size])
    target = "".join(rng.sample(LOWER, 26)[:size])
    return [source, target, _text(rng, source, rng.randint(0, 26))]


def twitter(rng: random.Random) -> list[Any]:
    return [_text(rng, VISIBLE, rng.randint(0, 200))]


def vector_distance(rng: random.Random) -> list[Any]:
    """Two vectors of floats in [-100, 100); lengths 1 (50), 2 (300), 3 (300), 4 (200),
    5 (100), 6-20 (1050)."""
    n = _mixture(
        rng,
        [
            (50, lambda: 1),
            (300, lambda: 2),
            (300, lambda: 3),
            (200, lambda: 4),
            (100, lambda: 5),
            (1050, lambda: rng.randint(6, 20)),
        ],
    )
    return [[rng.random() * 200 - 100 for _ in range(n)] for _ in range(2)]


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
