"""Tasks from a project: functions its own tests cover, each with a prompt.

A candidate is a module-level function or a method of a module-level class in one of the
description's source files, with a docstring (or a text supplied in ``[descriptions]``),
at least ``min_lines`` lines of body, and at least one test whose run executes a line of
that body. The prompt shows the module's imports, the enclosing class header and the
function's signature with its description; with ``obfuscate`` the names the prompt defines
(function, parameters, class) are renamed by the symbol level's machinery, and the mapping
is kept to rename the model's answer back before it is spliced.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from beyondpass.errors import ConfigError
from beyondpass.methods.obfuseval.project.coverage_map import LineTests
from beyondpass.methods.obfuseval.project.spec import ProjectSpec
from beyondpass.methods.obfuseval.symbol import collect, make_mapping, parse, rename


@dataclass(frozen=True)
class ProjectTask:
    """One function to regenerate, and the tests that cover it."""

    task_id: str  # qualified name: ``package.module.Class.method``
    path: str  # source file, relative to the project root
    scope: tuple[str, ...]  # ``("Class", "method")`` or ``("function",)``
    description: str
    stub: str  # imports, class header, signature and description: what the model sees
    original: str  # the function's source as the project has it
    tests: tuple[str, ...]  # pytest node ids of the covering tests
    mapping: dict[str, str] = field(default_factory=dict)  # old -> new, when obfuscated

    @property
    def name(self) -> str:
        return self.scope[-1]

    def as_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "path": self.path,
            "scope": list(self.scope),
            "description": self.description,
            "n_tests": len(self.tests),
            "mapping": dict(self.mapping),
        }


def module_name(path: str, spec: ProjectSpec) -> str:
    """``src/cachetools/keys.py`` with import root ``src`` -> ``cachetools.keys``."""
    parts = Path(path).with_suffix("").parts
    for root in sorted(spec.pythonpath, key=lambda r: -len(Path(r).parts)):
        prefix = Path(root).parts if root not in (".", "") else ()
        if parts[: len(prefix)] == prefix:
            parts = parts[len(prefix) :]
            break
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _docstring(fn: cst.FunctionDef) -> str | None:
    text = fn.get_docstring(clean=True)
    return text if text else None


def _body_without_docstring(fn: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if body and _docstring(fn) is not None:
        body = body[1:]
    return body


def _candidates(
    module: cst.Module,
) -> list[tuple[tuple[str, ...], cst.FunctionDef, cst.ClassDef | None]]:
    found: list[tuple[tuple[str, ...], cst.FunctionDef, cst.ClassDef | None]] = []
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            found.append(((stmt.name.value,), stmt, None))
        elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    found.append(((stmt.name.value, inner.name.value), inner, stmt))
    return found


def _imports(module: cst.Module) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
        ):
            out.append(stmt)
    return out


def _stub(
    module: cst.Module, fn: cst.FunctionDef, owner: cst.ClassDef | None, description: str
) -> str:
    """Imports + (class header) + signature with the description as its docstring."""
    indent = "    " * (2 if owner is not None else 1)
    text = description.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    text = textwrap.indent(text, indent).lstrip()
    quoted = '"""' + text + ("\n" + indent if "\n" in text else "") + '"""'
    doc = cst.SimpleStatementLine([cst.Expr(cst.SimpleString(quoted))])
    head = fn.with_changes(body=cst.IndentedBlock([doc]), leading_lines=())
    top: cst.BaseStatement = head
    if owner is not None:
        top = owner.with_changes(body=cst.IndentedBlock([head]), leading_lines=())
    imports = _imports(module)
    spacer = [cst.EmptyLine()] * 2 if imports else []
    return cst.Module(body=[*imports, top.with_changes(leading_lines=spacer)]).code


def select_tasks(
    spec: ProjectSpec, pristine: Path, coverage: LineTests, seed: int = 0
) -> list[ProjectTask]:
    """The covered functions of the description's source files, as tasks (seeded choice
    when more qualify than ``max_functions``; reported in file and line order)."""
    files = sorted({p for pattern in spec.paths for p in pristine.glob(pattern) if p.is_file()})
    if not files:
        raise ConfigError(f"{spec.file}: [select] paths match no file in the project")
    tasks: list[tuple[str, int, ProjectTask]] = []
    for file in files:
        rel = file.relative_to(pristine).as_posix()
        try:
            module = cst.parse_module(file.read_text(encoding="utf-8"))
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            continue
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        lines = coverage.get(rel, {})
        modname = module_name(rel, spec)
        for scope, fn, owner in _candidates(module):
            task_id = ".".join([modname, *scope]) if modname else ".".join(scope)
            description = spec.descriptions.get(task_id) or _docstring(fn)
            body = _body_without_docstring(fn)
            if not description or not body:
                continue
            first = positions[body[0]].start.line
            last = positions[fn].end.line
            if last - first + 1 < spec.min_lines:
                continue
            covering = frozenset().union(
                *(lines.get(n, frozenset()) for n in range(first, last + 1))
            )
            if not covering:
                continue
            task = ProjectTask(
                task_id=task_id,
                path=rel,
                scope=scope,
                description=description,
                stub=_stub(module, fn, owner, description),
                original=cst.Module(body=[fn.with_changes(leading_lines=())]).code,
                tests=tuple(sorted(covering)),
            )
            tasks.append((rel, positions[fn].start.line, task))
    if spec.functions:
        known = {t.task_id for _, _, t in tasks}
        missing = [f for f in spec.functions if f not in known]
        if missing:
            raise ConfigError(
                f"{spec.file}: function {missing[0]!r} is not a covered, documented function "
                f"of the selected files"
            )
        tasks = [x for x in tasks if x[2].task_id in spec.functions]
    if len(tasks) > spec.max_functions:
        tasks = random.Random(seed).sample(tasks, spec.max_functions)
    return [t for _, _, t in sorted(tasks, key=lambda x: (x[0], x[1]))]


def obfuscate_task(task: ProjectTask, module_source: str, seed: int) -> ProjectTask:
    """The task with the names its prompt defines renamed (seeded, collision-free with every
    identifier of the module)."""
    wrapper = parse(task.stub, task.task_id)
    facts = collect(wrapper)
    taken = set(collect(parse(module_source, task.path)).identifiers) | facts.identifiers
    mapping = make_mapping(facts.bound, taken, f"{seed}:{task.task_id}")
    stub = rename(wrapper, mapping, facts.functions)
    return ProjectTask(
        task_id=task.task_id,
        path=task.path,
        scope=task.scope,
        description=task.description,
        stub=stub,
        original=task.original,
        tests=task.tests,
        mapping=mapping,
    )


def map_back(code: str, task: ProjectTask) -> str:
    """A model's answer to an obfuscated task with the project's names restored."""
    if not task.mapping:
        return code
    wrapper = parse(code, f"the answer for {task.task_id}")
    inverse = {new: old for old, new in task.mapping.items()}
    return rename(wrapper, inverse, collect(wrapper).functions)


def reference_answer(task: ProjectTask) -> str:
    """The project's own function as an answer (renamed like the prompt when obfuscated):
    spliced back, it must pass every covering test."""
    code = task.original
    if task.mapping:
        wrapper = parse(code, task.task_id)
        code = rename(wrapper, task.mapping, collect(wrapper).functions)
    return f"```python\n{code}```\n"
