"""Code smells and likely bugs of C++ answers: cppcheck and clang-tidy (both from Debian).

- cppcheck ``--enable=all --xml``, one process per file (its ``unusedFunction`` check is
  whole-program: answers analysed together would hide each other's unused functions).
  Messages about the analysis rather than the code (a system header not found, ...) are
  dropped. Its levels map onto ``findings.SEVERITIES``: error -> error, warning and
  portability -> warning, performance -> refactor, style -> convention, information ->
  info; ``syntaxError`` -> fatal.
- clang-tidy with the checks of ``CLANG_TIDY_CHECKS`` (an inline configuration, so no
  ``.clang-tidy`` file found on the way up from the scratch directory applies), one process
  per file, ``-std=c++17`` as the compiler flags; files run in parallel, one per core.
  Every check reports "warning", so the level is the check's family:
  clang-diagnostic-error (the code does not compile) -> fatal, clang-analyzer-*
  (path-sensitive bug finding) -> error, bugprone-*, other compiler diagnostics and
  narrowing conversions -> warning, performance-*, modernize-*, misc-* -> refactor,
  readability-* -> convention.

Rules are named ``cppcheck:<id>`` and ``clang-tidy:<check>``. Both run through
:mod:`beyondpass.analysers` (limits, versions and arguments recorded).
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from beyondpass.analysers import Analyser
from beyondpass.methods.psb2.findings import Finding

PURPOSE = "code smells of C++"

#: the families the seed's case study reported (magic numbers, narrowing conversions, copies
#: instead of references, braces, else after return, emptiness checks, range-for, ...) plus
#: bug finding; minus checks that flag every short competition-style program for nothing
#: (identifier length, swappable parameters, trailing return types, literal suffix case)
CLANG_TIDY_CHECKS = ",".join(
    (
        "-*",
        "clang-analyzer-*",
        "bugprone-*",
        "-bugprone-easily-swappable-parameters",
        "performance-*",
        "readability-*",
        "-readability-identifier-length",
        "-readability-uppercase-literal-suffix",
        "-readability-function-cognitive-complexity",
        "misc-*",
        "modernize-loop-convert",
        "modernize-use-nullptr",
        "modernize-use-auto",
        "cppcoreguidelines-narrowing-conversions",
    )
)
CPPCHECK_LEVELS = {
    "error": "error",
    "warning": "warning",
    "portability": "warning",
    "performance": "refactor",
    "style": "convention",
    "information": "info",
}
#: cppcheck messages about the analysis, not about the code
CPPCHECK_NOT_ABOUT_CODE = frozenset(
    (
        "missingIncludeSystem",
        "missingInclude",
        "checkersReport",
        "unmatchedSuppression",
        "toomanyconfigs",
    )
)
_TIDY_LINE = re.compile(r"^(?P<file>.+?):\d+:\d+: (?:warning|error): .*\[(?P<checks>[\w.,-]+)\]$")


def clang_tidy_level(check: str) -> str:
    """A clang-tidy check's level on the one scale (module docstring)."""
    if check == "clang-diagnostic-error":
        return "fatal"
    if check.startswith("clang-analyzer-"):
        return "error"
    if check.startswith(("bugprone-", "clang-diagnostic-", "cppcoreguidelines-narrowing")):
        return "warning"
    if check.startswith(("performance-", "modernize-", "misc-")):
        return "refactor"
    return "convention"


def cppcheck(timeout_s: float) -> Analyser:
    """cppcheck with every check, XML on stderr, messages about the analysis suppressed."""
    suppress = tuple(f"--suppress={i}" for i in sorted(CPPCHECK_NOT_ABOUT_CODE))
    args = ("--enable=all", "--inconclusive", "--xml", "--quiet", "--language=c++")
    return Analyser(
        "cppcheck", (*args, "--std=c++17", *suppress), timeout_s=timeout_s, purpose=PURPOSE
    )


def clang_tidy(timeout_s: float) -> Analyser:
    """clang-tidy with ``CLANG_TIDY_CHECKS`` inline (no ``.clang-tidy`` file applies)."""
    config = f"{{Checks: '{CLANG_TIDY_CHECKS}', HeaderFilterRegex: '', WarningsAsErrors: ''}}"
    return Analyser(
        "clang-tidy",
        ("--quiet", f"--config={config}"),
        after_files=("--", "-std=c++17"),
        timeout_s=timeout_s,
        purpose=PURPOSE,
    )


def cppcheck_findings(path: Path, timeout_s: float) -> list[Finding]:
    """cppcheck's findings for one file."""
    analyser = cppcheck(timeout_s)
    proc = analyser.run([path.name], path.parent)
    try:
        root = ET.fromstring(proc.stderr)
    except ET.ParseError:
        raise analyser.failed(proc) from None
    out = []
    for err in root.iter("error"):
        rule = err.get("id", "")
        if rule in CPPCHECK_NOT_ABOUT_CODE:
            continue
        level = "fatal" if rule == "syntaxError" else CPPCHECK_LEVELS.get(err.get("severity", ""))
        out.append(Finding(f"cppcheck:{rule}", level or "info"))
    return out


def clang_tidy_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """clang-tidy's findings, by file name, for files of one directory (one process)."""
    analyser = clang_tidy(timeout_s)
    proc = analyser.run([p.name for p in paths], paths[0].parent)
    out: dict[str, list[Finding]] = {p.name: [] for p in paths}
    for line in proc.stdout.splitlines():
        m = _TIDY_LINE.match(line)
        name = Path(m["file"]).name if m else ""
        if m and name in out:
            check = m["checks"].split(",")[0]
            out[name].append(Finding(f"clang-tidy:{check}", clang_tidy_level(check)))
    if proc.returncode != 0 and not any(out.values()):
        raise analyser.failed(proc)
    return out


def cpp_findings(
    paths: Sequence[Path], timeout_s: float, workers: int | None = None
) -> dict[str, list[Finding]]:
    """Both analysers' findings, by file name. Each file is analysed on its own (clang-tidy
    spends its time parsing the headers a file includes), the files in parallel, one
    process per core (or ``workers`` processes)."""

    def one(path: Path) -> list[Finding]:
        tidy = clang_tidy_findings([path], timeout_s)[path.name]
        return cppcheck_findings(path, timeout_s) + tidy

    cppcheck(timeout_s).command()  # a missing analyser: one error, before any work
    clang_tidy(timeout_s).command()
    cores = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=max(1, min(len(paths), cores))) as pool:
        return dict(zip((p.name for p in paths), pool.map(one, paths), strict=True))


def records(timeout_s: float) -> dict[str, dict[str, Any]]:
    """The recorded runs of both analysers (version, arguments, limits)."""
    return {"cppcheck": cppcheck(timeout_s).record(), "clang-tidy": clang_tidy(timeout_s).record()}
