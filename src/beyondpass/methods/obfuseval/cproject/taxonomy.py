"""Why a C answer did not build: the seed's categories of syntax errors (its Table VI),
read from gcc's and the linker's messages.

The first diagnostic that is an error decides, as a developer reads a build log. gcc before
14 reports an implicit function declaration as a warning; the build then fails at the link
(``undefined reference``), so a link failure of a function the compiler warned was
implicitly declared counts as "implicit declaration of function", as the paper counts it.
Three groups are ours, stated beside the paper's: *language standard violations* (``C++
style comments are not allowed in ISO C90``: libgit2 builds as C90), *undeclared
identifiers* (gcc's most frequent error in the published logs; the paper's table has no
row for it) and the *build environment* (a missing ``pkg-config``: the harness's machine,
not the answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FUNCTION_AND_TYPE = "function and type declaration errors"
STRUCTURES = "data structure and member access errors"
CONVERSIONS = "type conversion and assignment errors"
SCOPE = "scope and definition errors"
OTHER = "other syntax errors"
STANDARD = "language standard violations"  # ours
ENVIRONMENT = "build environment"  # ours: not the answer's

#: (major, subcategory, the diagnostic's text) in the order they are tried
RULES: tuple[tuple[str, str, str], ...] = (
    (ENVIRONMENT, "the build machine", r"pkg-config: not found|could not make \./config\.status|"
     r"opening output file .*: No such file or directory|Cannot build without"),
    (STANDARD, "C++ style comment in ISO C90", r"C\+\+ style comments are not allowed"),
    (STANDARD, "declaration not allowed in this C standard",
     r"loop initial declarations are only allowed|ISO C90 forbids"),
    (FUNCTION_AND_TYPE, "implicit declaration of function", r"implicit declaration of function"),
    (FUNCTION_AND_TYPE, "type conflict", r"conflicting types for"),
    (FUNCTION_AND_TYPE, "API parameter count mismatch",
     r"too (few|many) arguments to function"),
    (FUNCTION_AND_TYPE, "undeclared type", r"unknown type name|incomplete type|"
     r"invalid use of incomplete typedef"),
    (FUNCTION_AND_TYPE, "undefined function", r"undefined reference to"),
    (STRUCTURES, "misuse of structure pointer", r"is a pointer; did you mean to use"),
    (STRUCTURES, "non-existent structure member", r"has no member named"),
    (STRUCTURES, "use operator to access an integer member",
     r"request for member .* in something not a structure or union"),
    (CONVERSIONS, "making a pointer from an integer without a cast",
     r"makes (pointer from integer|integer from pointer) without a cast"),
    (CONVERSIONS, "incompatible pointer type", r"incompatible pointer type"),
    (CONVERSIONS, "incompatible type assignment", r"incompatible types? (for argument|when)|"
     r"void value not ignored|invalid initializer"),
    (SCOPE, "conflict between static and non-static declarations",
     r"static declaration of .* follows non-static|invalid storage class for function"),
    (SCOPE, "redefinition", r"redefinition of|redeclared as"),
    (SCOPE, "undeclared identifier", r"undeclared (\(first use|here)"),
    (OTHER, "lvalue required as the left operand of assignment", r"lvalue required"),
    (OTHER, "assignment to expression with array type", r"assignment to expression with array"),
    (OTHER, "invalid binary operands", r"invalid operands to binary"),
    (OTHER, "array subscript is not an integer", r"array subscript is not an integer"),
    (OTHER, "subscripted value is pointer to function", r"subscripted value is"),
    (OTHER, "incorrect use of array, pointer or vector", r"invalid type argument of"),
    (OTHER, "expected expression error", r"expected expression"),
    (OTHER, "use of a deprecated function", r"is deprecated"),
    (OTHER, "expected token (parse error)", r"^expected |^unterminated"),
)  # fmt: skip
_COMPILED = tuple((major, sub, re.compile(text)) for major, sub, text in RULES)
_DIAGNOSTIC = re.compile(r"^(?:[^\s:]+:\d+(?::\d+)?: )?(?:fatal )?(error|warning): (.*)$", re.M)
_IMPLICIT = re.compile(r"implicit declaration of function [‘'`]([\w$]+)")
_UNDEFINED = re.compile(r"undefined reference to [‘'`]([\w$]+)")


@dataclass(frozen=True)
class Diagnosis:
    major: str
    category: str
    message: str  # the diagnostic that decided ("" when none was found)


def _rule(text: str) -> tuple[str, str] | None:
    for major, sub, pattern in _COMPILED:
        if pattern.search(text):
            return major, sub
    return None


def classify(log: str) -> Diagnosis:
    """The category of a failed build's log."""
    environment = _rule(log)
    if environment is not None and environment[0] == ENVIRONMENT:
        line = next((x for x in log.splitlines() if _rule(x) == environment), "")
        return Diagnosis(*environment, line.strip())
    implicit = set(_IMPLICIT.findall(log))
    for line in log.splitlines():
        undefined = _UNDEFINED.search(line)
        if undefined is not None:
            if undefined.group(1) in implicit:
                return Diagnosis(FUNCTION_AND_TYPE, "implicit declaration of function", line)
            return Diagnosis(FUNCTION_AND_TYPE, "undefined function", line.strip())
        found = _DIAGNOSTIC.match(line.strip())
        if found is None or found.group(1) != "error":
            continue
        message = found.group(2)
        rule = _rule(message)
        if rule is not None:
            return Diagnosis(*rule, message)
        if message.startswith("ld returned"):
            continue  # the linker's summary: the reason is on a line of its own
        return Diagnosis(OTHER, "others", message)
    return Diagnosis(OTHER, "others", "")
