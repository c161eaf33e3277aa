"""Built-in study files (``beyondpass run studies/NAME.toml --model SPEC``).

A path that does not exist but names a built-in study (``studies/robustapi.toml`` or
``robustapi.toml``) is read from the package, so the study runs from any directory and from
an installed beyondpass; a file of that name that does exist always wins.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def builtin_names() -> list[str]:
    root = resources.files("beyondpass.studies")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".toml"))


def builtin_path(path: str | Path) -> Path | None:
    """The packaged study ``path`` refers to, if it refers to one."""
    path = Path(path)
    if path.exists() or path.suffix != ".toml" or path.parent.name not in ("", "studies"):
        return None
    if str(path.parent) not in (".", "studies"):
        return None
    candidate = Path(str(resources.files("beyondpass.studies") / path.name))
    return candidate if candidate.is_file() else None
