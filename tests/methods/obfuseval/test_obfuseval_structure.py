"""Structure transforms on hand-written modules (behaviour compared by running both here,
trusted code), the cases where they must not apply, the task-level wiring (prompt read off
the new reference, "not applicable" reasons) and the agreement check in the sandbox."""

from __future__ import annotations

import random
from typing import Any

import pytest

cst = pytest.importorskip("libcst")

from beyondpass.benchmarks.task import Benchmark, Task, TestCase  # noqa: E402
from beyondpass.methods.obfuseval.agreement import agreement_program  # noqa: E402
from beyondpass.methods.obfuseval.names import NameMaker  # noqa: E402
from beyondpass.methods.obfuseval.rewrite_base import Context  # noqa: E402
from beyondpass.methods.obfuseval.structure import (  # noqa: E402
    extract_helper,
    inline_helpers,
    reorder_definitions,
)
from beyondpass.methods.obfuseval.symbol import Unsupported  # noqa: E402
from beyondpass.methods.obfuseval.task import obfuscate_code  # noqa: E402
from beyondpass.methods.obfuseval.transform import (  # noqa: E402
    ObfuscateOptions,
    obfuscate_benchmark,
)


def _ctx(code: str, seed: int = 0) -> Context:
    return Context(random.Random(seed), NameMaker(str(seed), set(code.split())))


def _fn(code: str, name: str = "f") -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace[name]


def same_behaviour(old: str, new: str, inputs: list[tuple], name: str = "f") -> None:
    f, g = _fn(old, name), _fn(new, name)
    for args in inputs:
        assert f(*args) == g(*args), args


HELPER = """\
import math


def norm(v, w):
    \"\"\"Length of the sum.\"\"\"
    s = v + w
    return math.sqrt(s * s)


def f(a, b):
    total = norm(a, b)
    if total > 3:
        return norm(b, 1)
    return total
"""


def test_inline_replaces_each_call_by_the_body_with_fresh_names_and_drops_the_helper() -> None:
    module, what = inline_helpers(cst.parse_module(HELPER), "f", _ctx(HELPER), keep=set())
    new = module.code
    assert "inlined 2 call(s) of norm" in what and "definition removed: norm" in what
    assert "def norm" not in new and "norm(" not in new
    assert new.count("math.sqrt") == 2
    same_behaviour(HELPER, new, [(1, 1), (3, 4), (-2, 0.5)])


def test_inline_keeps_a_helper_that_the_tests_or_prompt_name() -> None:
    module, what = inline_helpers(cst.parse_module(HELPER), "f", _ctx(HELPER), keep={"norm"})
    assert "removed" not in what and "def norm" in module.code
    assert "total = norm(" not in module.code


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        # the helper reads the global `scale`; the target has its own variable `scale`
        (
            "scale = 2\ndef h(x):\n    return x * scale\n"
            "def f(x):\n    scale = 5\n    y = h(x)\n    return y + scale\n",
            "no helper that can be inlined",
        ),
        # recursive helper
        (
            "def h(n):\n    return n if n < 2 else h(n - 1)\ndef f(n):\n    return h(n)\n",
            "no helper that can be inlined",
        ),
        # the call is part of a larger expression (order of evaluation would change)
        ("def h(x):\n    return x + 1\ndef f(x):\n    return 2 * h(x)\n", "no helper"),
        # a helper with several returns
        (
            "def h(x):\n    if x:\n        return 1\n    return 2\ndef f(x):\n    return h(x)\n",
            "no helper",
        ),
    ],
)
def test_inline_does_not_apply_where_its_precondition_fails(code: str, reason: str) -> None:
    module = cst.parse_module(code)
    new, what = inline_helpers(module, "f", _ctx(code), keep=set())
    assert new is module and reason in what


LOOPED_HELPER = """\
def choose(n, k):
    row = [0] * (k + 1)
    row[0] = 1
    for i in range(1, n + 1):
        for j in range(min(i, k), 0, -1):
            if j > 9:
                continue
            row[j] = row[j] + row[j - 1]
    return row[k]


def f(n):
    i = n - 1
    return choose(2 * n, i)
"""


def test_inline_takes_a_helper_with_loops_before_its_only_return() -> None:
    ctx = _ctx(LOOPED_HELPER)
    module, what = inline_helpers(cst.parse_module(LOOPED_HELPER), "f", ctx, keep=set())
    assert "inlined 1 call(s) of choose" in what and "definition removed: choose" in what
    i_new, j_new, k_new, n_new, row_new = ctx.made
    assert module.code == (
        "\n\ndef f(n):\n"  # the blank lines that separated it from the helper stay
        "    i = n - 1\n"
        f"    {n_new} = 2 * n\n"
        f"    {k_new} = i\n"
        f"    {row_new} = [0] * ({k_new} + 1)\n"
        f"    {row_new}[0] = 1\n"
        f"    for {i_new} in range(1, {n_new} + 1):\n"
        f"        for {j_new} in range(min({i_new}, {k_new}), 0, -1):\n"
        f"            if {j_new} > 9:\n"
        "                continue\n"
        f"            {row_new}[{j_new}] = {row_new}[{j_new}] + {row_new}[{j_new} - 1]\n"
        f"    return {row_new}[{k_new}]\n"
    )
    rng = random.Random(4)
    same_behaviour(LOOPED_HELPER, module.code, [(rng.randint(1, 12),) for _ in range(40)])


@pytest.mark.parametrize(
    "helper",
    [
        # a return inside the loop: the inlined code would return from the target
        "def h(xs):\n    for x in xs:\n        if x:\n            return x\n    return 0\n",
        # the body ends in a loop, not in its return
        "def h(xs):\n    t = 0\n    for x in xs:\n        t += x\n",
        # a match statement binds names the renaming does not see
        "def h(xs):\n    match xs:\n        case [a]:\n            t = a\n"
        "        case _:\n            t = 0\n    return t\n",
    ],
)
def test_inline_refuses_compound_helpers_without_a_single_final_return(helper: str) -> None:
    code = helper + "def f(xs):\n    return h(xs)\n"
    module = cst.parse_module(code)
    new, what = inline_helpers(module, "f", _ctx(code), keep=set())
    assert new is module and "no helper that can be inlined" in what


LOOP = """\
def f(xs, k):
    \"\"\"Doc.\"\"\"
    out = []
    for x in xs:
        y = x * k
        if y > 3:
            out.append(y)
    n = len(out)
    return out, n
"""


def test_extract_moves_a_block_into_a_helper_and_keeps_behaviour_for_every_seed() -> None:
    seen = set()
    for seed in range(12):
        module, what = extract_helper(cst.parse_module(LOOP), "f", _ctx(LOOP, seed))
        new = module.code
        seen.add(what)
        assert "moved into" in what
        assert new.count("def ") == 2 and '"""Doc."""' in new
        same_behaviour(LOOP, new, [([1, 2, 3], 2), ([], 1), ([5, -1], 1)])
    assert len(seen) > 3  # different seeds pick different blocks


@pytest.mark.parametrize(
    "code",
    [
        "def f(x):\n    return x\n",  # nothing but a bare return
        "def f(xs):\n    global n\n    n = 1\n    return n\n",  # global
        "def f(xs):\n    yield 1\n",  # generator
    ],
)
def test_extract_does_not_apply_where_nothing_can_move(code: str) -> None:
    module = cst.parse_module(code)
    new, what = extract_helper(module, "f", _ctx(code))
    assert new is module and "no block" in what


def test_extract_never_moves_a_variable_that_carries_over_between_iterations() -> None:
    # `seen` is private to the if-body but keeps its value from one iteration to the next:
    # a helper would start it afresh each call, so it may only move together with its loop
    code = (
        "def f(xs):\n    out = 0\n    for x in xs:\n        if x:\n"
        "            seen = x if x > 2 else seen\n            out += seen\n    return out\n"
    )
    for seed in range(20):
        module, _ = extract_helper(cst.parse_module(code), "f", _ctx(code, seed))
        assert "seen = x if x > 2 else seen" in code
        helpers = module.code.split("\n\n\ndef ")[1:] if "\n\n\ndef " in module.code else []
        assert all("for x in xs" in h for h in helpers if "seen = " in h), module.code
        same_behaviour(code, module.code, [([3, 1, 0, 4, 1],), ([5, 1],), ([],)])


def test_reorder_permutes_independent_functions_only() -> None:
    code = "def a():\n    return b()\n\ndef b():\n    return 1\n\ndef c(x=1):\n    return a() + x\n"
    module, what = reorder_definitions(cst.parse_module(code), _ctx(code))
    assert "new order" in what and module.code != code
    assert sorted(p.strip() for p in module.code.split("def ")) == sorted(
        p.strip() for p in code.split("def ")
    )
    same_behaviour(code, module.code, [()], name="c")
    # a default naming another function of the run, or a decorator, blocks the move
    fixed = "def a():\n    return 1\n\ndef c(x=a):\n    return x()\n"
    module = cst.parse_module(fixed)
    assert reorder_definitions(module, _ctx(fixed))[0] is module
    deco = "def d(f):\n    return f\n\n@d\ndef c():\n    return 1\n"
    module = cst.parse_module(deco)
    assert reorder_definitions(module, _ctx(deco))[0] is module


def _task(reference: str, prompt: str, tests: str, style: str = "completion") -> Task:
    return Task(
        "hand",
        "h/0",
        "python",
        prompt,
        "f",
        reference,
        (TestCase("t0", tests),),
        prompt_style=style,  # type: ignore[arg-type]
    )


def test_completion_prompt_is_read_off_the_new_reference_and_stays_its_prefix() -> None:
    prompt = (
        "def one():\n    return 1\n\n\ndef two():\n    return 2\n\n\n"
        'def f(x):\n    """Add one and two."""\n'
    )
    reference = prompt + "    y = x + one()\n    return y + two()\n"
    task = _task(reference, prompt, "assert f(1) == 4")
    new, info = obfuscate_code(task, "structure", seed=1)
    assert new.reference_solution.startswith(new.prompt)
    assert new.prompt != prompt  # the two helpers of the prompt changed places
    assert "reorder_definitions" in info["applied"] and "extract_helper" in info["applied"]
    assert info["not_applicable"] == {
        "inline_helper": "not applicable: the target calls no helper that can be inlined"
    }
    # extracted helpers are placed after the target: never shown in the prompt
    assert new.prompt.rstrip().endswith('"""Add one and two."""')


def test_a_task_where_no_structure_transform_applies_says_why_for_each() -> None:
    task = _task("def f(x):\n    return x\n", "Return x.\n", "assert f(1) == 1", "description")
    with pytest.raises(Unsupported) as err:
        obfuscate_code(task, "structure", seed=0)
    message = str(err.value)
    for name in ("inline_helper", "extract_helper", "reorder_definitions"):
        assert f"{name}: not applicable" in message


def _run(program: str, tests: str) -> Any:
    from beyondpass.execution import create_executor
    from beyondpass.execution.base import ExecutionRequest

    executor = create_executor("sandbox")
    try:
        return executor.run(ExecutionRequest(program=program, tests=[TestCase("t0", tests)]))
    finally:
        executor.close()


def test_agreement_check_in_the_sandbox_catches_a_rewrite_that_changes_behaviour() -> None:
    original = "def f(xs):\n    return sorted(xs)[0] if xs else None\n"
    # a wrong rewrite that still passes this test's assert on its own
    wrong = "def f(xs):\n    return min(xs) if len(xs) > 1 else None\n"
    tests = "assert f([3, 1, 2]) == 1\nf([5])"
    assert _run(wrong, tests).passed  # the test alone cannot see the difference
    result = _run(agreement_program(wrong, original, "f"), tests)
    assert not result.passed
    assert "agreement check" in result.tests[0].message
    assert "for arguments (([5],), {})" in result.tests[0].message


def test_agreement_check_passes_equal_behaviour_recursion_and_mutation() -> None:
    original = "def f(n, acc):\n    acc.append(n)\n    return 1 if n < 2 else n * f(n - 1, acc)\n"
    rewritten = (
        "def f(n, acc):\n    acc.append(n)\n    if not n < 2:\n        return n * f(n - 1, acc)\n"
        "    return 1\n"
    )
    tests = "log = []\nassert f(5, log) == 120\nassert log == [5, 4, 3, 2, 1]"
    assert _run(agreement_program(rewritten, original, "f"), tests).passed
    # mutating the argument differently is a disagreement even when the result is equal
    sloppy = "def f(n, acc):\n    return 1 if n < 2 else n * f(n - 1, acc)\n"
    result = _run(agreement_program(sloppy, original, "f"), "assert f(3, []) == 6")
    assert not result.passed and "arguments are left different" in result.tests[0].message


def test_obfuscate_benchmark_combines_levels_verifies_and_records_what_applied() -> None:
    task = Task(
        "hand",
        "h/1",
        "python",
        "Count the items of xs above the limit.\n",
        "count_above",
        "def count_above(xs, limit):\n    n = 0\n    for x in xs:\n        if x > limit:\n"
        "            n += 1\n    return n\n",
        (TestCase("t0", "assert count_above([1, 5, 7], 4) == 2"),),
        prompt_style="description",
    )
    bench = Benchmark("hand", "v0", {task.task_id: task}, source="test")
    options = ObfuscateOptions(levels=["semantic", "symbol", "structure"], variants=2)
    out, report = obfuscate_benchmark(bench, options, seed=9)
    assert len(report.verified) == 2 and not report.excluded
    assert report.levels == ["symbol", "structure", "semantic"]
    v0, v1 = out.tasks["h/1#v0"], out.tasks["h/1#v1"]
    for variant in (v0, v1):
        info = variant.metadata["obfuscation"]
        assert info["levels"] == ["symbol", "structure", "semantic"]  # applied in this order
        assert info["structure"]["applied"] and info["semantic"]["applied"]
        assert "count_above" not in variant.reference_solution
    assert v0.reference_solution != v1.reference_solution
    row = report.as_dict()["outcomes"][0]
    assert set(row["applied"]) == {"structure", "semantic"}
    again, _ = obfuscate_benchmark(bench, options, seed=9)
    assert again.tasks["h/1#v0"].reference_solution == v0.reference_solution  # seeded


def test_study_transform_options_accept_the_new_levels_and_reject_unknown_ones() -> None:
    import pydantic

    assert ObfuscateOptions(levels=["semantic", "structure"]).levels == ["semantic", "structure"]
    with pytest.raises(pydantic.ValidationError):
        ObfuscateOptions(levels=["shuffle"])  # type: ignore[list-item]


def test_cli_obfuscates_at_the_new_levels_and_reports_what_applied(tmp_path, run_cli) -> None:
    import json

    from beyondpass.benchmarks import load_benchmark

    out = tmp_path / "demo-levels.jsonl"
    args = ["obfuscate", "--benchmark", "demo", "--level", "semantic,structure", "--out", out]
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "demo-levels.jsonl.report.json").read_text())
    assert report["levels"] == ["structure", "semantic"]
    assert report["n_verified"] == report["n_variants"] == 8
    assert all(set(o["applied"]) == {"structure", "semantic"} for o in report["outcomes"])
    loaded = load_benchmark(f"file:{out}")
    original = load_benchmark("demo")
    for tid, task in loaded.tasks.items():
        assert task.reference_solution != original.tasks[tid].reference_solution
        assert task.entry_point == original.tasks[tid].entry_point  # no symbol level: names kept


def test_a_fault_inside_a_transform_costs_that_variant_only_and_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a stand-in fault (no real transform fails on purpose): the run must go on and say so
    from beyondpass.methods.obfuseval import task as task_module

    real = task_module.obfuscate_code

    def faulty(task: Task, level: str, seed: int) -> Any:
        if task.task_id == "h/bad":
            raise TypeError("boom")
        return real(task, level, seed)

    monkeypatch.setattr(task_module, "obfuscate_code", faulty)
    good = _task("def f(x):\n    return x + 1\n", "Add one.\n", "assert f(1) == 2", "description")
    bad = Task(**{**good.__dict__, "task_id": "h/bad"})
    bench = Benchmark("hand", "v0", {t.task_id: t for t in (good, bad)}, source="test")
    out, report = obfuscate_benchmark(bench, ObfuscateOptions(levels=["semantic"]), seed=0)
    assert list(out.tasks) == ["h/0"]
    (excluded,) = report.excluded
    assert excluded.task_id == "h/bad"
    assert excluded.reason == "not obfuscated: internal error TypeError: boom"
