"""ObfusEval's two scenarios and the context a prompt carries (seed 003, Sec. III-C).

- **Generation**: the model sees the task as it is (signature and description).
- **Completion**: the model also sees the start of the reference implementation and must
  finish it: the implementation's first 10 lines when it has more than 30, else its first
  third, rounded down (so a one- or two-line implementation shows none of itself and the
  task stays a generation task; the metadata records the prefix). "Implementation" means
  the entry point's body after its docstring: the signature and description are in the
  prompt already, so counting them would often leave nothing of the code.
- **Context**: the definitions the target uses (module-level functions, classes and
  constants of the reference that the entry point reaches, transitively, found from the
  syntax tree), plus as many similar-but-irrelevant distractors — the signatures and
  docstrings of other tasks' entry points, most similar description first, each with a
  ``...`` body — in a seeded order, so the model must pick what it needs. Applied after
  obfuscation, the distractors come from tasks obfuscated the same way.

A completion-style task (HumanEval) gets the context as code in front of its prompt, so an
answer that is only a body is joined to the context, prompt and partial implementation, and
a whole-function answer still gets the helpers it uses (extraction keeps the prompt's other
top-level definitions). A description task (MBPP) gets the context and the partial
implementation as fenced code in its description. The added text is recorded in the task's
metadata (``scenario``).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import random
import re
from dataclasses import replace
from typing import Any

from beyondpass.benchmarks.task import Benchmark, Task

SCENARIOS = ("generation", "completion")
#: an implementation longer than this many lines is shown by its first HEAD lines
LONG = 30
HEAD = 10
_WORD = re.compile(r"[A-Za-z]+")


def _entry(tree: ast.Module, entry_point: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point:
            return node
    return None


def _has_docstring(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = fn.body[0]
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def implementation_lines(reference: str, entry_point: str) -> list[str]:
    """The entry point's body after its docstring, as source lines (blank lines dropped)."""
    tree = ast.parse(reference)
    fn = _entry(tree, entry_point)
    if fn is None:
        return []
    body = fn.body[1:] if _has_docstring(fn) and len(fn.body) > 1 else fn.body
    lines = reference.splitlines()
    start, end = body[0].lineno, fn.end_lineno or body[-1].end_lineno or body[0].lineno
    return [ln for ln in lines[start - 1 : end] if ln.strip()]


def completion_prefix(reference: str, entry_point: str) -> str:
    """The partial implementation a completion task shows (the rule above)."""
    lines = implementation_lines(reference, entry_point)
    keep = HEAD if len(lines) > LONG else len(lines) // 3
    return "".join(f"{line}\n" for line in lines[:keep])


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def used_definitions(reference: str, entry_point: str, exclude: set[str]) -> list[str]:
    """Source of the module-level definitions the entry point reaches (transitively), in file
    order, leaving out names in ``exclude`` (e.g. those the prompt already shows)."""
    tree = ast.parse(reference)
    defs: dict[str, ast.stmt] = {}
    for node in tree.body:
        for name in _defined(node):
            defs.setdefault(name, node)
    fn = _entry(tree, entry_point)
    if fn is None:
        return []
    reached: set[str] = set()
    todo = list(_names_used(fn))
    while todo:
        name = todo.pop()
        if name in reached or name not in defs or name == entry_point:
            continue
        reached.add(name)
        todo += list(_names_used(defs[name]))
    nodes = sorted(
        {id(defs[n]): defs[n] for n in reached - exclude}.values(), key=lambda n: n.lineno
    )
    return [ast.get_source_segment(reference, n) or "" for n in nodes]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def stub(task: Task) -> tuple[str, str] | None:
    """(name, source) of a task's entry point as a distractor: its signature without
    annotations (they may name imports the target's program lacks), its docstring (or the
    task's description when it has none) and a ``...`` body. None when the entry point
    cannot be found or a default value is not a literal (it could need a missing name)."""
    if not task.entry_point:
        return None
    try:
        tree = ast.parse(task.reference_solution)
    except SyntaxError:
        return None
    fn = _entry(tree, task.entry_point)
    if fn is None:
        return None
    args = copy.deepcopy(fn.args)
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None:
            arg.annotation = None
    for default in (*args.defaults, *args.kw_defaults):
        if default is not None:
            try:
                ast.literal_eval(default)
            except ValueError:
                return None
    doc = (ast.get_docstring(fn) if _has_docstring(fn) else _description(task)).strip()
    doc = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    body = "\n".join(f"    {line}" if line else "" for line in doc.splitlines())
    return (
        fn.name,
        f'def {fn.name}({ast.unparse(args)}):\n    """{body.lstrip()}\n    """\n    ...\n',
    )


def _description(task: Task) -> str:
    text = task.prompt.split("Your code should pass this test:")[0]
    return " ".join(text.split())


def distractors(task: Task, pool: list[Task], count: int, seed: int, taken: set[str]) -> list[str]:
    """``count`` stubs of other tasks, most similar description first (word overlap), ties
    broken by a seeded order; never a variant of ``task`` itself nor a name ``task`` uses."""
    if count <= 0:
        return []
    own = _words(task.prompt)
    origin = _origin(task)
    scored = []
    for other in pool:
        if _origin(other) == origin:
            continue
        found = stub(other)
        if found is None or found[0] in taken:
            continue
        words = _words(other.prompt)
        overlap = len(own & words) / max(1, len(own | words))
        tie = hashlib.sha256(f"{seed}:{task.task_id}:{other.task_id}".encode()).hexdigest()
        scored.append((-overlap, tie, found))
    scored.sort()
    chosen, names = [], set()
    for _, _, (name, source) in scored:
        if name not in names:
            chosen.append(source)
            names.add(name)
        if len(chosen) == count:
            break
    return chosen


def _origin(task: Task) -> str:
    info = task.metadata.get("obfuscation") or {}
    return str(info.get("original_task_id") or task.task_id.split("#")[0])


def _split_imports(prompt: str) -> tuple[str, str]:
    """The prompt's leading import lines (with blank lines among them), and the rest: the
    context goes between them, so its definitions can use what the prompt imports."""
    lines = prompt.splitlines(keepends=True)
    cut = 0
    for i, line in enumerate(lines):
        text = line.strip()
        if text.startswith(("import ", "from ")):
            cut = i + 1
        elif text:
            break
    return "".join(lines[:cut]) + ("\n" if cut else ""), "".join(lines[cut:])


def names_of(source: str) -> set[str]:
    """The names a piece of module-level source defines."""
    return {n for node in ast.parse(source).body for n in _defined(node)}


def _prompt_names(task: Task) -> set[str]:
    try:
        return {
            n for node in ast.parse(task.code_prompt + "\n    pass\n").body for n in _defined(node)
        }
    except SyntaxError:
        return set()


def scenario_task(task: Task, pool: list[Task], scenario: str, context: bool, seed: int) -> Task:
    """``task`` as the scenario shows it, with its context (see the module docstring)."""
    ep = task.entry_point or ""
    shown = _prompt_names(task)
    reached = used_definitions(task.reference_solution, ep, {ep}) if context and ep else []
    names = {n for src in reached for n in names_of(src)}
    used = [src for src in reached if not names_of(src) & shown]  # the prompt shows the rest
    extra = distractors(task, pool, len(reached), seed, shown | names | {ep}) if context else []
    blocks = used + extra
    random.Random(f"{seed}:{task.task_id}:context").shuffle(blocks)
    prefix = completion_prefix(task.reference_solution, ep) if scenario == "completion" else ""
    context_text = "\n\n".join(b.rstrip() for b in blocks)
    if task.prompt_style == "completion":
        imports, rest = _split_imports(task.prompt) if context_text else ("", task.prompt)
        head = f"{imports}{context_text}\n\n\n" if context_text else ""
        sep = "" if rest.endswith("\n") or not prefix else "\n"
        prompt = head + rest + sep + prefix
    else:
        parts = [task.prompt.rstrip("\n")]
        if context_text:
            parts.append(
                f"Definitions you may use (not all are needed):\n```python\n{context_text}\n```"
            )
        if prefix:
            parts.append(
                f"Complete this implementation of {ep}; its body starts:\n```python\n{prefix}```"
            )
        prompt = "\n\n".join(parts) + "\n"
    record: dict[str, Any] = {
        "scenario": scenario,
        "context_used": len(reached),
        "context_added": len(used),
        "distractors": len(extra),
        "completion_prefix": prefix,
        "seed": seed,
    }
    return replace(task, prompt=prompt, metadata={**task.metadata, "scenario": record})


def apply_scenario(bench: Benchmark, scenario: str, context: bool, seed: int) -> Benchmark:
    """Every task of ``bench`` in ``scenario``; distractors drawn from the other tasks."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r} — {' or '.join(SCENARIOS)}")
    pool = list(bench.tasks.values())
    tasks = {tid: scenario_task(t, pool, scenario, context, seed) for tid, t in bench.tasks.items()}
    return replace(bench, tasks=tasks)
