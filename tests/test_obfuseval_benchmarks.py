"""Every HumanEval and sanitized MBPP task at each level, checked independently.

Each (benchmark, levels) pair is transformed and verified once (a module-scoped fixture)
and every assertion about it reads the shared result. Names are read back with Python's own
``tokenize``/``ast`` (not libcst, which does the renaming); verification runs every variant
in the bwrap sandbox.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable

import pytest

pytest.importorskip("libcst")

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.benchmarks.task import Benchmark, Task, TestCase  # noqa: E402
from beyondpass.methods.obfuseval.transform import (  # noqa: E402
    ObfuscateOptions,
    Report,
    obfuscate_benchmark,
)

#: English function words the prose keeps (a parameter called ``a`` vs the article "a")
FUNCTION_WORDS = {
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "by",
    "do",
    "for",
    "i",
    "if",
    "in",
    "is",
    "it",
    "no",
    "not",
    "of",
    "on",
    "or",
    "so",
    "the",
    "to",
    "up",
    "we",
}


EXAMPLE = "Your code should pass this test:\n"


def _signature_names(task: Task) -> set[str]:
    """The entry point and its parameters, from the original reference (by ast)."""
    for node in ast.walk(ast.parse(task.reference_solution.expandtabs(8))):
        if isinstance(node, ast.FunctionDef) and node.name == task.entry_point:
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            every += [a for a in (args.vararg, args.kwarg) if a is not None]
            return {node.name} | {a.arg for a in every} - {"self", "cls"}
        if isinstance(node, ast.ClassDef) and node.name == task.entry_point:
            return {node.name}
    raise AssertionError(f"{task.task_id}: no definition of {task.entry_point}")


def _code_names(code: str) -> set[str]:
    """NAME tokens that are not attributes (``x.name``) — a tokenizer's view of identifiers."""
    out: set[str] = set()
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and previous != ".":
                out.add(tok.string)
            previous = tok.string
    except (tokenize.TokenError, IndentationError):
        pass  # a completion prompt ends inside a body: the tokens so far are what counts
    return out


def _survivors(old: Task, new: Task) -> list[str]:
    names = _signature_names(old)
    found = []
    for test in new.tests:
        found += [f"test {test.name}: {n}" for n in names & _code_names(test.code)]
    prose = new.prompt
    if new.prompt_style == "completion":
        found += [f"prompt code: {n}" for n in names & _code_names(new.prompt)]
    elif EXAMPLE in new.prompt:  # MBPP: prose, then an example assertion (code)
        prose, example = new.prompt.split(EXAMPLE, 1)
        found += [f"prompt example: {n}" for n in names & _code_names(example)]
    for name in names - FUNCTION_WORDS:
        if re.search(rf"(?<![\w.]){re.escape(name)}\b", prose):
            found.append(f"prompt text: {name}")
    return found


#: every level set checked on all tasks of both benchmarks: each level alone, the two
#: combinations the issue names, and all three together
LEVEL_SETS = [
    ["symbol"],
    ["structure"],
    ["semantic"],
    ["symbol", "structure"],
    ["symbol", "semantic"],
    ["symbol", "structure", "semantic"],
]
Run = tuple[Benchmark, Benchmark, Report]


@pytest.fixture(scope="module")
def obfuscated(data_dir: object) -> Callable[[str, tuple[str, ...]], Run]:
    """``(benchmark, levels) -> (original, obfuscated, report)``, each computed once (seed 0,
    one variant, one sandbox batch) and shared by every assertion about it."""
    benches: dict[str, Benchmark] = {}
    runs: dict[tuple[str, tuple[str, ...]], Run] = {}

    def get(name: str, levels: tuple[str, ...]) -> Run:
        if name not in benches:
            benches[name] = load_benchmark(name, data_dir)  # type: ignore[arg-type]
        if (name, levels) not in runs:
            options = ObfuscateOptions(levels=list(levels))  # type: ignore[arg-type]
            out, report = obfuscate_benchmark(benches[name], options, seed=0)
            runs[name, levels] = (benches[name], out, report)
        return runs[name, levels]

    return get


@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_no_name_of_the_signature_survives_in_prompt_context_or_tests(
    name: str, obfuscated: Callable[[str, tuple[str, ...]], Run]
) -> None:
    """On every verified symbol-level variant (and the renamed tasks of all three levels):
    no identifier of the entry point or its parameters is left; refusals have a reason."""
    for levels in (("symbol",), ("symbol", "structure", "semantic")):
        bench, out, report = obfuscated(name, levels)
        problems: dict[str, list[str]] = {}
        for tid, new in out.tasks.items():
            task = bench.tasks[tid]
            info = new.metadata["obfuscation"]
            assert new.entry_point == info["mapping"][task.entry_point]
            assert new.entry_point != info["original_entry_point"]
            if found := _survivors(task, new):
                problems[tid] = found
        assert not problems, (levels, problems)
        refused = [o for o in report.excluded if o.reason.startswith("not obfuscated")]
        assert len(refused) <= 0.02 * len(bench.tasks), refused


@pytest.mark.parametrize("levels", LEVEL_SETS, ids=["+".join(s) for s in LEVEL_SETS])
@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_every_task_at_each_level_is_verified_or_excluded_with_why(
    name: str, levels: list[str], obfuscated: Callable[[str, tuple[str, ...]], Run]
) -> None:
    """All tasks, one sandbox batch: >= 98% verified (passing their tests, and for the
    structure and semantic levels agreeing with the reference before the rewrites on every
    test call), each variant really changed, every exclusion listed with a reason."""
    bench, out, report = obfuscated(name, tuple(levels))
    assert len(report.outcomes) == len(bench.tasks)
    assert len(report.verified) >= 0.98 * len(bench.tasks), [
        (o.task_id, o.reason) for o in report.excluded
    ]
    assert len(out.tasks) == len(report.verified)
    assert {o.task_id for o in report.excluded}.isdisjoint(out.tasks)
    assert all(o.reason for o in report.excluded)
    for tid, task in out.tasks.items():
        info = task.metadata["obfuscation"]
        original = bench.tasks[tid]
        assert task.reference_solution != original.reference_solution
        if "symbol" in levels:
            assert info["mapping"], tid
        for level in ("structure", "semantic"):
            if level in levels:
                assert info[level]["applied"], (tid, level)
        if task.prompt_style == "completion":
            assert task.reference_solution.startswith(task.prompt), tid
        else:
            assert task.prompt == original.prompt or "symbol" in levels
        compile(task.reference_solution, tid, "exec")


def _bench(*tasks: Task) -> Benchmark:
    return Benchmark("hand", "v0", {t.task_id: t for t in tasks}, source="test")


def _hand(tid: str, reference: str, test: str) -> Task:
    return Task(
        "hand",
        tid,
        "python",
        "Write f.\n",
        "f",
        reference,
        (TestCase("t0", test),),
        prompt_style="description",
    )


def test_a_variant_that_fails_is_excluded_with_the_reason_never_kept() -> None:
    bench = _bench(
        _hand("ok", "def f(x):\n    return x + 1\n", "assert f(1) == 2"),
        # the renamed function reports its new name: behaviour changes, execution sees it
        _hand("name", "def f():\n    return f.__name__\n", "assert f() == 'f'"),
        # the task was broken before obfuscation: the report says so
        _hand("broken", "def f(x):\n    return x\n", "assert f(1) == 2"),
    )
    out, report = obfuscate_benchmark(bench, ObfuscateOptions(variants=2), seed=5)
    assert sorted(out.tasks) == ["ok#v0", "ok#v1"]
    reasons = {(o.task_id, o.variant): o.reason for o in report.excluded}
    assert set(reasons) == {("name", 0), ("name", 1), ("broken", 0), ("broken", 1)}
    assert "verification failed: failed" in reasons[("name", 0)]
    assert "AssertionError" in reasons[("name", 0)]
    assert "original reference fails its tests too" not in reasons[("name", 0)]
    assert "original reference fails its tests too" in reasons[("broken", 1)]
    v0, v1 = out.tasks["ok#v0"], out.tasks["ok#v1"]
    assert v0.entry_point != v1.entry_point  # different seeds, different variants
    assert (v0.metadata["variant"], v1.metadata["variant"]) == (0, 1)
