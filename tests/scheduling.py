"""The order test files are handed to the workers: the longest first.

A test file stays on one worker (``--dist loadfile``), and pytest-xdist hands the files out
in collection order (``--no-loadscope-reorder``; its own order is by number of tests, so a
file of one 60-second test came last and ran alone at the end). Starting the longest files
first (longest processing time first) leaves short files to fill the end. The seconds are
measured ones (``file_seconds.toml``); a file not listed counts half a second a test.
Only the order changes: every test still runs.

Run as a script on a JUnit XML file (``pytest --junitxml=suite.xml``) to rewrite the table.
"""

from __future__ import annotations

import sys
import tomllib
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

TABLE = Path(__file__).with_name("file_seconds.toml")
_UNLISTED_S = 0.5  # a test of a file the table does not list
_LISTED_FROM_S = 10  # files that took less are not written down


def _seconds() -> dict[str, float]:
    with TABLE.open("rb") as handle:
        return {str(k): float(v) for k, v in tomllib.load(handle).items()}


def longest_files_first(items: list[pytest.Item], root: Path) -> None:
    """Reorder ``items`` in place: files by their measured seconds, longest first; the
    tests of a file keep their order."""
    table = _seconds()
    files = [item.path.relative_to(root).as_posix() for item in items]
    count = Counter(files)
    weight = {f: table.get(f, _UNLISTED_S * n) for f, n in count.items()}
    order = sorted(range(len(items)), key=lambda i: -weight[files[i]])
    items[:] = [items[i] for i in order]


def _table_from_junit(xml: Path) -> str:
    """The table's text from a JUnit XML file: seconds per test file, longest first."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(xml).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        module = next((i for i, p in enumerate(parts) if p.startswith("test_")), len(parts) - 1)
        seconds["/".join(parts[: module + 1]) + ".py"] += float(case.get("time") or 0)
    head = [line for line in TABLE.read_text().splitlines() if line.startswith("#")]
    rows = [f'"{f}" = {s:.0f}' for f, s in seconds.most_common() if s >= _LISTED_FROM_S]
    return "\n".join([*head, *rows]) + "\n"


if __name__ == "__main__":
    TABLE.write_text(_table_from_junit(Path(sys.argv[1])))
