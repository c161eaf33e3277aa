"""Code smells of Python answers: pylint's and ruff's findings.

pylint (run with its defaults, by the shared runner of :mod:`beyondpass.analysers`, all
answers of a batch in one pylint run) is the Python analyser of record; ruff adds the rule
families pylint lacks or keeps in extensions: pyflakes (``F``), pycodestyle's import,
statement and runtime errors (``E4``, ``E7``, ``E9``), flake8-bugbear (``B``),
comprehensions (``C4``), perflint (``PERF``), flake8-return (``RET``), flake8-simplify
(``SIM``) and magic values in comparisons (``PLR2004``, a pylint extension not enabled by
default). Where a selected ruff rule means what a default pylint message means (ruff's
``F401`` and pylint's ``unused-import``), the ruff rule is not run (``PYLINT_EQUIVALENTS``):
the finding is counted once, as pylint's. Matching findings line by line instead would not
work: the two tools report some of them on different lines (``no-else-return`` on the
``if``, ``RET505`` on the ``else``). ruff's own syntax errors are dropped, since pylint
reports the same as ``syntax-error``. pylint's levels are its message types; ruff's levels on
``findings.SEVERITIES`` follow pylint's
classification of the same kinds of message (``LEVELS``). ruff's ``--isolated`` ignores any
configuration file near the answers; one process per batch; rules are ``ruff:<code>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from beyondpass.analysers import Analyser, AnalyserFailed, lint, lint_record, pylintrc, require
from beyondpass.methods.psb2.findings import Finding

PURPOSE = "code smells of Python"
#: pylint's defaults: only how it runs is set (one job, no score, no plugins)
PYLINTRC = pylintrc(comment="beyondpass code smells: pylint defaults.")

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
    """A ruff rule's level on ``findings.SEVERITIES``."""
    for prefix, severity in LEVELS:
        if code.startswith(prefix):
            return severity
    raise ValueError(f"ruff rule {code} is outside the selection")


def ruff_command() -> str:
    """The ruff executable; a one-line error when there is none (never a count of zero)."""
    return require("ruff", PURPOSE)[0]


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


def ruff(timeout_s: float) -> Analyser:
    return Analyser("ruff", tuple(ruff_args()), timeout_s=timeout_s, purpose=PURPOSE)


def ruff_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """ruff's findings for ``paths`` (one process), by file name."""
    out: dict[str, list[Finding]] = {p.name: [] for p in paths}
    if not paths:
        return out
    analyser = ruff(timeout_s)
    proc = analyser.run([str(p) for p in paths], paths[0].parent)
    # exit 0: no findings, 1: findings, 2: ruff itself failed
    try:
        if proc.returncode not in (0, 1):
            raise ValueError(proc.returncode)
        messages: list[dict[str, Any]] = json.loads(proc.stdout)
    except ValueError:  # JSONDecodeError is one
        raise analyser.failed(proc) from None
    for m in messages:
        code = m.get("code")
        if not code or code == "E999" or not re.fullmatch(r"[A-Z]+[0-9]+", str(code)):
            continue  # a syntax error (E999 in older ruff): pylint reports syntax-error
        name = Path(str(m.get("filename", ""))).name
        out.setdefault(name, []).append(Finding(f"ruff:{code}", level(str(code))))
    return out


def pylint_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """pylint's findings for ``paths`` (one batch), by file name; rules are named
    ``symbol (id)`` and keep pylint's own levels."""
    require("pylint", PURPOSE)
    sources = {p.stem: p.read_text(encoding="utf-8") for p in paths}
    results = lint(sources, PYLINTRC, timeout_s=timeout_s)
    out: dict[str, list[Finding]] = {}
    for path in paths:
        result = results[path.stem]
        if result.messages is None:
            raise AnalyserFailed(f"pylint failed on {path.name}: {result.error}")
        out[path.name] = [Finding(f"{m.symbol} ({m.msg_id})", m.category) for m in result.messages]
    return out


def python_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """Both analysers' findings, by file name (ruff first: a missing ruff stops there)."""
    by_file = ruff_findings(paths, timeout_s)
    for name, found in pylint_findings(paths, timeout_s).items():
        by_file.setdefault(name, []).extend(found)
    return by_file


def records(timeout_s: float) -> dict[str, dict[str, Any]]:
    """The recorded runs of both analysers (version, arguments, limits)."""
    return {"pylint": lint_record(PYLINTRC, timeout_s=timeout_s), "ruff": ruff(timeout_s).record()}
