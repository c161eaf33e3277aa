"""A project description: where the source is, how to build it, how to test it.

One TOML file per project (docs/obfuseval.md, "Project-level mode"). The format fits a
Python project (install command, pytest) and a C project (a build command, a build command
with coverage, a test command that takes test names, and the pattern of one test's result
line), as the seed's redis and libgit2. Python projects run in ``project``, C projects in
``cproject``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.tomlfile import read_toml

LANGUAGES = ("python", "c")
#: the seed's rule: a test counts as passing only when it passes every one of its runs
MIN_REPEATS = 5
_KEYS = {
    "": {"name", "language", "source", "build", "test", "select", "descriptions"},
    "source": {"checkout", "sdist"},
    "build": {"install", "pythonpath", "coverage"},
    "test": {"command", "repeats", "timeout_s", "result", "passed", "select"},
    "select": {"paths", "functions", "max_functions", "min_lines"},
}


@dataclass(frozen=True)
class ProjectSpec:
    """A parsed, checked project description; paths are absolute."""

    name: str
    language: str
    file: Path  # the description itself
    checkout: Path | None = None  # a source directory, read only
    sdist: Path | None = None  # or a source archive (.tar.gz / .zip), unpacked into scratch
    install: str = ""  # run in the sandbox in each copy before its tests (C: the build)
    pythonpath: tuple[str, ...] = (".",)  # import roots, relative to the project root
    test_command: tuple[str, ...] = ("python", "-m", "pytest")
    repeats: int = MIN_REPEATS
    timeout_s: float = 120.0  # wall clock of one test run
    paths: tuple[str, ...] = ()  # source files (globs, relative) whose functions are candidates
    functions: tuple[str, ...] = ()  # only these qualified names (``module.func``), if given
    max_functions: int = 20
    min_lines: int = 2  # body statements' lines, docstring excluded
    descriptions: dict[str, str] = field(default_factory=dict)  # qualified name -> text
    # C projects: the build command with coverage instrumentation (gcov), the pattern of one
    # test's result line (named groups ``name`` and ``status``) and the passing status
    coverage_build: str = ""
    result_pattern: str = ""
    passed_status: str = "ok"
    # which tests judge a function: those covering it ("coverage"), or every run is the
    # whole suite ("whole-suite": the seed's ``make test`` / ``ctest``, no coverage build)
    test_select: str = "coverage"

    @property
    def whole_suite(self) -> bool:
        return self.test_select == "whole-suite"

    def as_dict(self) -> dict[str, Any]:
        """For the run record."""
        return {
            "name": self.name,
            "language": self.language,
            "file": str(self.file),
            "checkout": str(self.checkout) if self.checkout else None,
            "sdist": str(self.sdist) if self.sdist else None,
            "install": self.install,
            "pythonpath": list(self.pythonpath),
            "test_command": list(self.test_command),
            "coverage_build": self.coverage_build,
            "result_pattern": self.result_pattern,
            "passed_status": self.passed_status,
            "test_select": self.test_select,
            "repeats": self.repeats,
            "timeout_s": self.timeout_s,
            "paths": list(self.paths),
            "functions": list(self.functions),
            "max_functions": self.max_functions,
            "min_lines": self.min_lines,
        }


def _table(raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: [{key}] must be a table")
    unknown = sorted(set(value) - _KEYS[key]) if key in _KEYS else []
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} in [{key}] — known: "
            + ", ".join(sorted(_KEYS[key]))
        )
    return value


def _strings(value: Any, what: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: {what} must be a list of non-empty strings")
    return tuple(value)


def _positive(value: Any, what: str, where: str, minimum: float = 1) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise ConfigError(f"{where}: {what} must be a number >= {minimum}, got {value!r}")
    return value


def _source(source: dict[str, Any], base: Path, where: str) -> tuple[Path | None, Path | None]:
    """``[source]``: exactly one of a checkout directory or an sdist archive."""
    if ("checkout" in source) == ("sdist" in source):
        raise ConfigError(f"{where}: [source] needs exactly one of checkout = DIR or sdist = FILE")
    if "checkout" in source:
        checkout = (base / str(source["checkout"])).resolve()
        if not checkout.is_dir():
            raise ConfigError(f"{where}: checkout {checkout} is not a directory")
        return checkout, None
    sdist = (base / str(source["sdist"])).resolve()
    if not sdist.exists():
        raise ConfigError(f"{where}: sdist {sdist} does not exist")
    if not sdist.is_file() or not sdist.name.endswith((".tar.gz", ".tgz", ".zip")):
        raise ConfigError(f"{where}: sdist {sdist} is not a .tar.gz or .zip file")
    return None, sdist


def _test_command(test: dict[str, Any], language: str, where: str) -> tuple[str, ...]:
    """``[test] command`` as an argv; a Python project's must run pytest."""
    command = test.get("command", "python -m pytest")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: [test] command must be a command string")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise ConfigError(f"{where}: [test] command does not parse ({exc})") from None
    if language == "python" and "pytest" not in " ".join(argv):
        raise ConfigError(f"{where}: [test] command of a Python project must run pytest")
    return argv


def load_project(path: str | Path) -> ProjectSpec:
    """Read and check a project description; every problem is one ConfigError line."""
    file = Path(path)
    where = str(file)
    raw = read_toml(file, "project description")
    unknown = sorted(set(raw) - _KEYS[""])
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} — known: {', '.join(sorted(_KEYS['']))}"
        )
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f'{where}: give the project a name (name = "...")')
    language = raw.get("language", "python")
    if language not in LANGUAGES:
        raise ConfigError(f"{where}: language {language!r} unknown — choose {', '.join(LANGUAGES)}")
    checkout, sdist = _source(_table(raw, "source", where), file.resolve().parent, where)
    build = _table(raw, "build", where)
    install = build.get("install", "")
    if not isinstance(install, str):
        raise ConfigError(f"{where}: [build] install must be a command string")
    pythonpath = _strings(build.get("pythonpath", ["."]), "[build] pythonpath", where)
    if any(Path(p).is_absolute() or ".." in Path(p).parts for p in pythonpath):
        raise ConfigError(f"{where}: [build] pythonpath entries must be inside the project")
    test = _table(raw, "test", where)
    argv = _test_command(test, language, where)
    repeats = _positive(test.get("repeats", MIN_REPEATS), "[test] repeats", where, MIN_REPEATS)
    timeout = _positive(test.get("timeout_s", 120.0), "[test] timeout_s", where)
    select = _table(raw, "select", where)
    paths = _strings(select.get("paths", []), "[select] paths", where)
    if not paths:
        raise ConfigError(
            f"{where}: [select] paths must name the source files to draw functions from"
        )
    functions = (
        _strings(select.get("functions", []), "[select] functions", where)
        if "functions" in select
        else ()
    )
    coverage_build, result, passed, chosen = _c_parts(build, test, language, install, where)
    descriptions = raw.get("descriptions", {})
    if not isinstance(descriptions, dict) or not all(
        isinstance(v, str) for v in descriptions.values()
    ):
        raise ConfigError(f"{where}: [descriptions] maps qualified names to text")
    return ProjectSpec(
        name=name.strip(),
        language=language,
        file=file.resolve(),
        checkout=checkout,
        sdist=sdist,
        install=install.strip(),
        pythonpath=pythonpath,
        test_command=argv,
        repeats=int(repeats),
        timeout_s=float(timeout),
        paths=paths,
        functions=functions,
        max_functions=int(
            _positive(select.get("max_functions", 20), "[select] max_functions", where)
        ),
        min_lines=int(_positive(select.get("min_lines", 2), "[select] min_lines", where)),
        descriptions=dict(descriptions),
        coverage_build=coverage_build,
        result_pattern=result,
        passed_status=passed,
        test_select=chosen,
    )


def _c_parts(
    build: dict[str, Any], test: dict[str, Any], language: str, install: str, where: str
) -> tuple[str, str, str, str]:
    """A C project's coverage build, result pattern, passing status and test selection
    (checked)."""
    keys = [k for k in ("coverage",) if k in build]
    keys += [k for k in ("result", "passed", "select") if k in test]
    if language != "c":
        if keys:
            raise ConfigError(f'{where}: {keys[0]!r} applies to C projects (language = "c")')
        return "", "", "ok", "coverage"
    chosen = test.get("select", "coverage")
    if chosen not in ("coverage", "whole-suite"):
        raise ConfigError(f"{where}: [test] select is 'coverage' or 'whole-suite', not {chosen!r}")
    values = {
        "[build] install": install,
        "[build] coverage": build.get("coverage", "") if chosen == "coverage" else "-",
        "[test] result": test.get("result", ""),
    }
    for name, value in values.items():
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: a C project needs {name} (a non-empty string)")
    result = values["[test] result"]
    try:
        groups = set(re.compile(result, re.MULTILINE).groupindex)
    except re.error as exc:
        raise ConfigError(f"{where}: [test] result is not a regular expression ({exc})") from None
    if not {"name", "status"} <= groups:
        raise ConfigError(
            f"{where}: [test] result needs the named groups (?P<name>...) and (?P<status>...)"
        )
    passed = test.get("passed", "ok")
    if not isinstance(passed, str) or not passed:
        raise ConfigError(f"{where}: [test] passed must be the status of a passing test")
    return str(build.get("coverage", "")).strip(), result, passed, chosen
