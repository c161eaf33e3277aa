"""Symbol obfuscation on hand-written tasks: scope, keywords, attributes, prose, seeds.

The renamed programs are our own trusted code, so they are run with ``exec`` here to show
that behaviour is unchanged; benchmark tasks are verified in the sandbox elsewhere.
"""

from __future__ import annotations

import ast
import builtins
import keyword

import pytest

pytest.importorskip("libcst")

from beyondpass.benchmarks.task import Task, TestCase  # noqa: E402
from beyondpass.methods.obfuseval.names import NameMaker, segment, word_list  # noqa: E402
from beyondpass.methods.obfuseval.symbol import Unsupported, rename_prose  # noqa: E402
from beyondpass.methods.obfuseval.task import obfuscate_symbols  # noqa: E402

REFERENCE = '''\
import math


def double(len):
    # len here is a parameter that shadows the builtin
    return len * 2


class Box:
    def __init__(self, items):
        self.items = items

    def size(self):
        return len(self.items)


def count_items(items, scale=1):
    """Count the items, scaled.
    >>> count_items([1, 2])
    2
    """
    box = Box(items)
    ordered = sorted(items, key=abs)
    return double(box.size()) // 2 * scale + math.floor(0.5) + 0 * len(ordered)
'''

PROMPT = REFERENCE[: REFERENCE.index("    box = Box")]


def _task(**changes: object) -> Task:
    fields = dict(
        benchmark="t",
        task_id="T/1",
        language="python",
        prompt=PROMPT,
        entry_point="count_items",
        reference_solution=REFERENCE,
        tests=(
            TestCase("a", "assert count_items([1, -2, 3]) == 3"),
            TestCase("b", "assert count_items(items=[5], scale=4) == 4"),
        ),
        prompt_style="completion",
    )
    fields.update(changes)
    return Task(**fields)  # type: ignore[arg-type]


def _run(program: str, test: str) -> None:
    env: dict[str, object] = {}
    exec(compile(program, "<program>", "exec"), env)  # noqa: S102 - our own test code
    exec(compile(test, "<test>", "exec"), env)  # noqa: S102


def _names(code: str) -> set[str]:
    """Identifiers by Python's own parser (not the code under test)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            out.add(node.arg)
    return out


def test_renamed_task_behaves_the_same_and_keeps_builtins_imports_attributes() -> None:
    new, info = obfuscate_symbols(_task(), seed=3)
    mapping = info["mapping"]
    for test in new.tests:
        _run(new.reference_solution, test.code)  # raises if behaviour changed
    names = _names(new.reference_solution)
    # the task's own names are gone from the code; builtins, imports and attributes stay
    for old in ("count_items", "double", "items", "scale", "box", "ordered"):
        assert old not in names, old
        assert mapping[old] in names
    assert {"len", "sorted", "abs", "math"} <= names
    # `items` is also a dict's attribute: `.items` could be a builtin's, so it is kept
    assert "len(self.items)" in new.reference_solution
    assert "math.floor" in new.reference_solution
    assert "key=abs" in new.reference_solution  # a builtin's keyword is not the task's
    # the parameter called `len` is renamed only inside double()
    assert mapping["len"] != "len" and f"return {mapping['len']} * 2" in new.reference_solution
    # the class is renamed, and so is its own method `size` (no built-in type has one),
    # at its definition and where it is called
    assert "Box" not in names and "size" not in new.reference_solution
    assert f"def {mapping['size']}(self)" in new.reference_solution
    assert f".{mapping['size']}()" in new.reference_solution
    # the keyword arguments of the task's own function are renamed in the tests
    assert f"{mapping['items']}=[5]" in new.tests[1].code
    assert f"{mapping['scale']}=4" in new.tests[1].code
    assert new.entry_point == mapping["count_items"]


def test_prompt_docstring_and_comments_use_the_same_mapping() -> None:
    new, info = obfuscate_symbols(_task(), seed=3)
    mapping = info["mapping"]
    assert new.reference_solution.startswith(new.prompt)  # the prompt is still its prefix
    assert f">>> {mapping['count_items']}([1, 2])" in new.prompt
    assert "count_items" not in new.prompt and "Count the" in new.prompt
    assert f"# {mapping['len']} here is a parameter" in new.prompt
    assert info["original_entry_point"] == "count_items"
    assert new.metadata["obfuscation"]["mapping"] == mapping


def test_mapping_is_seeded_injective_and_fresh() -> None:
    a, info_a = obfuscate_symbols(_task(), seed=1)
    b, info_b = obfuscate_symbols(_task(), seed=1)
    _, info_c = obfuscate_symbols(_task(), seed=2)
    assert a == b and info_a["mapping"] == info_b["mapping"]
    assert info_a["mapping"] != info_c["mapping"]
    for mapping in (info_a["mapping"], info_c["mapping"]):
        new = list(mapping.values())
        assert len(set(new)) == len(new)  # injective: no two names merge
        original = _names(REFERENCE) | {"self", "math", "floor"}
        reserved = set(dir(builtins)) | set(keyword.kwlist)
        assert not set(new) & (original | reserved)


def test_new_names_are_words_from_the_list_in_the_old_style() -> None:
    assert segment("has_closeElements2") == ["has", "close", "Elements", "2"]
    assert segment("HTTPServer") == ["HTTP", "Server"]
    maker = NameMaker("s", taken=())
    words = set(word_list())
    snake = maker.new_name("max_sub_array")
    assert snake.count("_") == 2 and all(w in words for w in snake.split("_"))
    sub = maker.new_name("sub")  # the same old word, the same new word
    assert sub.islower() and sub == snake.split("_")[1]
    assert maker.new_name("Node")[0].isupper()
    assert maker.new_name("MAX_SIZE").isupper()
    assert maker.new_name("list1").endswith("1")


def test_prose_rename_is_one_pass_without_cascade_and_keeps_function_words() -> None:
    mapping = {"ab": "cd", "cd": "ef", "a": "zz"}
    assert rename_prose("ab cd, a list; x.ab abc", mapping) == "cd ef, a list; x.ab abc"


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("def f(x):\n    return getattr(x, 'real')\n", "getattr"),
        ("def f(x):\n    return eval('x + 1')\n", "eval"),
        ("def f(x):\n    return globals()['x']\n", "globals"),
        ("def f(x:\n", "does not parse"),
        ("def g(x):\n    return x\n", "does not define the entry point f"),
    ],
)
def test_unsafe_tasks_are_refused_with_the_reason(reference: str, reason: str) -> None:
    task = _task(
        reference_solution=reference,
        prompt="Write f.\n",
        entry_point="f",
        prompt_style="description",
        tests=(TestCase("t", "assert f(1) == 1"),),
    )
    with pytest.raises(Unsupported, match=reason):
        obfuscate_symbols(task, seed=0)


def test_description_task_renames_prose_and_example_assertion() -> None:
    task = _task(
        reference_solution="def min_cost(cost, m, n):\n    return cost[m][n]\n",
        prompt="Find the min_cost path to (m, n) in cost.\nYour code should pass this test:\n"
        "assert min_cost([[1]], 0, 0) == 1\n",
        entry_point="min_cost",
        prompt_style="description",
        tests=(TestCase("t0", "assert min_cost([[1]], 0, 0) == 1"),),
    )
    new, info = obfuscate_symbols(task, seed=0)
    m = info["mapping"]
    assert new.prompt == (
        f"Find the {m['min_cost']} path to ({m['m']}, {m['n']}) in {m['cost']}.\n"
        f"Your code should pass this test:\nassert {m['min_cost']}([[1]], 0, 0) == 1\n"
    )
    _run(new.reference_solution, new.tests[0].code)


def test_program_redefining_a_builtin_is_called_by_its_new_name_in_tests() -> None:
    task = _task(
        reference_solution="def sum(a, b):\n    return a - b\n",
        prompt="Subtract.\n",
        entry_point="sum",
        prompt_style="description",
        tests=(TestCase("t0", "assert sum(3, 1) == 2"),),
    )
    new, info = obfuscate_symbols(task, seed=0)
    assert new.tests[0].code == f"assert {info['mapping']['sum']}(3, 1) == 2"
    _run(new.reference_solution, new.tests[0].code)


ATTRIBUTES = """\
import math


class Counter:
    limit = 3
    floor = 1

    def __init__(self):
        self.total = 0
        self.seen = {}

    def bump(self, key):
        self.total += 1
        self.seen[key] = self.seen.get(key, 0) + 1
        return min(self.total, Counter.limit) + math.floor(0.5) + self.floor


def tally(keys):
    c = Counter()
    for k in keys:
        c.bump(k)
    return c.total, sorted(c.seen.items()), c.limit
"""


def test_attributes_the_task_defines_are_renamed_unless_a_library_could_own_them() -> None:
    task = _task(
        prompt="",
        reference_solution=ATTRIBUTES,
        entry_point="tally",
        tests=(TestCase("a", "assert tally('aba') == (3, [('a', 2), ('b', 1)], 3)"),),
        prompt_style="description",
    )
    new, info = obfuscate_symbols(task, seed=5)
    mapping = info["mapping"]
    _run(new.reference_solution, new.tests[0].code)  # behaviour unchanged
    code = new.reference_solution
    # the task's own attributes: class attribute, methods, self.X -- renamed everywhere
    for old in ("limit", "total", "seen", "bump"):
        assert f".{old}" not in code and f"{old} =" not in code, old
        assert mapping[old] in code
    assert "Counter" not in code and f"{mapping['Counter']}.{mapping['limit']}" in code
    # kept: `floor` is also read from the math module; `get` and `items` are a dict's;
    # dunders and `self` are never renamed
    assert "self.floor" in code and "floor = 1" in code and "math.floor" in code
    assert ".get(" in code and ".items()" in code and "def __init__(self)" in code
    assert "floor" not in mapping and "items" not in mapping
