"""A ``sitecustomize`` that hides modules from an interpreter, as if their extra were not
installed: tests put its folder first on ``PYTHONPATH`` (``run_cli(...,
pythonpath_first=[folder])``). Mocking an import inside the test process could not show
what a user without the extra sees; a real interpreter refusing the import does."""

from __future__ import annotations

import textwrap
from pathlib import Path


def hiding(folder: Path, *modules: str) -> Path:
    """``folder`` with a ``sitecustomize.py`` whose meta-path finder refuses ``modules``
    (and their submodules); returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    names = tuple(sorted(modules))
    (folder / "sitecustomize.py").write_text(
        textwrap.dedent(
            f"""
            import sys

            class Hide:
                def find_spec(self, name, path=None, target=None):
                    if name.split(".")[0] in {names!r}:
                        raise ModuleNotFoundError(name)
                    return None

            sys.meta_path.insert(0, Hide())
            """
        ),
        encoding="utf-8",
    )
    return folder
