"""ObfusEval's generation and completion scenarios and their context: the truncation rule,
the definitions a target uses, distractors, and — run in the sandbox — that every HumanEval
and MBPP task stays solvable: the rest of the reference, answered after the scenario's
prompt, passes the task's tests."""

from __future__ import annotations

import ast
import re

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.execution import ExecutionRequest, create_executor
from beyondpass.execution.base import ExecutionLimits
from beyondpass.extraction.python_code import extract_python
from beyondpass.methods.obfuseval.scenario import (
    apply_scenario,
    completion_prefix,
    implementation_lines,
    scenario_task,
    stub,
    used_definitions,
)


def function(body_lines: int, docstring: bool = True) -> str:
    doc = '    """Add up."""\n' if docstring else ""
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines - 1))
    return f"def f(a):\n{doc}{body}    return a\n"


@pytest.mark.parametrize(("lines", "shown"), [(40, 10), (31, 10), (30, 10), (9, 3), (2, 0), (1, 0)])
def test_completion_shows_ten_lines_of_a_long_implementation_else_a_third(lines, shown):
    code = function(lines)
    assert len(implementation_lines(code, "f")) == lines  # the docstring is not counted
    prefix = completion_prefix(code, "f")
    assert prefix.count("\n") == shown
    assert code.split('"""Add up."""\n', 1)[1].startswith(prefix)


def test_used_definitions_are_found_transitively_and_in_file_order():
    code = (
        "LIMIT = 10\n"
        "def unused(x):\n    return x\n"
        "def low(x):\n    return min(x, LIMIT)\n"
        "class Box:\n    pass\n"
        "def mid(x):\n    return low(x) + 1\n"
        "def target(x):\n    return mid(x) if isinstance(x, Box) is False else 0\n"
    )
    got = used_definitions(code, "target", {"target"})
    assert [src.split("\n")[0] for src in got] == [
        "LIMIT = 10",
        "def low(x):",
        "class Box:",
        "def mid(x):",
    ]
    assert used_definitions(code, "target", {"target", "low"}) == [
        s for s in got if not s.startswith("def low")
    ]


@pytest.fixture(scope="module")
def humaneval():
    return load_benchmark("humaneval")


@pytest.fixture(scope="module")
def mbpp():
    return load_benchmark("mbpp")


def test_distractors_are_stubs_of_other_tasks_and_never_shadow_what_the_target_needs(humaneval):
    out = apply_scenario(humaneval, "generation", True, seed=3)
    with_context = [t for t in out.tasks.values() if t.metadata["scenario"]["context_used"]]
    assert with_context  # HumanEval/10, /38, /50 use helpers their prompts define
    for task in with_context:
        record = task.metadata["scenario"]
        assert record["distractors"] == record["context_used"]  # as many as it uses
        tree = ast.parse(task.prompt + "    pass\n")
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert len(names) == len(set(names))  # nothing defined twice
        original = [ln for ln in humaneval.tasks[task.task_id].prompt.splitlines() if ln.strip()]
        new = iter(task.prompt.splitlines())
        assert all(line in new for line in original)  # the prompt's lines, in order
        assert task.prompt.rstrip().endswith(original[-1])  # the target still comes last
    untouched = [t for t in out.tasks.values() if not t.metadata["scenario"]["context_used"]]
    assert all(t.prompt == humaneval.tasks[t.task_id].prompt for t in untouched)
    # reproducible from the seed
    again = apply_scenario(humaneval, "generation", True, seed=3)
    assert [t.prompt for t in again.tasks.values()] == [t.prompt for t in out.tasks.values()]


def test_a_stub_keeps_the_signature_and_docstring_and_drops_annotations(humaneval):
    name, source = stub(humaneval.tasks["HumanEval/0"])
    assert name == "has_close_elements"
    assert source.startswith('def has_close_elements(numbers, threshold):\n    """')
    assert source.rstrip().endswith("...")
    ns: dict = {}
    exec(compile(source, "stub", "exec"), ns)  # defines without needing typing.List
    assert ns["has_close_elements"]([1.0], 0.5) is None


def _rest_of_reference(task) -> str:
    """The reference implementation's lines after the shown prefix (a body answer)."""
    record = task.metadata["scenario"]
    lines = implementation_lines(task.reference_solution, task.entry_point)
    shown = record["completion_prefix"].count("\n")
    return "\n".join(lines[shown:]) + "\n"


@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_every_task_stays_solvable_in_both_scenarios(name, request):
    """The reference, answered in each scenario (HumanEval: the rest of its body after the
    prompt; MBPP: the whole reference after the description), passes the task's tests in
    the sandbox for every task — the context and the partial implementation break nothing.
    MBPP/123 is left out: its tests take 5.5 s of CPU per run, and its reference is checked
    by tests/benchmarks (a scenario adds context around it, which the other tasks check)."""
    bench = request.getfixturevalue(name)
    executor = create_executor("sandbox")
    limits = ExecutionLimits(timeout_s=60)  # generous: verification is about behaviour
    for scenario in ("generation", "completion"):
        out = apply_scenario(bench, scenario, True, seed=1)
        requests, ids = [], []
        for task in out.tasks.values():
            if task.task_id in bench.known_broken or task.task_id == "MBPP/123":
                continue
            if task.prompt_style == "completion" and scenario == "completion":
                answer = _rest_of_reference(task)
            elif task.prompt_style == "completion":
                answer = "\n".join(implementation_lines(task.reference_solution, task.entry_point))
            else:
                answer = f"```python\n{task.reference_solution}\n```"
            found = extract_python(answer, task)
            assert found.ok, (task.task_id, found.status, found.notes)
            timeout = float(task.metadata.get("timeout_s", 0)) or limits.timeout_s
            requests.append(
                ExecutionRequest(
                    program=found.program,
                    tests=task.tests,
                    test_setup=task.test_setup,
                    limits=ExecutionLimits(timeout_s=max(timeout, limits.timeout_s)),
                )
            )
            ids.append(task.task_id)
        results = executor.run_many(requests)
        failed = [(i, str(r.status)) for i, r in zip(ids, results, strict=True) if not r.passed]
        assert failed == [], (scenario, failed[:5])


def test_the_transform_applies_the_scenario_after_obfuscating(humaneval):
    """``scenario``/``context`` options: the obfuscated, verified tasks in the completion
    scenario; ``levels = []`` gives the original tasks in the same scenario."""
    from beyondpass.benchmarks.task import Benchmark
    from beyondpass.methods.obfuseval.transform import ObfuscateOptions, obfuscate_benchmark

    ids = ["HumanEval/10", "HumanEval/12", "HumanEval/38"]
    small = Benchmark(
        "humaneval", humaneval.version, {i: humaneval.tasks[i] for i in ids}, humaneval.source
    )
    options = ObfuscateOptions(levels=["symbol"], scenario="completion", context=True)
    obf, report = obfuscate_benchmark(small, options, seed=2)
    assert len(report.verified) == 3
    for task in obf.tasks.values():
        record = task.metadata["scenario"]
        assert record["scenario"] == "completion"
        assert task.prompt.rstrip("\n").endswith(record["completion_prefix"].rstrip("\n"))
        assert task.metadata["obfuscation"]["mapping"]  # renamed first, then shaped
    # distractors of obfuscated tasks come from obfuscated tasks: no original entry point
    originals = {humaneval.tasks[i].entry_point for i in ids}
    defined = {n for t in obf.tasks.values() for n in re.findall(r"def (\w+)\(", t.prompt)}
    assert defined and not defined & originals
    plain, _ = obfuscate_benchmark(small, ObfuscateOptions(levels=[], scenario="completion"), 2)
    assert [t.prompt for t in plain.tasks.values()] == [
        scenario_task(t, list(small.tasks.values()), "completion", False, 2).prompt
        for t in small.tasks.values()
    ]
    with pytest.raises(ValueError, match="context needs a scenario"):
        ObfuscateOptions(context=True)
