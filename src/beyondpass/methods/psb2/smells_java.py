"""Code smells and likely bugs of Java answers: checkstyle (Debian ``checkstyle``).

PMD, the usual Java bug finder, is in neither Debian's nor PyPI's archive here, so
checkstyle is the Java analyser. Its bundled configurations (sun_checks, google_checks)
are formatting and Javadoc standards for whole projects and would bury a 20-line answer in
layout messages, so beyondpass ships its own rule set, ``RULES``: the checks that mirror
the C++ selection (magic numbers, braces, one declaration per line, simplifiable booleans,
unused and star imports, naming) plus checkstyle's likely-bug checks (string ``==``,
``equals`` without ``hashCode``, fall-through, assignments inside expressions, a modified
loop variable, empty statements and catch blocks). checkstyle gives every check one level
(``error`` unless configured), so each rule's level on ``findings.SEVERITIES`` is written
next to it in ``RULES``: the same level as the matching C++ check. A file checkstyle
cannot parse is one ``fatal`` finding. One process for the batch; rules are named
``checkstyle:<Check>``. checkstyle runs through :mod:`beyondpass.analysers`, without an
address-space limit (the JVM reserves its heap up front and bounds it itself).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from beyondpass.analysers import Analyser
from beyondpass.methods.psb2.findings import Finding

PURPOSE = "code smells of Java"
CONFIG = "checkstyle-rules.xml"  # written beside the answers, from ``RULES``

#: check -> level on the one scale; all are checkstyle 8.x TreeWalker checks with defaults
RULES = {
    # likely bugs
    "StringLiteralEquality": "warning",
    "EqualsHashCode": "warning",
    "CovariantEquals": "warning",
    "FallThrough": "warning",
    "InnerAssignment": "warning",
    "ModifiedControlVariable": "warning",
    "EmptyStatement": "warning",
    "EmptyCatchBlock": "warning",
    "MissingSwitchDefault": "warning",
    "UnusedImports": "warning",
    "RedundantImport": "warning",
    # design
    "AvoidNestedBlocks": "refactor",
    "ParameterNumber": "refactor",
    "MethodLength": "refactor",
    # readability and conventions
    "MagicNumber": "convention",
    "NeedBraces": "convention",
    "MultipleVariableDeclarations": "convention",
    "OneStatementPerLine": "convention",
    "SimplifyBooleanExpression": "convention",
    "SimplifyBooleanReturn": "convention",
    "UnnecessaryParentheses": "convention",
    "DefaultComesLast": "convention",
    "AvoidStarImport": "convention",
    "ArrayTypeStyle": "convention",
    "UpperEll": "convention",
    "ConstantName": "convention",
    "LocalVariableName": "convention",
    "MemberName": "convention",
    "MethodName": "convention",
    "ParameterName": "convention",
    "TypeName": "convention",
}
_SOURCE = re.compile(r"\.(\w+?)(?:Check)?$")


def configuration() -> str:
    """The checkstyle XML configuration of ``RULES``."""
    checks = "".join(f"<module name={quoteattr(name)}/>" for name in RULES)
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE module PUBLIC "-//Checkstyle//DTD Checkstyle '
        'Configuration 1.3//EN" "https://checkstyle.org/dtds/configuration_1_3.dtd">\n'
        f'<module name="Checker"><module name="TreeWalker">{checks}</module></module>\n'
    )


def checkstyle(timeout_s: float) -> Analyser:
    return Analyser(
        "checkstyle",
        ("-c", CONFIG, "-f", "xml"),
        timeout_s=timeout_s,
        memory_mb=None,
        purpose=PURPOSE,
    )


def _run(analyser: Analyser, paths: Sequence[Path]) -> ET.Element | None:
    """checkstyle's XML report for ``paths``; None when it stopped on a file it cannot parse."""
    proc = analyser.run([p.name for p in paths], paths[0].parent)
    start = proc.stdout.find("<?xml")
    try:
        return ET.fromstring(proc.stdout[start:]) if start >= 0 else None
    except ET.ParseError:
        if "Exception was thrown while processing" in proc.stderr:
            return None
        raise analyser.failed(proc) from None


def java_findings(paths: Sequence[Path], timeout_s: float) -> dict[str, list[Finding]]:
    """checkstyle's findings, by file name, for files of one directory: one process for the
    batch; when checkstyle stops on a file it cannot parse (it then reports nothing), one
    process per file, and such a file gets one ``fatal`` finding."""
    analyser = checkstyle(timeout_s)
    analyser.command()  # a missing analyser: one error, before any work
    (paths[0].parent / CONFIG).write_text(configuration(), encoding="utf-8")
    out: dict[str, list[Finding]] = {p.name: [] for p in paths}
    root = _run(analyser, paths)
    reports = [root]
    if root is None:
        reports = [_run(analyser, [p]) for p in paths]
        for path, report in zip(paths, reports, strict=True):
            if report is None:
                out[path.name].append(Finding("checkstyle:ParseError", "fatal"))
    for report in reports:
        for file in report.iter("file") if report is not None else ():
            name = Path(file.get("name", "")).name
            for err in file.iter("error"):
                m = _SOURCE.search(err.get("source", ""))
                check = m.group(1) if m else err.get("source", "")
                level = RULES.get(check, "info")
                out.setdefault(name, []).append(Finding(f"checkstyle:{check}", level))
    return out


def records(timeout_s: float) -> dict[str, dict[str, Any]]:
    """The recorded run of checkstyle (version, arguments, limits)."""
    return {"checkstyle": checkstyle(timeout_s).record()}
