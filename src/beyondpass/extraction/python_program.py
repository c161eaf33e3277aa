"""Complete the code found in an answer into the program that runs.

The code a model meant as its answer (:mod:`beyondpass.extraction.python_code` finds it) is
either a whole module or a body that continues the task's prompt. This module decides which
(rule 4 there: the code compiles on its own, dedented, or appended to ``task.code_prompt``,
also after repairing mangled indentation) and assembles the program (rule 7: the prompt plus
a body; or, on completion tasks, the prompt's imports and helpers before a whole answer;
``from __future__`` lines first). Like finding the code, it only reads text: ``ast`` and
``compile``, never execution.
"""

from __future__ import annotations

import ast
import functools
import textwrap
import warnings
from typing import Literal

from beyondpass.benchmarks.task import Task

Kind = Literal["full", "body"]


def fit(code: str, task: Task) -> tuple[Kind, str, bool, str]:
    """(kind, fitted code, compiles, note): how the code enters the program."""
    prompt = task.code_prompt
    if compile_error(code) is None:
        return "full", code, True, ""
    dedented = textwrap.dedent(code)
    dedent_ok = dedented != code and compile_error(dedented) is None
    if dedent_ok and task.entry_point in bound_names(top_level(dedented), imports=False):
        return "full", dedented, True, "dedented code"
    if prompt and compile_error(join_prompt(prompt, code)) is None:
        return "body", code, True, ""
    if dedent_ok:
        return "full", dedented, True, "dedented code"
    if prompt:
        for variant, note in _body_variants(code, prompt):
            if compile_error(join_prompt(prompt, variant)) is None:
                return "body", variant, True, note
    indented = code[:1] in (" ", "\t")
    return ("body" if prompt and indented else "full"), code, False, ""


def _body_variants(code: str, prompt: str) -> list[tuple[str, str]]:
    """Repairs for bodies whose indentation was mangled (first line flush-left, tabs...)."""
    variants = []
    lines = code.split("\n")
    rest = [ln for ln in lines[1:] if ln.strip()]
    if lines[0][:1] not in (" ", "\t") and rest:
        shallowest = min(rest, key=lambda ln: len(ln) - len(ln.lstrip()))
        lead = shallowest[: len(shallowest) - len(shallowest.lstrip())]
        if lead:
            variants.append((lead + code, "indented first line of body"))
    if "\t" in code:
        expanded = "\n".join(_expand_leading_tabs(ln) for ln in lines)
        variants.append((expanded, "expanded tabs in body"))
    reindented = textwrap.indent(textwrap.dedent(code), _prompt_indent(prompt))
    variants.append((reindented, "re-indented body"))
    return variants


def _expand_leading_tabs(line: str) -> str:
    stripped = line.lstrip(" \t")
    return line[: len(line) - len(stripped)].replace("\t", "    ") + stripped


def _prompt_indent(prompt: str) -> str:
    for line in reversed(prompt.split("\n")):
        if line.strip():
            lead = line[: len(line) - len(line.lstrip())]
            return lead or "    "
    return "    "


def join_prompt(prompt: str, body: str) -> str:
    """Prompt + body with exactly one line break between them and indentation kept."""
    last = prompt.rsplit("\n", 1)[-1]
    head = prompt[: len(prompt) - len(last)] if not last.strip() else prompt
    if head and not head.endswith("\n"):
        head += "\n"
    return head + body


def assemble(task: Task, kind: Kind, fitted: str) -> tuple[str, str]:
    """(program, note) for ``fitted`` code of ``kind``; the note is empty when there is none.

    A body continues the prompt. A whole answer on a completion task gets the prompt's other
    top-level statements in front (an answer that omits ``from typing import List`` or a
    helper the prompt gives still runs, as it would had the model continued the prompt).
    """
    note = ""
    if kind == "body":
        program = join_prompt(task.code_prompt, fitted)
    else:
        program = fitted
        if task.prompt_style == "completion":
            context, names = _prompt_context(task, fitted)
            if context:
                program = context + "\n\n\n" + fitted
                note = f"prepended prompt context ({', '.join(names)})"
    return _hoist_future(program).rstrip() + "\n", note


def _prompt_context(task: Task, code: str) -> tuple[str, list[str]]:
    """The prompt's top-level statements other than the entry point's own definition.

    Imports the answer repeats verbatim are left out; everything else is kept even if the
    answer redefines it, since the answer's definitions come later and win.
    """
    prompt = task.code_prompt
    tree = parse(prompt) or parse(join_prompt(prompt, "    pass\n"))
    if tree is None or not task.entry_point:
        return "", []
    repeated = {
        ast.unparse(s) for s in top_level(code) if isinstance(s, ast.Import | ast.ImportFrom)
    }
    lines = prompt.split("\n")
    parts, names = [], []
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) or stmt.end_lineno is None:
            continue  # docstrings and bare expressions carry nothing the answer needs
        bound = bound_names([stmt])
        if task.entry_point in bound or ast.unparse(stmt) in repeated:
            continue
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        parts.append("\n".join(lines[first - 1 : stmt.end_lineno]))
        names.append(
            ast.unparse(stmt)
            if isinstance(stmt, ast.Import | ast.ImportFrom)
            else (", ".join(sorted(bound)) or type(stmt).__name__)
        )
    return "\n".join(parts), names


def _hoist_future(program: str) -> str:
    """Move ``from __future__`` imports first; they are illegal after other statements."""
    tree = parse(program)
    if tree is None:
        return program
    lines = program.split("\n")
    future = [
        s
        for s in tree.body
        if isinstance(s, ast.ImportFrom) and s.module == "__future__" and s.lineno == s.end_lineno
    ]
    leading = [s for s in tree.body if not is_docstring(s)][: len(future)]
    if not future or leading == future:
        return program
    rows = {s.lineno - 1 for s in future}
    moved = [lines[r].strip() for r in sorted(rows)]
    kept = [line for r, line in enumerate(lines) if r not in rows]
    return "\n".join(moved + kept)


def bound_names(body: list[ast.stmt], imports: bool = True) -> set[str]:
    """Names a module binds at top level by def, class, assignment (and import)."""
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif imports and isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def is_docstring(stmt: ast.stmt) -> bool:
    """A bare string statement: documentation, not code that binds or runs anything."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


@functools.lru_cache(maxsize=2048)  # n samples of a task often repeat an answer or a prompt
def compile_error(source: str) -> SyntaxError | None:
    """The error ``compile()`` raises for ``source``, or None; compiler warnings are muted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "<answer>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            return exc
        except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
            return SyntaxError(f"{type(exc).__name__}: {exc}")
    return None


def format_error(exc: SyntaxError) -> str:
    """A one-line ``SyntaxError: message (line N)`` for the extraction's error."""
    where = f" (line {exc.lineno})" if exc.lineno else ""
    return f"{type(exc).__name__}: {exc.msg}{where}"


def parse(source: str) -> ast.Module | None:
    """``source`` as a module, or None where it does not parse (answers are untrusted text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return None


def top_level(source: str) -> list[ast.stmt]:
    """The top-level statements of ``source``; none where it does not parse."""
    tree = parse(source)
    return tree.body if tree is not None else []
