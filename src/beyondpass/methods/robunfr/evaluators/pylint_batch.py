"""RobuNFR's pylint counts: which messages count, and how they become a program's metrics.

pylint itself runs in :mod:`beyondpass.analysers` (in-process on batches, in supervised
worker processes); this module keeps only RobuNFR's concern.

Controlled configuration: pylint's defaults of the installed version, except the two
messages that relate *several* modules — ``duplicate-code`` (R0801) and ``cyclic-import``
(R0401) — which would make a sample's counts depend on the other samples in its batch, plus
two informational messages (``suppressed-message``, ``file-ignored``) that record inline
``# pylint:`` pragmas without changing any count. No user or project configuration is
read, no plugin is loaded, no ``init-hook`` runs (:func:`beyondpass.analysers.pylintrc`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.analysers import PylintMessage, PylintPool, PylintResult, category_of, pylintrc
from beyondpass.analysers import pylint_batch as runner
from beyondpass.analysers.pylint_batch import versions  # noqa: F401 - recorded with results
from beyondpass.execution import BatchContext
from beyondpass.methods.robunfr.evaluators.code_metrics import count_code

DISABLED = ("duplicate-code", "cyclic-import")
RECORDED_INFO = ("suppressed-message", "file-ignored")
PYLINTRC = pylintrc(
    DISABLED,
    RECORDED_INFO,
    "beyondpass NFR metrics: pylint defaults, minus the messages that relate several modules.",
)

# pylint could not analyse the module: its counts for that file are not a measurement.
FAILURE_CATEGORY = "fatal"
FAILURE_SYMBOLS = frozenset({"syntax-error"})
CATEGORIES = ("convention", "refactor", "warning", "error", "fatal", "info")


@dataclass
class FileAnalysis:
    """Static metrics of one program; ``None`` where a metric could not be computed."""

    loc: int | None = None
    exception_handling: int | None = None
    counts: dict[str, int] | None = None  # pylint messages per category
    messages: list[tuple[str, int]] = field(default_factory=list)  # (symbol, line)
    suppressed: dict[str, int] = field(default_factory=dict)  # by inline pragmas, per category
    file_ignored: bool = False  # ``# pylint: skip-file``
    pylint_error: str = ""  # why pylint gave no counts
    code_error: str = ""  # why LOC / exception handling could not be counted


def module_name(key: str) -> str:
    """File stem for a sample: lower-case snake case, so no module-name message ever fires."""
    return f"m_{key}"


def write_rcfile(directory: Path) -> Path:
    """:data:`PYLINTRC` as a file in ``directory``, for the ``pylint`` command."""
    return runner.write_rcfile(directory, PYLINTRC)


def content_key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()[:24]


class LintPool:
    """RobuNFR's metrics for ``key -> program`` maps: the shared pylint runner with
    :data:`PYLINTRC`, LOC and exception handling counted beside it."""

    def __init__(
        self,
        workers: int = 1,
        *,
        batch_size: int = 512,
        file_timeout_s: float = 60.0,
        memory_mb: int = 4096,
    ) -> None:
        self.pylint = PylintPool(
            PYLINTRC,
            workers,
            batch_size=batch_size,
            file_timeout_s=file_timeout_s,
            memory_mb=memory_mb,
            module_prefix=module_name(""),
        )

    def run(self, sources: Mapping[str, str], on_analysis: Callable[[str, FileAnalysis], None]):
        """Analyse every program; ``on_analysis(key, analysis)`` fires as each is known."""

        def done(key: str, result: PylintResult) -> None:
            source = sources[key]
            if result.messages is None:
                analysis = code_analysis(source)
                analysis.pylint_error = result.error
            else:
                analysis = analysis_from(source, result.messages)
            on_analysis(key, analysis)

        self.pylint.run(sources, done)


@dataclass(frozen=True)
class LintSettings:
    """The limits of :class:`LintPool` (its worker count comes from where a batch runs)."""

    batch_size: int = 512
    file_timeout_s: float = 60.0
    memory_mb: int = 4096


def analyse_batch(
    settings: LintSettings, items: list[tuple[str, str]], ctx: BatchContext
) -> list[FileAnalysis]:
    """The batch function of the NFR job (:mod:`beyondpass.execution.pool`): every
    ``(key, program)`` analysed by a :class:`LintPool` of ``ctx.cpus`` workers."""
    index = {key: i for i, (key, _) in enumerate(items)}
    out: list[FileAnalysis | None] = [None] * len(items)

    def done(key: str, analysis: FileAnalysis) -> None:
        out[index[key]] = analysis
        if ctx.emit is not None:
            ctx.emit(index[key], analysis)

    pool = LintPool(
        ctx.cpus,
        batch_size=settings.batch_size,
        file_timeout_s=settings.file_timeout_s,
        memory_mb=settings.memory_mb,
    )
    pool.run(dict(items), done)
    return out  # type: ignore[return-value]


def analysis_from(source: str, messages: Sequence[PylintMessage]) -> FileAnalysis:
    """Combine pylint's messages for one file with its LOC and exception-handling counts."""
    analysis = code_analysis(source)
    failures = [
        m for m in messages if m.category == FAILURE_CATEGORY or m.symbol in FAILURE_SYMBOLS
    ]
    if failures:
        first = failures[0]
        analysis.pylint_error = f"pylint {first.symbol} ({first.msg_id}): {first.text}"[:500]
        return analysis
    counted = [m for m in messages if m.category != "info"]
    counts = Counter(m.category for m in counted)
    analysis.counts = {c: counts.get(c, 0) for c in CATEGORIES if c != "info"}
    analysis.messages = [(m.symbol, m.line) for m in counted]
    for m in messages:
        if m.symbol == "suppressed-message":
            category = _suppressed_category(m.text)
            analysis.suppressed[category] = analysis.suppressed.get(category, 0) + 1
        elif m.symbol == "file-ignored":
            analysis.file_ignored = True
    return analysis


def code_analysis(source: str) -> FileAnalysis:
    """LOC and exception handling only (no pylint): what is left when pylint fails on a file."""
    try:
        counts = count_code(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return FileAnalysis(code_error=f"{type(exc).__name__}: {exc}"[:500])
    return FileAnalysis(loc=counts.loc, exception_handling=counts.exception_handling)


def _suppressed_category(text: str) -> str:
    """Category of the message named in "Suppressed 'too-many-branches' (from line 3)"."""
    symbol = text.split("'")[1] if text.count("'") >= 2 else ""
    return category_of(symbol)


def configuration(workdir: Path) -> dict[str, Any]:
    """What the counts mean: versions, the rc file and the messages each category counts."""
    described = runner.describe(PYLINTRC, workdir)
    enabled = described.pop("enabled_messages")
    return {
        **described,
        "disabled": list(DISABLED),
        "counted_messages": {k: enabled.get(k, []) for k in ("refactor", "convention")},
    }
