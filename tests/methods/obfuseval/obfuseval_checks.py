"""What an obfuscated HumanEval or MBPP variant must satisfy, shared by the sampled tests
(tests/methods/obfuseval/test_obfuseval_benchmarks.py) and the full-benchmark script
(benchmarks/bench_obfuseval_levels.py), so both check exactly the same things.

Names are read back with Python's own ``tokenize``/``ast`` (not libcst, which does the
renaming). Each check returns what it found wrong, empty when all is well.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from beyondpass.benchmarks.task import Benchmark, Task
from beyondpass.methods.obfuseval.transform import Report

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

#: every level set checked: each level alone, the two combinations the issue names, and all
#: three together
LEVEL_SETS = [
    ("symbol",),
    ("structure",),
    ("semantic",),
    ("symbol", "structure"),
    ("symbol", "semantic"),
    ("symbol", "structure", "semantic"),
]


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


def name_problems(bench: Benchmark, out: Benchmark) -> dict[str, list[str]]:
    """Per renamed task: a new entry point that is not the mapped one, or an identifier of
    the original entry point or its parameters left in the prompt, its code or the tests."""
    problems: dict[str, list[str]] = {}
    for tid, new in out.tasks.items():
        task = bench.tasks[tid]
        info = new.metadata["obfuscation"]
        found = []
        if new.entry_point != info["mapping"][task.entry_point]:
            found.append(f"entry point {new.entry_point} is not the mapped name")
        if new.entry_point == info["original_entry_point"]:
            found.append("entry point not renamed")
        found += _survivors(task, new)
        if found:
            problems[tid] = found
    return problems


def variant_problems(
    bench: Benchmark, out: Benchmark, report: Report, levels: tuple[str, ...]
) -> list[str]:
    """Everything a verified variant must be (really changed, each asked-for level applied,
    the prompt still the reference's start, compilable) and every exclusion with a reason."""
    problems = []
    if len(report.outcomes) != len(bench.tasks):
        problems.append(f"{len(report.outcomes)} outcomes for {len(bench.tasks)} tasks")
    if len(out.tasks) != len(report.verified):
        problems.append(f"{len(out.tasks)} tasks kept, {len(report.verified)} verified")
    if kept := {o.task_id for o in report.excluded} & set(out.tasks):
        problems.append(f"excluded yet kept: {sorted(kept)}")
    problems += [f"{o.task_id}: excluded without a reason" for o in report.excluded if not o.reason]
    for tid, task in out.tasks.items():
        info = task.metadata["obfuscation"]
        original = bench.tasks[tid]
        if task.reference_solution == original.reference_solution:
            problems.append(f"{tid}: reference unchanged")
        if "symbol" in levels and not info["mapping"]:
            problems.append(f"{tid}: no name mapping")
        for level in ("structure", "semantic"):
            if level in levels and not info[level]["applied"]:
                problems.append(f"{tid}: {level} applied nothing")
        if task.prompt_style == "completion":
            if not task.reference_solution.startswith(task.prompt):
                problems.append(f"{tid}: reference does not start with the prompt")
        elif task.prompt != original.prompt and "symbol" not in levels:
            problems.append(f"{tid}: prompt changed without the symbol level")
        try:
            compile(task.reference_solution, tid, "exec")
        except (SyntaxError, ValueError) as exc:
            problems.append(f"{tid}: reference does not compile: {exc}")
    return problems
