"""The published benchmark's projects, settings and models, and how its files name them.

Eight settings: a function is generated from its description (original, symbol,
structure, symbol+structure) or completed from its header and description (original,
symbol, semantic, semantic+symbol). Each has a folder under a project's ``5.input of
test/``. The authors' file names are not their settings: "semantic…" files hold *symbol*
obfuscation and "grammar…" files *semantic* obfuscation (the paper's Table I names them
as here); the folder decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from beyondpass.errors import DataError
from beyondpass.methods.obfuseval.published.location import DATA

GENERATION, COMPLETION = "generation", "completion"


@dataclass(frozen=True)
class Project:
    name: str  # ours (the project's own name)
    folder: str  # under experimental data/
    paper: str  # the paper's table row label


@dataclass(frozen=True)
class Setting:
    scenario: str  # generation | completion
    name: str  # original, symbol, structure, symbol+structure, semantic, semantic+symbol
    folder: str  # under <project>/5.input of test/
    paper: str  # the paper's column label ("Symbol+Structure")
    baseline: str | None  # the original setting's column over this setting's subset

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.name}"


PROJECTS = (
    Project("redis", "1.redis", "redis"),
    Project("lvgl", "2.lvgl", "lvgl"),
    Project("fluent-bit", "3.fluent", "fluent"),
    Project("libgit2", "4.libgit", "libgits"),
    Project("libvips", "5.libvips", "libvips"),
)

SETTINGS = (
    Setting(GENERATION, "original", "1.original", "Original", None),
    Setting(GENERATION, "structure", "2.struct", "Structure", "Original (Structure)"),
    Setting(GENERATION, "symbol", "3.symbol", "Symbol", None),
    Setting(GENERATION, "symbol+structure", "4.symbol+struct", "Symbol+Structure",
            "Original (Structure)"),
    Setting(COMPLETION, "original", "5.complete original", "Original", None),
    Setting(COMPLETION, "symbol", "6.complete_symbol", "Symbol", None),
    Setting(COMPLETION, "semantic", "7.complete semantic", "Semantic", "Original (Semantic)"),
    Setting(COMPLETION, "semantic+symbol", "8.complete semantic+symbol", "Symbol+Semantic",
            "Original (Semantic)"),
)  # fmt: skip

#: file-name prefix -> (our model name, the paper's row label); longest prefix first
MODELS = (
    ("gpt-4-1106-preview", "gpt-4-1106-preview", "GPT4-1106"),
    ("gpt-4-0125-preview", "gpt-4-0125-preview", "GPT4-0125"),
    ("gpt-3.5-turbo", "gpt-3.5-turbo", "GPT3.5"),
    ("deepseek-coder", "deepseek-coder", "Deepseek"),
)


def project(name: str) -> Project:
    for found in PROJECTS:
        if name in (found.name, found.paper, found.folder):
            return found
    known = ", ".join(p.name for p in PROJECTS)
    raise DataError(f"unknown ObfusEval project {name!r} — the published ones are {known}")


def setting(key: str) -> Setting:
    for found in SETTINGS:
        if key == found.key:
            return found
    known = ", ".join(s.key for s in SETTINGS)
    raise DataError(f"unknown ObfusEval setting {key!r} — the settings are {known}")


def folder(root: Path, where: Project, what: Setting) -> Path:
    """The setting's folder (its number decides: lvgl spells ``5.complete_original``)."""
    inputs = root / DATA / where.folder / "5.input of test"
    number = what.folder.split(".", 1)[0] + "."
    found = sorted(p for p in inputs.glob(f"{number}*") if p.is_dir()) if inputs.is_dir() else []
    return found[0] if found else inputs / what.folder


def model_of(path: Path) -> tuple[str, str] | None:
    """(our model name, the paper's label) of an answer file; None for the setting's input
    file and the symbol dictionaries."""
    for prefix, name, paper in MODELS:
        if path.name.startswith(prefix):
            return name, paper
    return None


def available(root: Path) -> list[Project]:
    """The projects this checkout holds."""
    return [p for p in PROJECTS if (root / DATA / p.folder).is_dir()]


def is_dictionary(path: Path) -> bool:
    """A symbol dictionary (``all_dict_*``): original name -> obfuscated name."""
    return bool(re.match(r"all_dict", path.name))
