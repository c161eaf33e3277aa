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


def machine_cpu_s() -> float:
    """Busy CPU seconds of the whole machine since boot (all cores, all processes)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")
