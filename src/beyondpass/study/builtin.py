"""Built-in study files (``beyondpass run studies/NAME.toml --model SPEC``).

Each method ships its studies in its own package (``Method.studies``); this module finds
them through the registry. A path that does not exist but names a built-in study
(``studies/robunfr.toml``, ``robustapi.toml`` or just ``robunfr``) is read from the package,
so the documented command works from any directory and from an installed beyondpass; a
file of that name that does exist always wins.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from beyondpass import registry


def study_files() -> dict[str, Path]:
    """Built-in study files by stem (``robunfr``), from every method's ``studies`` package
    (the first of a stem wins)."""
    out: dict[str, Path] = {}
    for package, _ in registry.specs("studies"):
        for entry in resources.files(package).iterdir():
            if entry.name.endswith(".toml"):
                out.setdefault(entry.name[:-5], Path(str(entry)))
    return dict(sorted(out.items()))


def builtin_names() -> list[str]:
    return list(study_files())


def builtin_study_path(name: str | Path) -> Path | None:
    """The packaged study ``name`` (``robunfr`` or ``robunfr.toml``), if there is one."""
    stem = Path(name).name
    if stem.endswith(".toml"):
        stem = stem[:-5]
    candidate = study_files().get(stem)
    return candidate if candidate is not None and candidate.is_file() else None


def resolve_study_path(path: str | Path) -> tuple[Path, bool]:
    """A study path as given, else the built-in study of that name; and whether it is built in."""
    given = Path(path)
    if given.exists():
        return given, False
    if str(given.parent) in (".", "studies") and (builtin := builtin_study_path(given)) is not None:
        return builtin, True
    return given, False
