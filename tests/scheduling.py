"""The order test files are handed to the workers: the longest first.

A test file stays on one worker (``--dist loadfile``), and pytest-xdist hands the files out
in collection order (``--no-loadscope-reorder``; its own order is by number of tests, so a
file of one 60-second test came last and ran alone at the end). Starting the longest files
first (longest processing time first) leaves short files to fill the end. The seconds are
measured ones (``file_seconds.toml``); a file not listed counts half a second a test.
Only the order changes: every test still runs.

One exception to "a file stays on one worker, alone": the files whose tests use the
session's Ray instance (conftest's ``ray_pool``) go to one worker together, as one scope
(:data:`SHARED_RAY`), so the suite starts that instance once, not once per worker (a start
and stop of local Ray costs about 8 s of CPU on this machine, and its worker processes warm
up again with it).

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
#: the test files that share the session's Ray instance: one scope, one worker
SHARED_RAY = frozenset(
    {
        "tests/execution/test_ray_pool.py",
        "tests/execution/test_ray_executor.py",
        "tests/methods/nofuneval/test_nofuneval_ray.py",
        "tests/methods/obfuseval/test_obfuseval_ray.py",
    }
)
SHARED_RAY_SCOPE = "tests/shared-ray"
_UNLISTED_S = 0.5  # a test of a file the table does not list
_LISTED_FROM_S = 10  # files that took less are not written down


def _seconds() -> dict[str, float]:
    with TABLE.open("rb") as handle:
        return {str(k): float(v) for k, v in tomllib.load(handle).items()}


def scope_of(path: str) -> str:
    """The unit a worker takes: the test file (``path`` relative to the repository), or the
    shared-Ray scope for the files that use the session's Ray instance."""
    return SHARED_RAY_SCOPE if path in SHARED_RAY else path


def longest_files_first(items: list[pytest.Item], root: Path) -> None:
    """Reorder ``items`` in place: scopes (files, and the shared-Ray files together) by
    their measured seconds, longest first; the tests of a scope keep their order."""
    table = _seconds()
    files = [item.path.relative_to(root).as_posix() for item in items]
    count = Counter(files)
    weight: Counter[str] = Counter()
    for f, n in count.items():
        weight[scope_of(f)] += table.get(f, _UNLISTED_S * n)
    scopes = [scope_of(f) for f in files]
    first = {scope: i for i, scope in reversed(list(enumerate(scopes)))}
    order = sorted(range(len(items)), key=lambda i: (-weight[scopes[i]], first[scopes[i]]))
    items[:] = [items[i] for i in order]


def make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadfile`` with the shared-Ray files as one scope (:func:`scope_of`)."""
    from xdist.scheduler import LoadFileScheduling

    class SharedRayScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(super()._split_scope(nodeid))

    return SharedRayScheduling(config, log)


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
