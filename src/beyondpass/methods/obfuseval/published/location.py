"""Where a checkout of ObfusEval's published repository is.

The files are research data of about 120 MB of xlsx; they are never bundled. First hit
wins: an explicit path (``--published``), ``BEYONDPASS_OBFUSEVAL_PUBLISHED``, or
``obfuseval-c/seed`` under the data directory (``--data-dir`` / ``BEYONDPASS_DATA``). A
checkout holds ``experimental data/`` with one folder per project; a partial one (only
libgit2, as the shared data directory holds) serves the projects it has.
"""

from __future__ import annotations

import os
from pathlib import Path

from beyondpass.benchmarks.sources import explicit_data_dir
from beyondpass.errors import DataError

ENV = "BEYONDPASS_OBFUSEVAL_PUBLISHED"
#: the repository and commit the figures in docs/obfuseval.md were read from
REPOSITORY = "https://github.com/zhangbuzhang/ObfusEval"
COMMIT = "f484b9da28c098bb7345f63bb5d4b0831d26e13d"
DOWNLOAD = f"{REPOSITORY}/archive/{COMMIT}.zip"
#: where it sits inside a data directory
DATA_RELPATH = "obfuseval-c/seed"
DATA = "experimental data"


def checkout(path: str | os.PathLike[str] | None = None, data_dir: str | None = None) -> Path:
    """The root of a checkout (it holds ``experimental data/``)."""
    tried: list[str] = []
    candidates: list[tuple[str, Path]] = []
    if path is not None:
        candidates.append(("--published", Path(path).expanduser()))
    elif os.environ.get(ENV):
        candidates.append((ENV, Path(os.environ[ENV]).expanduser()))
    else:
        data = explicit_data_dir(data_dir)
        if data is not None:
            candidates.append(("the data directory", data / DATA_RELPATH))
    for origin, root in candidates:
        if (root / DATA).is_dir():
            return root
        tried.append(f"{root} ({origin})")
    where = "; tried " + ", ".join(tried) if tried else ""
    raise DataError(
        f"no checkout of ObfusEval's published files{where} — pass --published DIR or set "
        f"{ENV} to a folder holding 'experimental data/' ({DOWNLOAD})"
    )
