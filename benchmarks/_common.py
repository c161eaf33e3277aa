"""What every benchmark script shares: the repository's root and the data-directory option."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def argument_parser(doc: str) -> argparse.ArgumentParser:
    """A parser described by the first line of the script's docstring, with ``--data-dir``
    (default: ``BEYONDPASS_DATA``, else ``../shared/data`` beside the repository)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("BEYONDPASS_DATA", str(REPO.parent / "shared" / "data")),
    )
    return parser
