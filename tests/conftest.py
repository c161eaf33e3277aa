"""Make test helper modules (fake_endpoints) importable from the tests."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))


# -- shared environment and fixtures for the CLI and data tests ----------------------------
import atexit  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable, Mapping, Sequence  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from shared_data import require  # noqa: E402

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]

# Tests never download anything and never touch the user's cache: every process started
# from here (including CLI subprocesses, which inherit os.environ) sees these settings.
os.environ["BEYONDPASS_OFFLINE"] = "1"
_SESSION_CACHE = tempfile.mkdtemp(prefix="beyondpass-test-cache-")
os.environ["BEYONDPASS_CACHE_DIR"] = _SESSION_CACHE
atexit.register(shutil.rmtree, _SESSION_CACHE, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest test files first, for the workers (tests/scheduling.py)."""
    from scheduling import longest_files_first

    longest_files_first(items, config.rootpath)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Files to workers as ``--dist loadfile`` hands them out, but the files that share the
    session's Ray instance as one unit (tests/scheduling.py)."""
    if config.getoption("dist") != "loadfile":
        return None
    from scheduling import make_scheduler

    return make_scheduler(config, log)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use. Much of the suite
    waits on processes it starts (sandboxes, compilers, JVMs, model servers); the extra
    worker fills those waits (docs/performance.md has the measurement)."""
    return len(os.sched_getaffinity(0)) + 1


def _data_path() -> pathlib.Path:
    env = os.environ.get("BEYONDPASS_DATA")
    return pathlib.Path(env) if env else REPO_ROOT.parent / "shared" / "data"


# CLI subprocesses (which inherit os.environ) read the benchmark data from the same place as
# the tests themselves, whether or not the caller set BEYONDPASS_DATA (CI does not).
if "BEYONDPASS_DATA" not in os.environ and _data_path().is_dir():
    os.environ["BEYONDPASS_DATA"] = str(_data_path())


@pytest.fixture(scope="session")
def data_dir() -> pathlib.Path:
    """The benchmark data directory ($BEYONDPASS_DATA, else ../shared/data).

    Missing data fails the test on CI (CI=true) and skips it elsewhere.
    """
    path = _data_path()
    require(path / "humaneval" / "HumanEval.jsonl.gz", "benchmark data")
    return path


CliRunner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def run_cli() -> CliRunner:
    """Run ``python -m beyondpass ARGS`` as a real subprocess and capture its output.

    ``env`` adds or overrides variables; ``unset`` removes them (e.g. BEYONDPASS_DATA);
    ``pythonpath_first`` goes ahead of the inherited PYTHONPATH (which may be what points
    at the code under test), e.g. a ``sitecustomize`` that hides a module.
    """

    def run(
        args: Sequence[str | os.PathLike[str]],
        *,
        cwd: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        unset: Sequence[str] = (),
        timeout: float = 300,
        pythonpath_first: Sequence[str | os.PathLike[str]] = (),
    ) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, **(env or {})}
        if pythonpath_first:
            inherited = [full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else []
            full_env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath_first), *inherited])
        for name in unset:
            full_env.pop(name, None)
        return subprocess.run(
            [sys.executable, "-m", "beyondpass", *map(str, args)],
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
        )

    return run


@pytest.fixture
def fresh_registry() -> Any:
    """The registry as discovered; whatever a test registers is forgotten after it."""
    from beyondpass import registry

    registry.reset()
    yield registry
    registry.reset()


#: Ray as the scale-out tests start it: 2 CPUs (the machine's), no dashboard.
RAY_INIT = {"num_cpus": 2, "include_dashboard": False}


@pytest.fixture(scope="session")
def ray_pool() -> Any:
    """One local Ray instance per test process for every batch-pool test (starting Ray
    costs seconds; a second connection in the process reuses the first's instance)."""
    from beyondpass.execution.ray_pool import RayPool

    pool = RayPool(init_options=RAY_INIT)
    yield pool
    pool.close()
