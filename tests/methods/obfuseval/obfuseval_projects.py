"""The two real projects of the project-level ObfusEval tests (tests/methods/obfuseval/).

``inflection`` (pure functions, one module, parametrised pytest suite) and ``cachetools``
(classes, src layout, unittest-style suite run by pytest), fetched from PyPI as sdists at
test time; tests/methods/obfuseval/conftest.py downloads and prepares them once per run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: the projects' test command: pytest without the plugins installed beside beyondpass (the
#: projects need none; loading them all costs about a second of CPU per test run). The
#: coverage step names pytest-cov itself.
NO_PLUGINS = 'command = "python -m pytest --disable-plugin-autoload"\n'
PROJECTS = {"inflection": "0.5.1", "cachetools": "5.5.0"}
#: a test added to the cachetools checkout that fails in exactly one of its runs (the 3rd
#: run in the same copy): the flaky-test detection must exclude it up front
FLAKY_TEST = """
import os

from cachetools import keys


def test_sometimes():
    path = os.path.join(os.path.dirname(__file__), ".runs")
    n = len(open(path).read()) if os.path.exists(path) else 0
    with open(path, "a") as out:
        out.write("x")
    assert keys.hashkey(1, a=2) == keys.hashkey(1, a=2)
    assert n != 2
"""
FLAKY_ID = "tests/test_zz_flaky.py::test_sometimes"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
