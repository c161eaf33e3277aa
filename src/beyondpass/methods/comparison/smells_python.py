"""ruff's findings on Python answers, beside pylint's (``smells``).

pylint (run with its defaults) is the Python analyser of record; ruff adds the rule
families pylint lacks or keeps in extensions: pyflakes (``F``), pycodestyle's import,
statement and runtime errors (``E4``, ``E7``, ``E9``), flake8-bugbear (``B``),
comprehensions (``C4``), perflint (``PERF``), flake8-return (``RET``), flake8-simplify
(``SIM``) and magic values in comparisons (``PLR2004``, a pylint extension not enabled by
default). Where a selected ruff rule means what a default pylint message means (ruff's
``F401`` and pylint's ``unused-import``), the ruff rule is not run (``PYLINT_EQUIVALENTS``):
the finding is counted once, as pylint's. Matching findings line by line instead would not
work: the two tools report some of them on different lines (``no-else-return`` on the
``if``, ``RET505`` on the ``else``). ruff's own syntax errors are dropped, since pylint
reports the same as ``syntax-error``. Levels on ``smells.SEVERITIES`` follow pylint's
classification of the same kinds of message (``LEVELS``). ruff's ``--isolated`` ignores any
configuration file near the answers; one process per batch; rules are ``ruff:<code>``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.methods.comparison.smells import Finding, run_analyser

SELECT = ("F", "E4", "E7", "E9", "B", "C4", "PERF", "RET", "SIM", "PLR2004")

#: selected ruff rules that mean what a default pylint message means -> that message
PYLINT_EQUIVALENTS = {
    "F401": "unused-import",
    "F403": "wildcard-import",
    "F541": "f-string-without-interpolation",
    "F601": "duplicate-key",
    "F631": "assert-on-tuple",
    "F632": "literal-comparison",
    "F701": "not-in-loop",
    "F702": "not-in-loop",
    "F704": "yield-outside-function",
    "F706": "return-outside-function",
    "F821": "undefined-variable",
    "F841": "unused-variable",
    "E401": "multiple-imports",
    "E402": "wrong-import-position",
    "E701": "multiple-statements",
    "E702": "multiple-statements",
    "E703": "unnecessary-semicolon",
    "E711": "singleton-comparison",
    "E712": "singleton-comparison",
    "E721": "unidiomatic-typecheck",
    "E722": "bare-except",
    "E731": "unnecessary-lambda-assignment",
    "B006": "dangerous-default-value",
    "B007": "unused-variable",
    "B012": "lost-exception",
    "B018": "pointless-statement",
    "B023": "cell-var-from-loop",
    "B033": "duplicate-value",
    "B904": "raise-missing-from",
    "C403": "consider-using-set-comprehension",
    "C404": "consider-using-dict-comprehension",
    "C408": "use-dict-literal",
    "C416": "unnecessary-comprehension",
    "C419": "consider-using-generator",
    "RET502": "inconsistent-return-statements",
    "RET503": "inconsistent-return-statements",
    "RET505": "no-else-return",
    "RET506": "no-else-raise",
    "RET507": "no-else-continue",
    "RET508": "no-else-break",
    "SIM101": "consider-merging-isinstance",
    "SIM103": "simplifiable-if-statement",
    "SIM109": "consider-using-in",
    "SIM115": "consider-using-with",
    "SIM118": "consider-iterating-dictionary",
    "SIM201": "unnecessary-negation",
    "SIM202": "unnecessary-negation",
    "SIM208": "unnecessary-negation",
    "SIM210": "simplifiable-if-expression",
    "SIM211": "simplifiable-if-expression",
}
#: not run either: flags every zip() without ``strict=`` (a style choice, not a smell)
NOISY = ("B905",)
IGNORE = (*PYLINT_EQUIVALENTS, *NOISY)

#: ruff code prefix -> level, longest prefix first; the first that matches decides
LEVELS = (
    ("E9", "fatal"),  # the file could not be read
    ("F82", "error"),  # undefined names
    ("F7", "error"),  # a statement where it cannot stand
    ("F", "warning"),
    ("B", "warning"),
    ("E", "convention"),
    ("C4", "refactor"),
    ("PERF", "refactor"),
    ("RET", "refactor"),
    ("SIM", "refactor"),
    ("PLR", "refactor"),
)


def level(code: str) -> str:
    """A ruff rule's level on ``smells.SEVERITIES``."""
    for prefix, severity in LEVELS:
        if code.startswith(prefix):
            return severity
    raise ValueError(f"ruff rule {code} is outside the selection")


def ruff_command() -> str:
    """The ruff executable of the installed ``ruff`` package (else ``ruff`` on ``PATH``); a
    one-line ``ConfigError`` when there is none (never a count of zero)."""
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        path = shutil.which("ruff")
        if path is None:
            raise ConfigError(
                "code smells of Python need ruff, which is not installed — pip install ruff"
            ) from None
        return path


def ruff_args() -> list[str]:
    """The arguments of every ruff run (recorded in the run's metadata)."""
    return [
        "check",
        "--isolated",
        "--no-cache",
        "--no-fix",
        "--output-format=json",
        "--target-version=py311",
        f"--select={','.join(SELECT)}",
        f"--ignore={','.join(IGNORE)}",
    ]


def ruff_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """ruff's findings for ``paths`` (one process), by file name."""
    out: dict[str, list[Finding]] = {p.name: [] for p in paths}
    if not paths:
        return out
    cmd = [ruff_command(), *ruff_args(), *map(str, paths)]
    proc = run_analyser(cmd, timeout_s, paths[0].parent)
    # exit 0: no findings, 1: findings, 2: ruff itself failed
    if proc.returncode not in (0, 1) or not proc.stdout.strip().startswith("["):
        raise RuntimeError(f"ruff failed: {(proc.stderr or proc.stdout).strip()[:200]}")
    messages: list[dict[str, Any]] = json.loads(proc.stdout)
    for m in messages:
        code = m.get("code")
        if not code or code == "E999" or not re.fullmatch(r"[A-Z]+[0-9]+", str(code)):
            continue  # a syntax error (E999 in older ruff): pylint reports syntax-error
        name = Path(str(m.get("filename", ""))).name
        out.setdefault(name, []).append(Finding(f"ruff:{code}", level(str(code))))
    return out


def versions() -> dict[str, str]:
    """ruff's version (``ruff --version``)."""
    proc = subprocess.run(
        [ruff_command(), "--version"], capture_output=True, text=True, check=False
    )
    return {"ruff": proc.stdout.strip().removeprefix("ruff ") or "unknown"}
