"""Each semantic rewrite on hand-written snippets: where its precondition holds it rewrites
and the result behaves like the original on chosen inputs (run here, trusted test code);
where the precondition fails it must not touch the code."""

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


def _ctx(code: str = "") -> Context:
    ctx = Context(random.Random(3), NameMaker("3", set(code.split())))
    module_facts(code, ctx)  # shadowed builtins, functions with try or global
    return ctx


def rewrite_all(kind: type[Rewrite], code: str) -> tuple[str, int]:
    """Every site of ``kind`` rewritten; the new code and the number of sites."""
    module = cst.parse_module(code)
    counter = kind(_ctx(code))
    module.visit(counter)
    worker = kind(_ctx(code), frozenset(range(counter.sites)))
    new = module.visit(worker).code
    assert worker.applied == counter.sites
    return new, counter.sites


def _fn(code: str, name: str = "f") -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace[name]


def same_behaviour(old: str, new: str, inputs: list[tuple], name: str = "f") -> None:
    f, g = _fn(old, name), _fn(new, name)
    for args in inputs:
        assert f(*args) == g(*args), args


def unchanged(kind: type[Rewrite], code: str) -> None:
    new, sites = rewrite_all(kind, code)
    assert sites == 0
    assert new == code


LOOPS = """\
def f(xs, n):
    total = 0
    for i in range(1, n):
        if i == 3:
            continue
        total += i
    else:
        total += 100
    for x in xs:
        if x < 0:
            break
        total += x
    return total, i
"""


def test_for_to_while_keeps_range_semantics_and_the_else_clause() -> None:
    new, sites = rewrite_all(semantic.ForToWhile, LOOPS)
    assert sites == 2
    assert "for " not in new and new.count("while ") == 2
    assert ".start" in new and ".stop" in new and "next(" in new
    same_behaviour(LOOPS, new, [([1, 2], 5), ([5, -1, 7], 8), ([3], 2), ([3], 3)])


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs):\n    for x in xs:\n        pass\n    else:\n        return 1\n",
        "for x in [1, 2]:\n    print(x)\n",  # module level
        # `range` rebound by the module is not the builtin: no range form; with else, nothing
        "range = list\ndef f(n):\n    for i in range(n):\n        pass\n"
        "    else:\n        return i\n",
    ],
)
def test_for_to_while_refuses_for_else_over_other_iterables_and_module_level(code: str) -> None:
    unchanged(semantic.ForToWhile, code)


def test_while_to_for_with_break_and_continue() -> None:
    code = (
        "def f(n):\n    k = 0\n    while n > 0:\n        n -= 1\n"
        "        if n == 2:\n            continue\n        k += n\n    return k\n"
    )
    new, sites = rewrite_all(semantic.WhileToFor, code)
    assert sites == 1 and "while" not in new and "iter(int, 1)" in new
    same_behaviour(code, new, [(0,), (1,), (5,), (9,)])
    unchanged(
        semantic.WhileToFor,
        "def f(n):\n    while n:\n        n -= 1\n    else:\n        n = 5\n    return n\n",
    )


def test_comprehension_to_loop_for_assignments_and_returns() -> None:
    code = (
        "def f(xs):\n"
        "    ys = [x * 2 for x in xs if x % 2]\n"
        "    return {y + 1 for y in ys for _ in range(2)}\n"
    )
    new, sites = rewrite_all(semantic.ComprehensionToLoop, code)
    assert sites == 2
    assert ".append(" in new and ".add(" in new
    assert "[x * 2" not in new and "{y + 1" not in new
    same_behaviour(code, new, [([1, 2, 3],), ([],), ([4, 5, 5],)])


@pytest.mark.parametrize(
    "code",
    [
        # the comprehension variable is also a variable of the function: a loop would clobber it
        "def f(xs):\n    x = 5\n    ys = [x for x in xs]\n    return ys, x\n",
        # the target is read inside the comprehension: `xs = []` first would empty it
        "def f(xs):\n    xs = [x + 1 for x in xs]\n    return xs\n",
        # a try could observe the half-built list
        "def f(xs):\n    try:\n        ys = [1 / x for x in xs]\n"
        "    except ZeroDivisionError:\n        ys = None\n    return ys\n",
        # dict comprehensions are not rewritten (key/value evaluation order)
        "def f(xs):\n    return {x: 1 for x in xs}\n",
    ],
)
def test_comprehension_to_loop_refuses_unsafe_sites(code: str) -> None:
    unchanged(semantic.ComprehensionToLoop, code)


def test_loop_to_comprehension_folds_the_accumulator_pattern() -> None:
    code = (
        "def f(xs):\n    out = []\n    for x in xs:\n        if x > 1:\n"
        "            out.append(x * 3)\n    return out\n"
    )
    new, sites = rewrite_all(semantic.LoopToComprehension, code)
    assert sites == 1
    assert "out = [x * 3 for x in xs if x > 1]" in new and "append" not in new
    same_behaviour(code, new, [([0, 2, 5],), ([],)])


@pytest.mark.parametrize(
    "code",
    [
        # the loop variable is read after the loop (a comprehension would not leak it)
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out, x\n",
        # the element refers to the list being built
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(len(out))\n"
        "    return out\n",
        # an else clause
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n"
        "    else:\n        out = None\n    return out\n",
        # something between the empty list and the loop
        "def f(xs):\n    out = []\n    out.append(0)\n    for x in xs:\n"
        "        out.append(x)\n    return out\n",
    ],
)
def test_loop_to_comprehension_refuses_unsafe_sites(code: str) -> None:
    unchanged(semantic.LoopToComprehension, code)


def test_invert_if_negates_and_swaps_and_keeps_unspaced_tests_valid() -> None:
    code = (
        "def f(a, b):\n"
        "    if(a > b):\n"
        "        r = 'gt'\n"
        "    elif not a:\n"
        "        r = 'zero'\n"
        "    else:\n"
        "        r = 'le'\n"
        "    if a:\n"
        "        r += '!'\n"
        "    return r\n"
    )
    new, sites = rewrite_all(semantic.InvertIf, code)
    assert sites == 1  # only the elif has a plain else; the first if's else is the elif
    assert "elif a:" in new
    same_behaviour(code, new, [(1, 2), (3, 2), (0, 5), (0, -1)])
    plain = "def f(a, b):\n    if(a > b):\n        return 1\n    else:\n        return 2\n"
    new, sites = rewrite_all(semantic.InvertIf, plain)
    assert sites == 1 and "if not (a > b):" in new
    same_behaviour(plain, new, [(1, 2), (3, 2)])
    unchanged(semantic.InvertIf, "def f(a):\n    if a:\n        a = 2\n    return a\n")


def test_early_return_becomes_one_result_variable() -> None:
    code = "def f(x):\n    if x < 0:\n        return 'neg'\n    y = x * 2\n    return y\n"
    new, sites = rewrite_all(semantic.EarlyReturnToVariable, code)
    assert sites == 1 and new.count("return") == 1 and "else:" in new
    same_behaviour(code, new, [(-1,), (0,), (4,)])


@pytest.mark.parametrize(
    "code",
    [
        # a second return inside a loop after the guard
        "def f(xs):\n    if not xs:\n        return 0\n    for x in xs:\n        if x:\n"
        "            return x\n    return -1\n",
        # a generator
        "def f(x):\n    if x:\n        return\n    yield 1\n    return 2\n",
        # the guard has an else already
        "def f(x):\n    if x:\n        return 1\n    else:\n        x = 2\n    return x\n",
    ],
)
def test_early_return_refuses_functions_with_other_returns(code: str) -> None:
    unchanged(semantic.EarlyReturnToVariable, code)


def test_swap_operands_mirrors_comparisons_and_numeric_literal_sums() -> None:
    code = (
        "def f(a, b, xs):\n"
        "    c = a <= b\n"
        "    d = xs[0] != 3\n"
        "    e = a - b + 1\n"
        "    g = 2 * xs\n"
        "    return c, d, e, g\n"
    )
    new, sites = rewrite_all(semantic.SwapOperands, code)
    assert sites == 4
    assert "b >= a" in new and "3 != xs[0]" in new and "1 + (a - b)" in new
    assert "xs * 2" in new  # list repetition commutes with an integer
    same_behaviour(code, new, [(1, 2, [3]), (5, 2, [4, 1]), (2, 2, [0])])


@pytest.mark.parametrize(
    "code",
    [
        "def f(a, b):\n    return a + b\n",  # unknown types: str + str does not commute
        "def f(s):\n    return s + 'x'\n",  # a string literal
        "def f(a, b, c):\n    return a < b < c\n",  # chained
        "def f(g, b):\n    return g() == b\n",  # a call: evaluation order could matter
        "def f(a, b):\n    return a is b or a in b\n",  # identity and membership
        "def f(a, b):\n    return a and b\n",  # short-circuit operators keep their order
    ],
)
def test_swap_operands_refuses_unsafe_operands(code: str) -> None:
    unchanged(semantic.SwapOperands, code)


def test_builtin_to_loop_writes_any_and_all_by_hand() -> None:
    code = (
        "def f(xs):\n"
        "    has = any(x > 2 for x in xs if x != 5)\n"
        "    return has, all(y % 2 for y in xs)\n"
        "def g(xs):\n"
        "    return all(y % 2 for y in xs)\n"
    )
    new, sites = rewrite_all(semantic.BuiltinToLoop, code)
    assert sites == 2  # `return has, all(...)` returns a tuple, not the call
    assert "any(" not in new and new.count("break") == 2
    same_behaviour(code, new, [([1, 3, 5],), ([],), ([5, 1],), ([2, 4],)])
    same_behaviour(code, new, [([1, 3],), ([2],), ([],)], name="g")


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs):\n    return any([x > 2 for x in xs])\n",  # a list: evaluated in full first
        "def any(xs):\n    return 1\ndef f(xs):\n    return any(x for x in xs)\n",  # shadowed
        "def f(xs):\n    x = 1\n    return any(x for x in xs), x\n",  # not a whole value
        "def f(xs):\n    x = 1\n    found = any(x for x in xs)\n    return found, x\n",  # shared
    ],
)
def test_builtin_to_loop_refuses_other_arguments(code: str) -> None:
    unchanged(semantic.BuiltinToLoop, code)


def test_loop_to_builtin_recognises_search_loops() -> None:
    code = (
        "def f(xs):\n    for x in xs:\n        if x > 3:\n            return True\n"
        "    return False\n"
        "def g(xs):\n    for x in xs:\n        if x:\n            return False\n"
        "    return True\n"
    )
    new, sites = rewrite_all(semantic.LoopToBuiltin, code)
    assert sites == 2
    assert "return any(x > 3 for x in xs)" in new and "return all(not x for x in xs)" in new
    for name in ("f", "g"):
        same_behaviour(code, new, [([1, 5],), ([],), ([0, 0],)], name=name)
    unchanged(
        semantic.LoopToBuiltin,
        "def f(xs):\n    for x in xs:\n        if x:\n            return True\n    return True\n",
    )


def test_a_variant_is_seeded_and_records_what_it_applied() -> None:
    code = (
        LOOPS + "\ndef g(a, b):\n    if a == b:\n        return [x for x in a]\n    return None\n"
    )
    runs = []
    for seed in (1, 1, 2):
        ctx = Context(random.Random(seed), NameMaker(str(seed), set(code.split())))
        new, applied = semantic.rewrite_semantics(cst.parse_module(code), ctx)
        runs.append((new.code, applied))
    assert runs[0] == runs[1]  # same seed, same variant
    assert runs[0][0] != code and runs[0][1]
    assert set(runs[0][1]) <= {r.name for r in semantic.LIBRARY}
    for new_code, _ in runs:
        same_behaviour(code, new_code, [([1, 2], 5), ([4], 4), ([0], 2)])
        same_behaviour(code, new_code, [([1], [1]), ([2], [3])], name="g")


def test_return_via_variable_is_only_the_fallback() -> None:
    bare = "def f(x):\n    return x\n"
    ctx = Context(random.Random(0), NameMaker("0", {"f", "x"}))
    new, applied = semantic.rewrite_semantics(cst.parse_module(bare), ctx)
    assert applied == {"return_via_variable": 1}
    same_behaviour(bare, new.code, [(1,), ("a",)])
    richer = "def f(x):\n    return x == 1\n"
    ctx = Context(random.Random(0), NameMaker("0", {"f", "x"}))
    _, applied = semantic.rewrite_semantics(cst.parse_module(richer), ctx)
    assert applied and "return_via_variable" not in applied


def test_variable_to_early_return_is_the_inverse() -> None:
    code = (
        "def f(x):\n    y = x + 1\n    if y > 2:\n        z = y * 2\n        r = z\n"
        "    else:\n        r = -y\n    return r\n"
    )
    new, sites = rewrite_all(semantic.VariableToEarlyReturn, code)
    assert sites == 1 and "else" not in new and new.count("return") == 2 and "r = " not in new
    same_behaviour(code, new, [(0,), (1,), (5,)])
    # `r` used elsewhere, or the if without else: not applied
    unchanged(
        semantic.VariableToEarlyReturn,
        "def f(x):\n    r = 0\n    if x:\n        r = 1\n    else:\n        r = 2\n    return r\n",
    )
    unchanged(
        semantic.VariableToEarlyReturn,
        "def f(x):\n    r = 0\n    if x:\n        r = 1\n    return r\n",
    )
    # and early_return_to_variable's output turns back into the same shape
    back, _ = rewrite_all(semantic.EarlyReturnToVariable, new)
    same_behaviour(code, back, [(0,), (5,)])


def test_variable_to_early_return_ignores_branches_ending_in_a_compound_statement() -> None:
    code = (
        "def f(xs):\n    if xs:\n        r = 1\n    else:\n        for x in xs:\n"
        "            r = x\n    return r\n"
    )
    unchanged(semantic.VariableToEarlyReturn, code)
