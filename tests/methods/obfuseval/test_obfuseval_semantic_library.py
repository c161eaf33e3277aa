"""The library-call rewrites (min/max, sum/len, enumerate) on hand-made snippets.

Each rewrite: the exact text where its precondition holds, no change where it does not,
and the same values as the original on seeded random inputs — both versions executed, so
the oracle is Python itself, not the rewrite.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

cst = pytest.importorskip("libcst")

from beyondpass.methods.obfuseval import semantic  # noqa: E402
from beyondpass.methods.obfuseval.names import NameMaker  # noqa: E402
from beyondpass.methods.obfuseval.rewrite_base import (  # noqa: E402
    Context,
    Rewrite,
    module_facts,
)


def rewrite_all(kind: type[Rewrite], code: str) -> tuple[str, int, list[str]]:
    """Every site of ``kind`` rewritten: the new code, the number of sites, fresh names."""

    def ctx() -> Context:
        made = Context(random.Random(3), NameMaker("3", set(code.split())))
        module_facts(code, made)
        return made

    module = cst.parse_module(code)
    counter = kind(ctx())
    module.visit(counter)
    worker = kind(ctx(), frozenset(range(counter.sites)))
    new = module.visit(worker).code
    assert worker.applied == counter.sites
    return new, counter.sites, worker.ctx.made


def unchanged(kind: type[Rewrite], code: str) -> None:
    new, sites, _ = rewrite_all(kind, code)
    assert (sites, new) == (0, code)


def _fn(code: str, name: str = "f") -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace[name]


def _outcome(function: Any, args: tuple) -> tuple[bool, Any]:
    try:
        value = function(*args)
    except Exception as exc:  # the same exception type counts as the same behaviour
        return False, type(exc)
    return True, (type(value), value)


def agree(old: str, new: str, inputs: list[tuple], name: str = "f") -> None:
    """Both versions executed on every input: equal values of equal type, or the same
    exception type."""
    f, g = _fn(old, name), _fn(new, name)
    for args in inputs:
        assert _outcome(f, args) == _outcome(g, args), args


def _numbers(rng: random.Random) -> Any:
    return rng.choice(
        [
            rng.randint(-5, 5),
            rng.uniform(-3, 3),
            rng.choice([0.0, -0.0, float("nan"), float("inf"), True, False]),
            10**20 + rng.randint(0, 3),
        ]
    )


def _lists(rng: random.Random, make: Any = _numbers) -> list:
    return [make(rng) for _ in range(rng.randint(0, 6))]


# ---- min/max <-> conditional expression ----

MINMAX = """\
def f(a, b):
    low = min(a, b)
    high = max(a, 0)
    return low, high, (max(b, a))
"""


def test_minmax_to_conditional_exact_text_and_values() -> None:
    new, sites, _ = rewrite_all(semantic.MinMaxToConditional, MINMAX)
    assert sites == 3
    assert new == (
        "def f(a, b):\n"
        "    low = (b if b < a else a)\n"
        "    high = (0 if 0 > a else a)\n"
        "    return low, high, ((a if a > b else b))\n"
    )
    rng = random.Random(11)
    inputs = [(_numbers(rng), _numbers(rng)) for _ in range(300)]
    inputs += [("b", "a"), ([1], [0, 5]), ((1,), (1,)), ({1}, {2}), (1, "x"), (None, 2)]
    agree(MINMAX, new, inputs)


class _Logged:
    """A value that records every comparison made on it: min/max and the conditional must
    call the same method on the same objects in the same order."""

    def __init__(self, key: int, log: list) -> None:
        self.key, self.log = key, log

    def __lt__(self, other: Any) -> Any:
        other_key = getattr(other, "key", other)  # a plain number: the reflected call
        self.log.append(("lt", self.key, other_key))
        return self.key < other_key

    def __gt__(self, other: Any) -> Any:
        other_key = getattr(other, "key", other)
        self.log.append(("gt", self.key, other_key))
        return self.key > other_key


def test_minmax_makes_the_same_comparison_calls_and_returns_the_same_object() -> None:
    new, _, _ = rewrite_all(semantic.MinMaxToConditional, MINMAX)
    f, g = _fn(MINMAX), _fn(new)
    rng = random.Random(5)
    for _ in range(50):
        keys = rng.randint(0, 3), rng.randint(0, 3)
        log_f: list = []
        log_g: list = []
        a, b = (_Logged(k, log_f) for k in keys)
        c, d = (_Logged(k, log_g) for k in keys)
        got_f = f(a, b)
        got_g = g(c, d)
        assert log_f == log_g
        # the very same argument object comes back (a tie returns the first argument)
        pos_f = [[a, b].index(x) if x in (a, b) else x for x in got_f]
        assert pos_f == [[c, d].index(x) if x in (c, d) else x for x in got_g]


@pytest.mark.parametrize(
    "code",
    [
        "def f(a, b):\n    return min(a, b, key=abs)\n",  # a key
        "def f(a, b):\n    return max(a, b, 3)\n",  # three arguments
        "def f(xs):\n    return min(xs)\n",  # one iterable
        "def f(a):\n    return max(*a)\n",  # starred
        "def f(a, g):\n    return min(a, g())\n",  # a call: evaluated once, not twice
        "def f(a, xs):\n    return max(a, xs[0])\n",  # a subscript runs __getitem__
        "def f(a, o):\n    return min(a, o.x)\n",  # an attribute may be a property
        "def f(a, b):\n    g = lambda: b\n    return max(a, b)\n",  # b is captured
        "def f(a):\n    return min(a, n)\n",  # a global: __lt__ could rebind it
        "def min(a, b):\n    return a\ndef f(a, b):\n    return min(a, b)\n",  # not builtin
        "m = max(1, 2)\n",  # module level
    ],
)
def test_minmax_to_conditional_refuses(code: str) -> None:
    unchanged(semantic.MinMaxToConditional, code)


CONDITIONAL = """\
def f(a, b):
    low = a if a < b else b
    high = (b if b > 0 else 0)
    return low, high
"""


def test_conditional_to_minmax_exact_text_and_values() -> None:
    new, sites, _ = rewrite_all(semantic.ConditionalToMinMax, CONDITIONAL)
    assert sites == 2
    assert (
        new == "def f(a, b):\n    low = min(b, a)\n    high = (max(0, b))\n    return low, high\n"
    )
    rng = random.Random(12)
    inputs = [(_numbers(rng), _numbers(rng)) for _ in range(300)]
    agree(CONDITIONAL, new, [*inputs, ("a", "b"), ([2], [1, 1]), (1, "x")])
    back, _, _ = rewrite_all(semantic.MinMaxToConditional, new)
    agree(CONDITIONAL, back, inputs)


@pytest.mark.parametrize(
    "code",
    [
        "def f(a, b):\n    return a if a <= b else b\n",  # ties differ from min
        "def f(a, b):\n    return a if b > a else b\n",  # another comparison call
        "def f(a, b):\n    return b if a < b else a\n",  # that is max's shape with <
        "def f(a, b, c):\n    return a if a < b else c\n",
        "def f(a, b):\n    return a if a < b < 3 else b\n",  # chained
        "def f(a, xs):\n    return a if a < xs[0] else xs[0]\n",  # read twice
    ],
)
def test_conditional_to_minmax_refuses(code: str) -> None:
    unchanged(semantic.ConditionalToMinMax, code)


# ---- sum/len <-> counting loop ----

SUMS = """\
def f(xs, ws):
    count = sum(1 for x in xs if x > 2)
    size = sum([len(w) for w in ws if w])
    return count, size

def g(xs):
    return sum(x in (1, 2) for x in xs)

def h(xs):
    return len([y for y in xs if y % 3])
"""


def test_sum_and_len_to_loop_exact_text_and_values() -> None:
    new, sites, made = rewrite_all(semantic.SumToLoop, SUMS)
    assert sites == 3
    (two,) = made
    assert new == (
        "def f(xs, ws):\n"
        "    count = 0\n"
        "    for x in xs:\n"
        "        if x > 2:\n"
        "            count = count + 1\n"
        "    size = 0\n"
        "    for w in ws:\n"
        "        if w:\n"
        "            size = size + len(w)\n"
        "    return count, size\n"
        "\n"
        "def g(xs):\n"
        f"    {two} = 0\n"
        "    for x in xs:\n"
        f"        {two} = {two} + (x in (1, 2))\n"
        f"    return {two}\n"
        "\n"
        "def h(xs):\n"
        "    return len([y for y in xs if y % 3])\n"
    )
    rng = random.Random(13)
    ints = lambda r: r.randint(-4, 6)  # noqa: E731
    words = lambda r: "".join(r.choice("ab") for _ in range(r.randint(0, 3)))  # noqa: E731
    inputs = [(_lists(rng, ints), _lists(rng, words)) for _ in range(200)]
    agree(SUMS, new, inputs)
    agree(SUMS, new, [(x,) for x, _ in inputs], name="g")
    agree(SUMS, new, [([1, "a"], [])], name="f")  # the same TypeError from `"a" > 2`
    lens, sites, made = rewrite_all(semantic.LenToLoop, SUMS)
    assert sites == 1
    (three,) = made
    assert lens.endswith(
        f"def h(xs):\n    {three} = 0\n    for y in xs:\n        if y % 3:\n"
        f"            {three} = {three} + 1\n    return {three}\n"
    )
    agree(SUMS, lens, [(x,) for x, _ in inputs] + [([1.5, -2.0, 3],)], name="h")


@pytest.mark.parametrize(
    "code",
    [
        # the terms' type depends on the inputs: floats sum differently (3.12's sum)
        "def f(xs):\n    return sum(x for x in xs)\n",
        "def f(xs):\n    return sum(x > 0 for x in xs)\n",
        "def f(xs):\n    return sum(1 for x in xs) + 1\n",  # not a whole value
        "def f(xs):\n    return sum((1 for x in xs), 10)\n",  # a start value
        "def f(xs):\n    x = 0\n    n = sum(1 for x in xs)\n    return n, x\n",  # shared
        "def f(xs):\n    xs = sum(1 for x in xs)\n    return xs\n",  # target in use
        "def f(xs):\n    try:\n        n = sum(1 for x in xs)\n"
        "    except TypeError:\n        n = -1\n    return n\n",  # a try
        "def f(xs):\n    return sum(len(locals()) for x in xs)\n",  # sees its scope
        "def len(x):\n    return 2.5\ndef f(xs):\n    return sum(len(x) for x in xs)\n",
    ],
)
def test_sum_to_loop_refuses(code: str) -> None:
    unchanged(semantic.SumToLoop, code)


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs):\n    return len([g(x) for x in xs])\n",  # the element runs code
        "def f(xs):\n    return len([x[0] for x in xs])\n",  # it may raise
        "def f(xs):\n    return len({x for x in xs})\n",  # a set: duplicates collapse
        "def f(xs):\n    return len(x for x in xs)\n",  # a TypeError, kept
    ],
)
def test_len_to_loop_refuses(code: str) -> None:
    unchanged(semantic.LenToLoop, code)


def test_loop_to_sum_exact_text_and_values() -> None:
    code = (
        "def f(xs):\n    n = 0\n    for x in xs:\n        if x % 2 if x else True:\n"
        "            n += 1\n    return n\n"
    )
    new, sites, _ = rewrite_all(semantic.LoopToSum, code)
    assert sites == 1
    assert new == "def f(xs):\n    n = sum(1 for x in xs if (x % 2 if x else True))\n    return n\n"
    rng = random.Random(14)
    ints = lambda r: r.randint(-4, 6)  # noqa: E731
    agree(code, new, [(_lists(rng, ints),) for _ in range(200)] + [([1, "a"],), (None,)])
    pairs = "def f(xs):\n    t = 0\n    for a, b in xs:\n        t = t + len(b)\n    return t\n"
    new, sites, _ = rewrite_all(semantic.LoopToSum, pairs)
    assert new == "def f(xs):\n    t = sum(len(b) for a, b in xs)\n    return t\n"
    words = lambda r: (r.randint(0, 3), "x" * r.randint(0, 4))  # noqa: E731
    agree(pairs, new, [(_lists(rng, words),) for _ in range(100)] + [([(1, 2)],)])
    # and sum_to_loop's output folds back into the same values
    back, _, _ = rewrite_all(semantic.SumToLoop, new)
    agree(pairs, back, [(_lists(rng, words),) for _ in range(100)])


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs):\n    n = 0\n    for x in xs:\n        n += x\n    return n\n",  # any type
        "def f(xs):\n    n = 0\n    for x in xs:\n        n += 1\n    return n, x\n",  # x
        "def f(xs):\n    n = 1\n    for x in xs:\n        n += 1\n    return n\n",  # start 1
        "def f(xs):\n    n = 0\n    for x in xs:\n        n += 1\n"
        "    else:\n        n = -1\n    return n\n",  # else
        "def f(xs):\n    n = 0\n    for x in xs:\n        if n < 3:\n            n += 1\n"
        "    return n\n",  # the condition reads the total
        "def f(xs):\n    n = 0\n    for x in xs:\n        n += 1\n        print(x)\n"
        "    return n\n",  # more in the body
        "def f(xs):\n    n = 0\n    for x in xs:\n        n -= 1\n    return n\n",
    ],
)
def test_loop_to_sum_refuses(code: str) -> None:
    unchanged(semantic.LoopToSum, code)


# ---- enumerate -> manual counter ----

ENUMERATE = """\
def f(xs):
    out = []
    # pairs
    for i, (a, b) in enumerate(xs, start=1):
        if a:
            continue
        out.append((i, b))
    else:
        out.append(-1)
    for j, y in enumerate(x * 2 for x in xs): out.append((j, y))
    return out, i
"""


def test_enumerate_to_counter_exact_text_and_values() -> None:
    new, sites, (k1, k2) = rewrite_all(semantic.EnumerateToCounter, ENUMERATE)
    assert sites == 2
    assert new == (
        "def f(xs):\n"
        "    out = []\n"
        "    # pairs\n"
        f"    {k1} = 1\n"
        "    for (a, b) in xs:\n"
        f"        i = {k1}\n"
        f"        {k1} += 1\n"
        "        if a:\n"
        "            continue\n"
        "        out.append((i, b))\n"
        "    else:\n"
        "        out.append(-1)\n"
        f"    {k2} = 0\n"
        "    for y in (x * 2 for x in xs):\n"
        f"        j = {k2}\n"
        f"        {k2} += 1\n"
        "        out.append((j, y))\n"
        "    return out, i\n"
    )
    rng = random.Random(15)
    pair = lambda r: (r.randint(0, 1), r.randint(-3, 3))  # noqa: E731
    inputs = [(_lists(rng, pair),) for _ in range(200)]
    # an empty input leaves `i` unbound in both; a bad pair raises in both
    agree(ENUMERATE, new, [*inputs, ([],), ([(1, 2, 3)],), (5,)])


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs, s):\n    for i, x in enumerate(xs, s):\n        pass\n",  # start not a literal
        "def f(xs):\n    for i, x in enumerate(xs, 1.5):\n        pass\n",  # TypeError kept
        "def f(xs):\n    for p in enumerate(xs):\n        pass\n",  # one target
        "def f(xs):\n    for i, i in enumerate(xs):\n        pass\n    return i\n",
        "def f(xs):\n    for i, *r in enumerate(xs):\n        pass\n",
        "def f(xs):\n    try:\n        for i, (a, b) in enumerate(xs):\n            pass\n"
        "    except ValueError:\n        return i\n",  # a try could see i bound first
        "enumerate = zip\ndef f(xs):\n    for i, x in enumerate(xs):\n        pass\n",
        "for i, x in enumerate([1]):\n    pass\n",  # module level
    ],
)
def test_enumerate_to_counter_refuses(code: str) -> None:
    unchanged(semantic.EnumerateToCounter, code)


def test_the_registry_holds_each_new_rewrite_with_its_inverse_excluded() -> None:
    names = {r.name for r in semantic.LIBRARY}
    new = {
        "minmax_to_conditional",
        "conditional_to_minmax",
        "sum_to_loop",
        "len_to_loop",
        "loop_to_sum",
        "enumerate_to_counter",
    }
    assert new <= names
    pairs = {frozenset(p) for p in semantic.INVERSES}
    assert frozenset({"minmax_to_conditional", "conditional_to_minmax"}) in pairs
    assert frozenset({"sum_to_loop", "loop_to_sum"}) in pairs
