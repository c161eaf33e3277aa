"""The open analysers behind the static oracle: bandit, pylint, cppcheck, and gcc/g++.

Each runs on files in a private scratch directory and returns the rule ids it reports per
file (messages are not kept: a hostile program's ``#include "/etc/..."`` must not carry
file contents into results). The processes are :mod:`beyondpass.analysers`' (limits,
versions, arguments, one-line errors); this module keeps the oracle's concern: which
checks run and what they report. cppcheck and the compiler run confined (the one sandbox,
at the strongest level that works here; with bubblewrap: read-only ``/usr``, the scratch
directory, no network, cleared environment);
bandit and pylint only parse the program (``ast``/astroid), they never run it. A missing
analyser raises :class:`AnalyserMissing` naming what to install — never a pass.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from beyondpass.analysers import (
    Analyser,
    AnalyserFailed,
    AnalyserMissing,
    confinement,
    lint,
    lint_record,
    pylintrc,
    require,
    run_process,
    version,
)
from beyondpass.analysers.process import CLEAN_ENV

__all__ = ["AnalyserMissing", "confinement"]

TIMEOUT_S = 300
PURPOSE = "the static oracle"
#: cppcheck checks the stand-ins use (bounds, null, memory, style for pointerSize)
CPPCHECK_ENABLE = "warning,style,portability"
#: fixed C dialect so a compiler upgrade does not change verdicts silently
C_STD = {"c": "-std=gnu17", "c++": "-std=gnu++17"}
BANDIT_INSTALL = "pip install 'beyondpass[nofuneval]' (bandit)"


def rule_file() -> Path:
    return Path(str(files("beyondpass.methods.nofuneval") / "data" / "cppcheck-oracle-rules.xml"))


_PYLINT_PRAGMA = re.compile(r"(#\s*)pylint(\s*:)")
Findings = dict[str, set[str]]  # file name (relative to workdir) -> rule ids


def _bandit() -> Analyser:
    """bandit on every severity and confidence; ``# nosec`` comments ignored (a program
    must not switch its own checks off)."""
    return Analyser(
        "bandit",
        ("-q", "--ignore-nosec", "-f", "json", "--"),
        timeout_s=TIMEOUT_S,
        clean_env=True,
        purpose=PURPOSE,
        install=BANDIT_INSTALL,
    )


def _cppcheck(cpp: bool) -> Analyser:
    """cppcheck's own checks plus beyondpass's rule file (copied beside the programs)."""
    args = (
        "-q", f"--enable={CPPCHECK_ENABLE}", "--inconclusive",
        f"--language={'c++' if cpp else 'c'}", "--rule-file=bp-rules.xml",
        "--template=@@{file}\t{id}",
    )  # fmt: skip
    return Analyser(
        "cppcheck", args, timeout_s=TIMEOUT_S, confine=True, clean_env=True, purpose=PURPOSE
    )


def oracle_pylintrc(rules: Sequence[str]) -> str:
    """Only ``rules`` enabled; no configuration file of the programs' is read. Implicit
    string concatenation counts across line breaks too, as in CodeQL's query (pylint's
    default looks within one line only)."""
    comment = "beyondpass static oracle: only the stand-ins' messages."
    return pylintrc(("all",), rules, comment) + "\n[STRING]\ncheck-str-concat-over-line-jumps=yes\n"


def bandit(workdir: Path, names: Sequence[str]) -> Findings:
    """bandit's test ids (``B608``...) per file; all severities and confidences."""
    analyser = _bandit()
    analyser.command()
    if not names:
        return {}
    proc = analyser.run(names, workdir)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise analyser.failed(proc) from None
    out: Findings = {n: set() for n in names}
    for r in report.get("results", []):
        out.setdefault(_rel(r["filename"]), set()).add(str(r["test_id"]))
    return out


def pylint(workdir: Path, names: Sequence[str], rules: Sequence[str]) -> Findings:
    """pylint's symbolic message names per file, only ``rules`` enabled.

    ``# pylint: disable=...`` pragmas are neutralised first (a program must not switch its
    own checks off).
    """
    require("pylint", PURPOSE)
    if not names:
        return {}
    sources = {}
    for name in names:
        text = (workdir / name).read_text("utf-8", errors="replace")
        sources[Path(name).stem] = _PYLINT_PRAGMA.sub(r"\1pylint_pragma_ignored\2", text)
    results = lint(sources, oracle_pylintrc(rules), timeout_s=TIMEOUT_S)
    out: Findings = {}
    for name in names:
        result = results[Path(name).stem]
        if result.messages is None:
            raise AnalyserFailed(f"pylint failed on {name}: {result.error}")
        out[name] = {m.symbol for m in result.messages}
    return out


_CPPCHECK_LINE = re.compile(r"^@@(?P<file>[^\t]+)\t(?P<id>[A-Za-z0-9_]+)$")


def cppcheck(workdir: Path, names: Sequence[str], cpp: bool = False) -> Findings:
    """cppcheck's own checks plus beyondpass's rule file, ids per file."""
    analyser = _cppcheck(cpp)
    analyser.command()
    if not names:
        return {}
    shutil.copy(rule_file(), workdir / "bp-rules.xml")
    proc = analyser.run(names, workdir)
    if proc.returncode != 0:
        raise analyser.failed(proc)
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
    tool = "g++" if lang == "c++" else "gcc"
    (exe,) = require(tool, PURPOSE)
    if not names:
        return {}
    loop = (
        'for f in "$@"; do "$0" -fsyntax-only -w '
        + C_STD[lang]
        + ' "$f" >/dev/null 2>&1; echo $?; done'
    )
    proc = run_process(
        tool,
        ["/bin/sh", "-c", loop, exe, *names],
        workdir,
        timeout_s=TIMEOUT_S,
        confine=True,
        env=CLEAN_ENV,
    )
    codes = proc.stdout.split()
    if len(codes) != len(names):
        raise AnalyserFailed(f"{exe} did not run on every file: {proc.stderr.strip()[:200]}")
    return {n: c == "0" for n, c in zip(names, codes, strict=True)}


def _rel(name: str) -> str:
    return name[2:] if name.startswith("./") else name


def versions() -> dict[str, str]:
    """Versions of the analysers found here (recorded with every oracle result)."""
    return {tool: version(tool) for tool in ("bandit", "pylint", "cppcheck", "gcc")}


def records() -> dict[str, dict[str, Any]]:
    """How each analyser runs: version, arguments and limits (recorded beside the scores)."""
    return {
        "bandit": _bandit().record(),
        "pylint": lint_record(oracle_pylintrc(["<stand-in messages>"]), timeout_s=TIMEOUT_S),
        "cppcheck": _cppcheck(cpp=False).record(),
    }
