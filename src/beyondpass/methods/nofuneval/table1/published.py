"""The NoFunEval authors' published generation files, found in a checkout of their repository.

Their layout is ``generations/edit/<subset>/<model>/<prompt>/<n>_samples/generated_outputs.jsonl``;
line *i* answers row *i* and carries the row's ``source_code``, ``target_code`` and ``pl``, so
a file is scored from itself — maintainability included, whose dataset file is not public.
Its lines are read by the one reader of generations files (:mod:`..files.generations`).
A file missing from the checkout or held there only as a Git LFS pointer is reported as
unreadable rather than scored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.methods.nofuneval.benchmark import EDIT_SUBSETS, PROMPTS

#: the edit subsets in Table 1's order: the paper puts maintainability first
TABLE1_ORDER = ("maintainability", *(s for s in EDIT_SUBSETS if s != "maintainability"))
#: environment variable naming a checkout of microsoft/NoFunEval
REPO_ENV = "BEYONDPASS_NOFUNEVAL_REPO"
_LFS = b"version https://git-lfs"


@dataclass(frozen=True)
class PublishedFile:
    subset: str
    model: str
    prompt: str
    samples: int
    path: Path

    @property
    def key(self) -> str:
        return f"{self.subset}/{self.model}/{self.prompt}/{self.samples}"

    def readable(self) -> bool:
        """False for a missing file or a Git LFS pointer in place of the data."""
        try:
            with self.path.open("rb") as fh:
                return not fh.read(len(_LFS)).startswith(_LFS)
        except OSError:
            return False


def repo_root(path: str | os.PathLike[str] | None) -> Path:
    """The checkout given (else ``$BEYONDPASS_NOFUNEVAL_REPO``), with ``generations/edit``."""
    value = path or os.environ.get(REPO_ENV)
    if not value:
        raise ConfigError(f"name a checkout of microsoft/NoFunEval (--published or ${REPO_ENV})")
    root = Path(value)
    if not (root / "generations" / "edit").is_dir():
        raise ConfigError(f"{root}: no generations/edit folder (not a NoFunEval checkout)")
    return root


def published_files(root: Path, samples: int | None = None) -> list[PublishedFile]:
    """Every generations file under ``root``, in Table 1's order (subset, model, prompt)."""
    found = []
    for path in (root / "generations" / "edit").glob("*/*/*/*_samples/generated_outputs.jsonl"):
        subset, model, prompt, folder = path.parts[-5:-1]
        n = folder.split("_", 1)[0]
        if not n.isdigit() or (samples is not None and int(n) != samples):
            continue
        found.append(PublishedFile(subset, model, prompt, int(n), path))

    def order(f: PublishedFile) -> tuple[Any, ...]:
        sub = TABLE1_ORDER.index(f.subset) if f.subset in TABLE1_ORDER else len(TABLE1_ORDER)
        kind = PROMPTS.index(f.prompt) if f.prompt in PROMPTS else len(PROMPTS)
        return (sub, f.subset, f.model.lower(), kind, f.prompt, f.samples)

    return sorted(found, key=order)
