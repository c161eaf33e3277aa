"""Every recorded outcome cell of the published answer files, given a stated status.

The authors' harness wrote free text: ``test success``, ``compile fail`` followed by gcc's
output, raw CTest or ``make test`` logs, ``can't find code from response``, a Chinese
"function not found in the file", and in the hand-made summary columns ``success``,
``testfail``, ``not find problem`` or a raw build log. Each text maps to one status below,
with a detail where the text says more (a timeout, a build environment that failed, the
CTest suites that failed); a text that fits none is an error naming its file and row,
never an "unknown" status.

Three kinds of cell are read: ``round`` (one cell per repair round, ``v1Inform``: the
round's whole outcome), ``compile`` and ``test`` (the summary columns ``compilationV1``/
``testV1`` or ``compile_result``/``test_result``). A failed build's detail is the category
of the seed's Table VI that its log shows (``cproject.taxonomy``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from beyondpass.methods.obfuseval.cproject import taxonomy

#: status -> what it means (the report's legend)
STATUSES = {
    "passed": "built, and the test suite passed",
    "test_failed": "built, and the test run failed, crashed or timed out",
    "compiled": "built (a compile column; its test column says more)",
    "compile_failed": "the project did not build with the answer spliced in",
    "no_code": "the harness found no function in the answer",
    "not_spliced": "the harness did not find the function in its source file",
    "request_failed": "the model's API refused the request (context length)",
    "no_test_outcome": "the test column recorded no outcome ('not find problem', 'no problem')",
    "failed_unstated": "the cell says only 'failed' (失败); the stage is not recorded",
    "misplaced": "the outcome cell holds the task's prompt (a row out of place)",
    "empty": "no outcome recorded",
}
#: the statuses a compile pass counts (the build succeeded)
BUILT = frozenset({"passed", "test_failed", "compiled"})

_CTEST_FAILED = re.compile(r"^\s*\d+\s*-\s*(\S+)\s*\(([^)]*)\)", re.MULTILINE)
_GCC_ERROR = re.compile(r"\.(c|h):\d+(:\d+)?: (fatal )?error:|undefined reference to|error: ld ")


@dataclass(frozen=True)
class Outcome:
    """The status of one cell, and what else its text says (``""`` when nothing)."""

    status: str
    detail: str = ""

    @property
    def built(self) -> bool:
        return self.status in BUILT


class UnrecognisedOutcome(ValueError):
    """A cell whose text fits no status."""


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


def _build_failure(text: str) -> Outcome:
    """A failed build, its detail the category of the seed's Table VI its log shows."""
    found = taxonomy.classify(text)
    return Outcome("compile_failed", f"{found.major} / {found.category}")


def _test_failure(text: str) -> Outcome:
    if "timed out" in text or "Command timed out" in text:
        return Outcome("test_failed", "timeout")
    failed = _CTEST_FAILED.findall(text.split("The following tests FAILED:", 1)[-1])
    if "The following tests FAILED:" in text and failed:
        return Outcome("test_failed", ", ".join(f"{name} ({why})" for name, why in failed))
    return Outcome("test_failed")


def _common(text: str) -> Outcome | None:
    if not text:
        return Outcome("empty")
    if text.startswith("can't find code from response"):
        return Outcome("no_code")
    if text.startswith(("没有在文件中找到该函数", "replace fun fail", "not find fun in the file")):
        return Outcome("not_spliced")
    if "InvalidRequestError" in text or "maximum context length" in text:
        return Outcome("request_failed")
    if text == "失败":
        return Outcome("failed_unstated")
    if text.startswith("This is objective Function Description"):
        return Outcome("misplaced")
    return None


def of_round(value: object) -> Outcome:
    """A ``v1Inform`` cell: the outcome of one repair round."""
    text = _text(value)
    found = _common(text)
    if found is not None:
        return found
    if text.startswith("test success"):
        return Outcome("passed")
    if text.startswith("test fail"):
        return _test_failure(text)
    if text.startswith(("compile fail", "conpile fail")):  # the second as spelt once
        return _build_failure(text)
    # an earlier version of the harness stored the raw log without its prefix
    if "Errors while running CTest" in text or "tests failed out of" in text:
        return _test_failure(text)
    if _GCC_ERROR.search(text):
        return _build_failure(text)
    raise UnrecognisedOutcome(text[:80])


def of_compile(value: object) -> Outcome:
    """A compile summary cell (``compilationV1``, ``compile_result``)."""
    text = _text(value)
    found = _common(text)
    if found is not None:
        return found
    if text == "success":
        return Outcome("compiled")
    if "Scanning dependencies" in text or "error" in text or "Error" in text:
        return _build_failure(text)
    raise UnrecognisedOutcome(text[:80])


def of_test(value: object) -> Outcome:
    """A test summary cell (``testV1``, ``test_result``)."""
    text = _text(value)
    found = _common(text)
    if found is not None:
        return found
    if text == "success":
        return Outcome("passed")
    if text in ("testfail", "test fail"):
        return Outcome("test_failed")
    if text in ("not find problem", "no problem"):
        return Outcome("no_test_outcome")
    if "Errors while running CTest" in text or "tests failed out of" in text:
        return _test_failure(text)
    raise UnrecognisedOutcome(text[:80])
