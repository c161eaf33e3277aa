"""The open analysers behind the static oracle: bandit, pylint, cppcheck, and gcc/g++.

Each runs on files in a private scratch directory and returns the rule ids it reports per
file (messages are not kept: a hostile program's ``#include "/etc/..."`` must not carry
file contents into results). cppcheck and the compiler run under bubblewrap when it works
here (read-only ``/usr``, the scratch directory, no network, cleared environment); bandit
and pylint only parse the program (``ast``/astroid), they never run it. A missing analyser
raises :class:`AnalyserMissing` naming what to install — never a pass.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from beyondpass.errors import BeyondpassError

TIMEOUT_S = 300
#: cppcheck checks the stand-ins use (bounds, null, memory, style for pointerSize)
CPPCHECK_ENABLE = "warning,style,portability"
#: fixed C dialect so a compiler upgrade does not change verdicts silently
C_STD = {"c": "-std=gnu17", "c++": "-std=gnu++17"}
INSTALL = {
    "bandit": "pip install 'beyondpass[nofuneval]' (bandit)",
    "pylint": "pip install beyondpass (pylint)",
    "cppcheck": "apt-get install cppcheck",
    "gcc": "apt-get install gcc",
    "g++": "apt-get install g++",
}


class AnalyserMissing(BeyondpassError):
    """An analyser the oracle needs is not installed."""


def require(tool: str) -> str:
    """The tool's executable (a module name for bandit/pylint), or a one-line error."""
    if tool in ("bandit", "pylint"):
        if importlib.util.find_spec(tool) is None:
            raise AnalyserMissing(
                f"the static oracle needs {tool}, which is not installed: {INSTALL[tool]}"
            )
        return tool
    path = shutil.which(tool)
    if path is None:
        raise AnalyserMissing(
            f"the static oracle needs {tool}, which is not on PATH: {INSTALL[tool]}"
        )
    return path


def rule_file() -> Path:
    return Path(str(files("beyondpass.methods.nofuneval") / "data" / "cppcheck-oracle-rules.xml"))


@functools.cache
def _bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    try:
        probe = subprocess.run(
            [*_bwrap_prefix(Path("/tmp")), "true"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def _bwrap_prefix(workdir: Path) -> list[str]:
    cmd = ["bwrap", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            cmd += ["--symlink", str(p.readlink()), str(p)]
        elif p.is_dir():
            cmd += ["--ro-bind", str(p), str(p)]
    if Path("/etc/alternatives").is_dir():
        cmd += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    return [
        *cmd,
        "--bind", str(workdir), "/work",
        "--chdir", "/work",
        "--unshare-all", "--uid", "65534", "--gid", "65534", "--die-with-parent",
        "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
        "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
    ]  # fmt: skip


def confinement() -> str:
    return "bwrap" if _bwrap_works() else "none"


def _run(cmd: list[str], workdir: Path, confine: bool) -> subprocess.CompletedProcess[str]:
    tool = " ".join(Path(cmd[0]).name if i == 0 else a for i, a in enumerate(cmd[:3]))
    if confine and _bwrap_works():
        cmd = [*_bwrap_prefix(workdir), *cmd]
    try:
        return subprocess.run(
            cmd,
            cwd=workdir,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TIMEOUT_S,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        )
    except subprocess.TimeoutExpired:
        raise BeyondpassError(
            f"static oracle: {tool} did not finish within {TIMEOUT_S} s"
        ) from None


_PYLINT_PRAGMA = re.compile(r"(#\s*)pylint(\s*:)")
Findings = dict[str, set[str]]  # file name (relative to workdir) -> rule ids


def bandit(workdir: Path, names: Sequence[str]) -> Findings:
    """bandit's test ids (``B608``...) per file; all severities and confidences.

    ``# nosec`` comments are ignored: a program must not switch its own checks off.
    """
    require("bandit")
    if not names:
        return {}
    proc = _run(
        [sys.executable, "-m", "bandit", "-q", "--ignore-nosec", "-f", "json", "--", *names],
        workdir,
        False,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise BeyondpassError(f"bandit failed: {proc.stderr.strip()[:200]}") from None
    out: Findings = {n: set() for n in names}
    for r in report.get("results", []):
        out.setdefault(_rel(r["filename"]), set()).add(str(r["test_id"]))
    return out


def pylint(workdir: Path, names: Sequence[str], rules: Sequence[str]) -> Findings:
    """pylint's symbolic message names per file, only ``rules`` enabled.

    ``# pylint: disable=...`` pragmas are neutralised first (a program must not switch its
    own checks off) and no configuration file is read.
    """
    require("pylint")
    if not names:
        return {}
    for name in names:
        path = workdir / name
        text = path.read_text("utf-8", errors="replace")
        path.write_text(_PYLINT_PRAGMA.sub(r"\1pylint_pragma_ignored\2", text), "utf-8")
    (workdir / "empty-pylintrc").write_text("", "utf-8")
    proc = _run(
        [
            sys.executable, "-m", "pylint", "--rcfile=empty-pylintrc", "--disable=all",
            f"--enable={','.join(rules)}",
            "--output-format=json", "--score=n", "--persistent=n", "--", *names,
        ],
        workdir,
        False,
    )  # fmt: skip
    try:
        report = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        raise BeyondpassError(f"pylint failed: {proc.stderr.strip()[:200]}") from None
    out: Findings = {n: set() for n in names}
    for r in report:
        out.setdefault(_rel(r["path"]), set()).add(str(r["symbol"]))
    return out


_CPPCHECK_LINE = re.compile(r"^@@(?P<file>[^\t]+)\t(?P<id>[A-Za-z0-9_]+)$")


def cppcheck(workdir: Path, names: Sequence[str], cpp: bool = False) -> Findings:
    """cppcheck's own checks plus beyondpass's rule file, ids per file."""
    exe = require("cppcheck")
    if not names:
        return {}
    shutil.copy(rule_file(), workdir / "bp-rules.xml")
    proc = _run(
        [
            exe, "-q", f"--enable={CPPCHECK_ENABLE}", "--inconclusive",
            f"--language={'c++' if cpp else 'c'}", "--rule-file=bp-rules.xml",
            "--template=@@{file}\t{id}", *names,
        ],
        workdir,
        True,
    )  # fmt: skip
    if proc.returncode != 0:
        raise BeyondpassError(f"cppcheck failed: {proc.stderr.strip()[:200]}")
    out: Findings = {n: set() for n in names}
    for line in proc.stderr.splitlines():
        m = _CPPCHECK_LINE.match(line)
        if m:
            out.setdefault(_rel(m["file"]), set()).add(m["id"])
    return out


def compiles(workdir: Path, names: Sequence[str], lang: str) -> dict[str, bool]:
    """Whether ``gcc``/``g++ -fsyntax-only`` accepts each file (fixed dialect, warnings off).

    One confined shell runs the compiler on every file in turn (one sandbox start, not one
    per file) and prints each exit status.
    """
    exe = require("g++" if lang == "c++" else "gcc")
    if not names:
        return {}
    loop = (
        'for f in "$@"; do "$0" -fsyntax-only -w '
        + C_STD[lang]
        + ' "$f" >/dev/null 2>&1; echo $?; done'
    )
    proc = _run(["/bin/sh", "-c", loop, exe, *names], workdir, True)
    codes = proc.stdout.split()
    if len(codes) != len(names):
        raise BeyondpassError(f"{exe} did not run on every file: {proc.stderr.strip()[:200]}")
    return {n: c == "0" for n, c in zip(names, codes, strict=True)}


def _rel(name: str) -> str:
    return name[2:] if name.startswith("./") else name


@functools.cache
def versions() -> dict[str, str]:
    """Versions of the analysers found here (recorded with every oracle result)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str] = {}
    for tool in ("bandit", "pylint"):
        try:
            out[tool] = version(tool)
        except PackageNotFoundError:
            out[tool] = "not installed"
    for tool, cmd in (
        ("cppcheck", ["cppcheck", "--version"]),
        ("gcc", ["gcc", "--version"]),
    ):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            first = (proc.stdout or proc.stderr).strip().splitlines()
            out[tool] = first[0] if first else "unknown"
        except (OSError, subprocess.SubprocessError):
            out[tool] = "not installed"
    return out
