"""One task obfuscated at the symbol level: reference, prompt, context, tests, description.

The mapping comes from the names the reference solution and the tests bind; it is applied to
every module of the task (each by its own scope analysis) and to the prose, and stored in the
task's metadata (``obfuscation.mapping``) so answers can be traced back.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import replace
from typing import Any

import libcst as cst

from beyondpass.benchmarks.task import Task
from beyondpass.methods.obfuseval.symbol import (
    Unsupported,
    collect,
    make_mapping,
    parse,
    renamable_attributes,
    rename,
    rename_prose,
)

_EXAMPLE = "Your code should pass this test:\n"
_WORD = re.compile(r"[A-Za-z_]\w*")


def task_seed(seed: int, task_id: str) -> str:
    """A per-task seed: the variant of one task does not depend on which others are chosen."""
    return hashlib.sha256(f"{seed}:{task_id}".encode()).hexdigest()


def _open_prompt(prompt: str) -> tuple[str, str]:
    """A completion prompt ends inside a function body: close it with a ``pass`` line."""
    lines = [ln for ln in prompt.splitlines() if ln.strip()]
    if not lines:
        raise Unsupported("the prompt is empty")
    last = lines[-1]
    indent = last[: len(last) - len(last.lstrip())]
    if last.rstrip().endswith(":"):
        indent += "    "
    sep = "" if prompt.endswith("\n") else "\n"
    filler = f"{sep}{indent}pass\n"
    return prompt + filler, filler


def obfuscate_symbols(task: Task, seed: int) -> tuple[Task, dict[str, Any]]:
    """``task`` with every name it defines renamed; raises :class:`Unsupported` with why not."""
    if task.language != "python":
        raise Unsupported(f"symbol obfuscation handles Python tasks, not {task.language}")
    if not task.entry_point:
        raise Unsupported("the task names no entry point")
    if any(t.is_io for t in task.tests):
        raise Unsupported("I/O tests are not renamed (only call-style tests)")
    ref = parse(task.reference_solution, "the reference solution")
    tests = [parse(t.code, f"test {t.name}") for t in task.tests]
    prompt_code = ""
    filler = ""
    if task.prompt_style == "completion":
        prompt_code, filler = _open_prompt(task.prompt)
    prompt_mod = parse(prompt_code, "the prompt") if prompt_code else None
    setup = parse(task.test_setup, "the test setup") if task.test_setup.strip() else None

    ref_facts = collect(ref)
    test_facts = [collect(t) for t in tests]
    prompt_facts = collect(prompt_mod) if prompt_mod else None
    every = [ref_facts, *test_facts, *([prompt_facts] if prompt_facts else [])]
    dynamic = sorted(set().union(*(f.dynamic for f in every)))
    if dynamic:
        raise Unsupported(f"names reached through strings or the namespace: {', '.join(dynamic)}()")
    if task.entry_point not in ref_facts.bound:
        raise Unsupported(f"the reference does not define the entry point {task.entry_point}")

    bound = set(ref_facts.bound)
    for facts in test_facts:
        bound |= facts.bound
    if prompt_facts:
        bound |= prompt_facts.bound
    attributes = frozenset(renamable_attributes(every))
    bound |= attributes
    taken = set().union(*(f.identifiers for f in every))
    if setup is not None:
        taken |= collect(setup).identifiers
    taken |= set(task.prompt.split())
    mapping = make_mapping(bound, taken, task_seed(seed, task.task_id))
    functions: dict[str, set[str]] = {}
    for facts in every:
        functions.update(facts.functions)

    new_ref = rename(ref, mapping, functions, attributes=attributes)
    program_globals = frozenset(ref_facts.globals)
    new_tests = tuple(
        replace(t, code=rename(m, mapping, functions, program_globals, attributes))
        for t, m in zip(task.tests, tests, strict=True)
    )
    if prompt_mod is not None:
        new_prompt = rename(prompt_mod, mapping, functions, program_globals, attributes)
        renamed_filler = filler  # "pass" is a keyword: the filler never changes
        if not new_prompt.endswith(renamed_filler):
            raise Unsupported("the prompt's end could not be restored after renaming")
        new_prompt = new_prompt[: len(new_prompt) - len(renamed_filler)]
    else:
        new_prompt = _rename_description(task, new_tests[0].code if new_tests else "", mapping)
    info = {
        "level": "symbol",
        "seed": seed,
        "original_task_id": task.task_id,
        "original_entry_point": task.entry_point,
        "mapping": mapping,
    }
    meta = {**task.metadata, "obfuscation": info}
    out = replace(
        task,
        prompt=new_prompt,
        entry_point=mapping[task.entry_point],
        reference_solution=new_ref,
        tests=new_tests,
        metadata=meta,
    )
    return out, info


def _rename_description(task: Task, first_test: str, mapping: dict[str, str]) -> str:
    """Prose renamed word by word; MBPP's example assertion replaced by the renamed test."""
    prompt = task.prompt
    example = task.tests[0].code.strip() if task.tests else ""
    if example and prompt.endswith(f"{_EXAMPLE}{example}\n"):
        text = prompt[: len(prompt) - len(example) - 1]
        return rename_prose(text, mapping) + first_test.strip() + "\n"
    return rename_prose(prompt, mapping)


def _identifiers(task: Task) -> set[str]:
    """Every word spelled anywhere in the task (code, strings, tests, setup, prompt): a
    superset of its identifiers, which a fresh name must avoid."""
    texts = [task.prompt, task.reference_solution, task.test_setup, *(t.code for t in task.tests)]
    return set(_WORD.findall("\n".join(texts)))


def _prompt_from(module: cst.Module, entry: str) -> str | None:
    """A completion prompt read off a reference: everything up to the entry point's
    docstring (its signature when it has none); None when the entry is not found."""
    from beyondpass.methods.obfuseval.structure.common import _body, _entry_index, _is_docstring

    i = _entry_index(module, entry)
    if i is None:
        return None
    func: cst.FunctionDef = module.body[i]  # type: ignore[assignment]
    first = _body(func)[0]
    filler = not _is_docstring(first)
    kept = cst.parse_statement("pass\n") if filler else first
    head = func.with_changes(body=func.body.with_changes(body=[kept]))
    text = module.with_changes(body=[*module.body[:i], head]).code
    if filler:
        text = text[: text.rstrip("\n").rfind("\n") + 1]
    return text


def obfuscate_code(task: Task, level: str, seed: int) -> tuple[Task, dict[str, Any]]:
    """``task`` with its reference restructured (``structure``) or rewritten (``semantic``);
    raises :class:`Unsupported` when nothing applies, with what was tried.

    Names and tests stay as they are. A completion prompt that is the start of the reference
    (HumanEval) is read off the new reference, so reordered or removed helpers show in it.
    """
    from beyondpass.methods.obfuseval.names import NameMaker
    from beyondpass.methods.obfuseval.rewrite_base import Context
    from beyondpass.methods.obfuseval.semantic import rewrite_semantics
    from beyondpass.methods.obfuseval.structure import restructure

    if task.language != "python":
        raise Unsupported(f"{level} obfuscation handles Python tasks, not {task.language}")
    if not task.entry_point:
        raise Unsupported("the task names no entry point")
    if any(t.is_io for t in task.tests):
        raise Unsupported("I/O tests are not handled (only call-style tests)")
    module = parse(task.reference_solution, "the reference solution").module
    taken = _identifiers(task)
    key = f"{task_seed(seed, task.task_id)}:{level}"
    ctx = Context(random.Random(key), NameMaker(key, taken))
    completion = task.prompt_style == "completion"
    if level == "structure":
        keep = set(_WORD.findall("\n".join(t.code for t in task.tests)))
        if completion:  # a helper the prompt shows stays defined
            keep |= set(_WORD.findall(task.prompt))
        done = restructure(module, task.entry_point, ctx, keep, prompt_ends=completion)
        if not done.applied:
            why = "; ".join(f"{k}: {v}" for k, v in done.skipped.items())
            raise Unsupported(f"no structure transform applies ({why})")
        new_module = done.module
        info: dict[str, Any] = {"applied": done.applied, "not_applicable": done.skipped}
    elif level == "semantic":
        new_module, applied = rewrite_semantics(module, ctx)
        if not applied:
            raise Unsupported("no semantic rewrite applies (no site meets its precondition)")
        info = {"applied": applied}
    else:
        raise Unsupported(f"unknown level {level!r}")
    prompt = task.prompt
    if completion and _prompt_from(module, task.entry_point) == task.prompt:
        prompt = _prompt_from(new_module, task.entry_point) or task.prompt
    info["new_names"] = list(ctx.made)
    return replace(task, prompt=prompt, reference_solution=new_module.code), info
