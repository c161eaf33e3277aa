"""Every built-in method follows one package layout (docs/adding-a-method.md, "The package
layout").

The top level of a method's package holds its declaration, modules named after the pipeline
stage they serve, the few modules of its own concepts named in that section, and
subpackages; data files live in ``data/`` and built-in studies in ``studies/``. A method's
commands live in ``cli.py``, its headline metrics' ``values`` in ``headline.py`` and its
report sections in ``report``. The rules are checked on a listing of the package's files,
so a fabricated listing with one misplaced file shows that they have teeth.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from beyondpass.registry import BUILTIN_METHODS

SRC = Path(__file__).resolve().parents[2] / "src"

#: modules named after the stage they serve, allowed at any method's top level (besides
#: ``<what>_evaluator.py``): the declaration, benchmark, prompt plan, extraction, evaluators,
#: analysis, report and the commands with their work modules; the light modules of options
#: and factories the registry resolves while reading a study file
STAGE_MODULES = frozenset(
    {
        "__init__",
        "benchmark",
        "prompts",
        "extraction",
        "answers",
        "evaluator",
        "analysis",
        "headline",
        "report",
        "plots",
        "cli",
        "check",
        "score",
        "components",
        "evaluation",
    }
)
#: modules of a method's own concepts kept beside the stage modules (named in the same
#: section of docs/adding-a-method.md); a new concept of several modules is a subpackage
CONCEPT_MODULES = {
    "psb2": frozenset(
        {
            "drivers",
            "drivers_cpp",
            "drivers_java",
            "quality",
            "quality_clike",
            "quality_table",
            "smells",
            "smells_python",
            "smells_cpp",
            "smells_java",
            "findings",
        }
    ),
    "robunfr": frozenset({"variants"}),
    "obfuseval": frozenset(
        {"symbol", "names", "agreement", "task", "transform", "scenario", "rewrite_base"}
    ),
}
#: folders of a method that are not packages: what it ships and its built-in study files
DATA_DIR, STUDIES_DIR = "data", "studies"
CODE_SUFFIXES = (".py", ".pyi")

METHODS = [m for m in BUILTIN_METHODS if m != "beyondpass.core"]


def package_files(root: Path) -> list[str]:
    """Every file under ``root`` as a path relative to it (``a/b.py``); caches left out."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


def layout_violations(method: str, files: Iterable[str]) -> list[str]:
    """What in the listing ``files`` of method ``method``'s package breaks the layout."""
    files = sorted(files)
    allowed = STAGE_MODULES | CONCEPT_MODULES.get(method, frozenset())
    folders = {f.split("/", 1)[0] for f in files if "/" in f}
    out = []
    if "__init__.py" not in files:
        out.append("no __init__.py declaring METHOD")
    stray = sorted(d for d in folders - {DATA_DIR, STUDIES_DIR} if f"{d}/__init__.py" not in files)
    out += [f"{d}/: neither a package nor {DATA_DIR}/ or {STUDIES_DIR}/" for d in stray]
    for f in files:
        top, _, rest = f.partition("/")
        if top in stray:
            continue
        is_code = f.endswith(CODE_SUFFIXES)
        if not rest:  # at the package's top level
            stem = f.rsplit(".", 1)[0]
            if not is_code:
                out.append(f"{f}: a data file outside {DATA_DIR}/")
            elif stem not in allowed and not stem.endswith("_evaluator"):
                out.append(f"{f}: not a stage module (a subpackage of its concept?)")
        elif top == STUDIES_DIR:
            if not (f.endswith(".toml") or rest == "__init__.py"):
                out.append(f"{f}: {STUDIES_DIR}/ holds study files only")
        elif top != DATA_DIR and not is_code:
            out.append(f"{f}: a data file outside {DATA_DIR}/")
    return out


def _module(ref: Any) -> str | None:
    """The module a ``"module:attribute"`` Ref names (``None`` for an object)."""
    return ref.split(":", 1)[0] if isinstance(ref, str) else None


def ref_violations(package: str, method: Any) -> list[str]:
    """Commands in ``<package>.cli``, headline values and reading in ``<package>.headline``, report
    sections in a ``report`` module (the method's, in its ``report`` package, or of one of
    its concept packages, like ObfusEval's ``project/report.py``)."""
    out = []
    for ref in method.commands:
        if (module := _module(ref)) is not None and module != f"{package}.cli":
            out.append(f"command {ref}: not in {package}.cli")
    for spec in method.headlines:
        module = _module(spec.values)
        if module is not None and not (
            module == f"{package}.headline" or module.startswith(f"{package}.headline.")
        ):
            out.append(f"headline {spec.metric} ({spec.values}): not in {package}.headline")
    reading = getattr(method, "headline_reading", None)
    module = _module(reading) if reading is not None else None
    if module is not None and module != f"{package}.headline":
        out.append(f"headline reading {reading}: not in {package}.headline")
    for ref in method.report_sections:
        if (module := _module(ref)) is None:
            continue
        inner = module.removeprefix(f"{package}.").split(".")
        if not module.startswith(f"{package}.") or "report" not in (inner[0], inner[-1]):
            out.append(f"report section {ref}: not in {package}.report")
    return out


def _root(package: str) -> Path:
    return SRC.joinpath(*package.split("."))


def test_every_builtin_method_is_checked() -> None:
    names = [m.rsplit(".", 1)[-1] for m in METHODS]
    assert names and {"nofuneval", "psb2"} <= set(names)
    assert set(CONCEPT_MODULES) <= set(names)  # no allowance for a method that is gone


@pytest.mark.parametrize("package", METHODS)
def test_package_layout(package: str) -> None:
    root = _root(package)
    assert root.is_dir(), root
    assert layout_violations(package.rsplit(".", 1)[-1], package_files(root)) == []


@pytest.mark.parametrize("package", METHODS)
def test_components_live_in_their_stage_module(package: str) -> None:
    method = importlib.import_module(package).METHOD
    assert ref_violations(package, method) == []
    if method.commands:  # a method's commands, if it has any, live in cli.py
        assert (_root(package) / "cli.py").is_file()


@pytest.mark.parametrize("package", METHODS)
def test_each_concept_module_exists(package: str) -> None:
    """The allowances above name modules that exist: a moved module takes its entry along."""
    name = package.rsplit(".", 1)[-1]
    for module in CONCEPT_MODULES.get(name, ()):
        assert (_root(package) / f"{module}.py").is_file(), module


GOOD = [
    "__init__.py",
    "benchmark.py",
    "cli.py",
    "oracle_evaluator.py",
    "edit/__init__.py",
    "edit/diffbleu.py",
    "data/rules.xml",
    "data/references/java/gcd.java",
    "studies/__init__.py",
    "studies/mine.toml",
]


def test_a_clean_listing_has_no_violation() -> None:
    assert layout_violations("mine", GOOD) == []


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ("mine.toml", "mine.toml: a data file outside data/"),
        ("table1.py", "table1.py: not a stage module"),
        ("edit/rules.xml", "edit/rules.xml: a data file outside data/"),
        ("java_reference/gcd.java", "java_reference/: neither a package"),
        ("studies/notes.txt", "studies/notes.txt: studies/ holds study files only"),
    ],
)
def test_one_misplaced_file_is_one_violation(extra: str, found: str) -> None:
    violations = layout_violations("mine", [*GOOD, extra])
    assert len(violations) == 1 and violations[0].startswith(found), violations


def test_a_concept_module_is_allowed_only_for_its_method() -> None:
    assert layout_violations("psb2", [*GOOD, "drivers.py"]) == []
    assert layout_violations("mine", [*GOOD, "drivers.py"]) != []


def test_components_outside_their_stage_module_are_reported() -> None:
    headline = SimpleNamespace(metric="m", values="pkg.analysis:m")
    method = SimpleNamespace(
        commands=("pkg.cli:main", "pkg.score:score"),
        headlines=(headline,),
        report_sections=("pkg.report:A", "pkg.report.section:B", "pkg.project.report:C"),
        headline_reading="pkg.check:reading",
    )
    assert ref_violations("pkg", method) == [
        "command pkg.score:score: not in pkg.cli",
        "headline m (pkg.analysis:m): not in pkg.headline",
        "headline reading pkg.check:reading: not in pkg.headline",
    ]
    method = SimpleNamespace(commands=(), headlines=(), report_sections=("pkg.plots:Section",))
    assert ref_violations("pkg", method) == ["report section pkg.plots:Section: not in pkg.report"]
