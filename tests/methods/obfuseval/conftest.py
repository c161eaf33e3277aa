"""The two real projects of the project-level tests, downloaded and prepared once per run.

test_obfuseval_project.py (judging answers) and test_obfuseval_project_cli.py (the command
line) ask about the same prepared projects. Preparing one (coverage, three baseline runs,
the crossing check, all sandboxed pytest runs of the real project) is the expensive part,
so it happens once per test run: the first xdist worker that needs a project prepares it
under a file lock in the run's shared temporary folder, the others read it back. Nothing
here is written after preparation; the tests work on copies (``evaluate`` copies the
pristine tree) and check that the user's sdist and checkout never change.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pickle
import subprocess
import sys
import tarfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from beyondpass.execution import Sandboxes
from beyondpass.methods.obfuseval.project.runner import Prepared, prepare
from beyondpass.methods.obfuseval.project.spec import load_project
from beyondpass.methods.obfuseval.project.workspace import tree_digest
from obfuseval_projects import FLAKY_TEST, NO_PLUGINS, PROJECTS, sha
from shared_data import require


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (one xdist worker at a time)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def _project_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shared by the xdist workers of this run (this process's own without xdist)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = tmp_path_factory.getbasetemp().parent / "obfuseval-projects"
        root.mkdir(exist_ok=True)
        return root
    return tmp_path_factory.mktemp("obfuseval-projects")


@pytest.fixture(scope="session")
def sdists(_project_root: Path) -> dict[str, Path]:
    """The two sdists, downloaded from PyPI (a failed download fails the test under CI)."""
    folder = _project_root / "sdists"
    pins = [f"{name}=={version}" for name, version in PROJECTS.items()]
    with _locked(_project_root / "sdists.lock"):
        found = {name: next(folder.glob(f"{name}-*.tar.gz"), None) for name in PROJECTS}
        if None in found.values():
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-binary",
                    ":all:",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "-q",
                    "-d",
                    str(folder),
                    *pins,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            found = {name: next(folder.glob(f"{name}-*.tar.gz"), None) for name in PROJECTS}
            if done.returncode != 0 or None in found.values():
                message = f"pip download of {pins} failed: {done.stderr.strip()[-300:]}"
                if os.environ.get("CI") == "true":
                    pytest.fail(message)
                pytest.skip(message)
    return {name: path for name, path in found.items() if path is not None}


class _PreparedProjects(Mapping[str, Prepared]):
    """Each project prepared the first time a test asks for it, by one worker of the run."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._loaded: dict[str, Prepared] = {}
        #: a preparation that failed fails every later test of this worker the same way
        #: (as a failed module fixture did), without preparing again
        self._failed: dict[str, BaseException] = {}

    def __getitem__(self, name: str) -> Prepared:
        if name not in PROJECTS:
            raise KeyError(name)
        if name in self._failed:
            raise self._failed[name]
        if name not in self._loaded:
            kept = self.base / f"prepared-{name}.pickle"
            try:
                with _locked(self.base / f"prepared-{name}.lock"):
                    if not kept.is_file():
                        spec = load_project(self.base / f"{name}.toml")
                        prepared = prepare(spec, self.base / f"scratch-{name}", Sandboxes())
                        kept.write_bytes(pickle.dumps(prepared))
            except Exception as exc:
                self._failed[name] = exc
                raise
            self._loaded[name] = pickle.loads(kept.read_bytes())
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(PROJECTS)

    def __len__(self) -> int:
        return len(PROJECTS)


@pytest.fixture(scope="session")
def projects(sdists: dict[str, Path], _project_root: Path) -> dict[str, Any]:
    """Both projects described and prepared: inflection from its sdist, cachetools from a
    checkout (the unpacked sdist plus one flaky test). ``before`` holds the sdist's and
    the checkout's digests from before any preparation."""
    base = _project_root / "projects"
    with _locked(_project_root / "projects.lock"):
        if not (base / "before.json").is_file():
            base.mkdir(exist_ok=True)
            (base / "inflection.toml").write_text(
                f'name = "inflection"\n[source]\nsdist = "{sdists["inflection"]}"\n'
                "[test]\ntimeout_s = 120\n"
                + NO_PLUGINS
                + '[select]\npaths = ["inflection/__init__.py"]\n'
                "max_functions = 3\n"
            )
            with tarfile.open(sdists["cachetools"]) as archive:
                archive.extractall(base / "unpacked", filter="data")
            checkout = next((base / "unpacked").iterdir())
            (checkout / "tests" / "test_zz_flaky.py").write_text(FLAKY_TEST)
            (base / "cachetools.toml").write_text(
                f'name = "cachetools"\n[source]\ncheckout = "{checkout}"\n'
                '[build]\npythonpath = ["src"]\n'
                "[test]\ntimeout_s = 120\n"
                + NO_PLUGINS
                + '[select]\npaths = ["src/cachetools/*.py"]\n'
                'functions = ["cachetools.keys.hashkey", "cachetools.LFUCache.popitem", '
                '"cachetools.Cache.pop"]\n'
                "[descriptions]\n"
                '"cachetools.Cache.pop" = "Remove key and return its value; when key is '
                'absent, return default, or raise KeyError when no default is given."\n'
            )
            before = {"inflection": sha(sdists["inflection"]), "cachetools": tree_digest(checkout)}
            (base / "before.json").write_text(
                json.dumps({"before": before, "checkout": str(checkout)})
            )
    kept = json.loads((base / "before.json").read_text())
    return {
        "base": base,
        "prepared": _PreparedProjects(base),
        "before": kept["before"],
        "checkout": Path(kept["checkout"]),
    }


@pytest.fixture(scope="module")
def published_root(data_dir: Path) -> Path:
    """The libgit2 part of ObfusEval's published files (the shared data directory's)."""
    found = data_dir / "obfuseval-c" / "seed"
    require(found / "experimental data" / "4.libgit", "ObfusEval's published libgit2 files")
    return found
