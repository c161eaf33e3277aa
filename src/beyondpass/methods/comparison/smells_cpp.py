"""Code smells and likely bugs of C++ answers: cppcheck and clang-tidy (both from Debian).

- cppcheck ``--enable=all --xml``, one process per file (its ``unusedFunction`` check is
  whole-program: answers analysed together would hide each other's unused functions).
  Messages about the analysis rather than the code (a system header not found, ...) are
  dropped. Its levels map onto ``smells.SEVERITIES``: error -> error, warning and
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

Rules are named ``cppcheck:<id>`` and ``clang-tidy:<check>``.
"""

from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from beyondpass.methods.comparison.smells import Finding, require, run_analyser

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


def cppcheck_findings(path: Path, timeout_s: float) -> list[Finding]:
    """cppcheck's findings for one file."""
    exe = require("cppcheck", "cppcheck")
    cmd = [
        exe,
        "--enable=all",
        "--inconclusive",
        "--xml",
        "--quiet",
        "--language=c++",
        "--std=c++17",
        *(f"--suppress={i}" for i in sorted(CPPCHECK_NOT_ABOUT_CODE)),
        path.name,
    ]
    proc = run_analyser(cmd, timeout_s, path.parent)
    try:
        root = ET.fromstring(proc.stderr)
    except ET.ParseError:
        raise RuntimeError(f"cppcheck failed: {proc.stderr.strip()[:200]}") from None
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
    exe = require("clang-tidy", "clang-tidy")
    config = f"{{Checks: '{CLANG_TIDY_CHECKS}', HeaderFilterRegex: '', WarningsAsErrors: ''}}"
    cmd = [exe, "--quiet", f"--config={config}", *(p.name for p in paths), "--", "-std=c++17"]
    proc = run_analyser(cmd, timeout_s, paths[0].parent)
    out: dict[str, list[Finding]] = {p.name: [] for p in paths}
    for line in proc.stdout.splitlines():
        m = _TIDY_LINE.match(line)
        name = Path(m["file"]).name if m else ""
        if m and name in out:
            check = m["checks"].split(",")[0]
            out[name].append(Finding(f"clang-tidy:{check}", clang_tidy_level(check)))
    if proc.returncode != 0 and not any(out.values()):
        raise RuntimeError(f"clang-tidy failed: {(proc.stderr or proc.stdout).strip()[:200]}")
    return out


def cpp_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """Both analysers' findings, by file name. Each file is analysed on its own (clang-tidy
    spends its time parsing the headers a file includes), the files in parallel, one
    process per core."""

    def one(path: Path) -> list[Finding]:
        tidy = clang_tidy_findings([path], timeout_s)[path.name]
        return cppcheck_findings(path, timeout_s) + tidy

    require("cppcheck", "cppcheck")  # a missing analyser: one error, before any work
    require("clang-tidy", "clang-tidy")
    with ThreadPoolExecutor(max_workers=max(1, min(len(paths), os.cpu_count() or 1))) as pool:
        return dict(zip((p.name for p in paths), pool.map(one, paths), strict=True))


def versions() -> dict[str, str]:
    """Versions of cppcheck and clang-tidy (the first line of ``--version`` with a number)."""
    out = {}
    for tool, package in (("cppcheck", "cppcheck"), ("clang-tidy", "clang-tidy")):
        exe = require(tool, package)
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
        lines = [ln.strip() for ln in proc.stdout.splitlines() if re.search(r"\d+\.\d+", ln)]
        out[tool] = lines[0] if lines else "unknown"
    return out
