"""pylint in-process on a batch of programs, with a controlled configuration.

Why in-process on batches: one ``pylint`` process per file pays interpreter start-up,
pylint's imports and astroid's bootstrap of the builtins (about 0.7 s) for every sample,
and re-parses every standard-library module a sample imports. Here those costs are paid
once per worker process and once per batch (docs/performance.md has the measured ratio).

Controlled configuration: pylint's defaults of the installed version, except the two
messages that relate *several* modules — ``duplicate-code`` (R0801) and ``cyclic-import``
(R0401) — which would make a sample's counts depend on the other samples in its batch, plus
two informational messages (``suppressed-message``, ``file-ignored``) that record inline
``# pylint:`` pragmas without changing any count. The rc file below is passed with
``--rcfile``, so pylint's search for ``pylintrc``/``pyproject.toml``/``setup.cfg``/
``~/.pylintrc``/``$PYLINTRC`` never runs: no user or project configuration is read, no
plugin is loaded, no ``init-hook`` runs.

Hostile code: pylint and astroid only parse the files; candidate modules are never
imported or executed. ``unsafe-load-any-extension=no`` with an empty
``extension-pkg-allow-list`` keeps astroid from importing compiled extension modules
(astroid still introspects the standard library's own built-in modules, as in any pylint run).

Caches: astroid keeps every module it builds in a process-wide cache (and pylint keeps LRU
caches); both are cleared after every batch, so no batch sees modules or inference results of
another and a long-lived worker's memory does not grow.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from beyondpass.methods.robunfr.evaluators.code_metrics import count_code

DISABLED = ("duplicate-code", "cyclic-import")
RECORDED_INFO = ("suppressed-message", "file-ignored")

PYLINTRC = f"""\
# beyondpass NFR metrics: pylint defaults, minus the messages that relate several modules.
[MAIN]
jobs=1
persistent=no
recursive=no
load-plugins=
unsafe-load-any-extension=no
extension-pkg-allow-list=

[REPORTS]
reports=no
score=no

[MESSAGES CONTROL]
disable={",".join(DISABLED)}
enable={",".join(RECORDED_INFO)}
"""

# pylint could not analyse the module: its counts for that file are not a measurement.
FAILURE_CATEGORY = "fatal"
FAILURE_SYMBOLS = frozenset({"syntax-error"})
CATEGORIES = ("convention", "refactor", "warning", "error", "fatal", "info")


@dataclass(frozen=True)
class PylintMessage:
    symbol: str
    msg_id: str
    category: str
    line: int
    text: str = ""


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


def versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in ("pylint", "astroid")}


def module_name(key: str) -> str:
    """File stem for a sample: lower-case snake case, so no module-name message ever fires."""
    return f"m_{key}"


def content_key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()[:24]


def write_rcfile(directory: Path) -> Path:
    path = directory / "beyondpass-pylintrc"
    path.write_text(PYLINTRC, encoding="utf-8")
    return path


def lint_files(
    paths: Sequence[str | Path],
    rcfile: str | Path,
    on_file: Callable[[str], None] | None = None,
) -> dict[str, list[PylintMessage]]:
    """Run pylint once on ``paths``; messages per absolute path.

    ``on_file(path)`` fires when pylint starts building or checking a file, so a supervisor
    can tell which file a stuck run is on. Caches are cleared afterwards, whatever happens.
    """
    from pylint.checkers.clear_lru_cache import clear_lru_caches
    from pylint.lint import Run
    from pylint.reporters import CollectingReporter

    class Reporter(CollectingReporter):
        def on_set_current_module(self, module: str, filepath: str | None) -> None:
            super().on_set_current_module(module, filepath)
            if on_file is not None and filepath:
                on_file(filepath)

    reporter = Reporter()
    files = [str(Path(p).resolve()) for p in paths]
    try:
        Run(["--rcfile", str(rcfile), "--", *files], reporter=reporter, exit=False)
    finally:
        from astroid import MANAGER

        clear_lru_caches()
        MANAGER.clear_cache()
    out: dict[str, list[PylintMessage]] = {f: [] for f in files}
    for m in reporter.messages:
        out.setdefault(os.path.abspath(m.abspath), []).append(
            PylintMessage(m.symbol, m.msg_id, m.category, m.line, m.msg)
        )
    return out


def analyse_sources(
    sources: Mapping[str, str],
    workdir: Path,
    rcfile: Path,
    on_file: Callable[[str], None] | None = None,
) -> dict[str, FileAnalysis]:
    """Static metrics for each ``key -> program``: files written to ``workdir``, one pylint run.

    ``on_file(key)`` reports progress as in :func:`lint_files`.
    """
    by_path: dict[str, str] = {}
    for key, source in sources.items():
        path = (workdir / f"{module_name(key)}.py").resolve()
        path.write_text(source, encoding="utf-8", errors="surrogatepass")
        by_path[str(path)] = key

    def progress(path: str) -> None:
        if on_file is not None and (key := by_path.get(os.path.abspath(path))):
            on_file(key)

    try:
        messages = lint_files(list(by_path), rcfile, progress)
    finally:
        for path in by_path:
            Path(path).unlink(missing_ok=True)
    return {
        key: analysis_from(sources[key], messages.get(path, [])) for path, key in by_path.items()
    }


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
    return _category_of(symbol)


_SYMBOL_CATEGORY: dict[str, str] = {}


def _category_of(symbol: str) -> str:
    if not _SYMBOL_CATEGORY:
        for msg_id, category, name in _message_table():
            _SYMBOL_CATEGORY[name] = category
            _SYMBOL_CATEGORY[msg_id] = category
    return _SYMBOL_CATEGORY.get(symbol, "unknown")


def _message_table() -> list[tuple[str, str, str]]:
    from pylint.constants import MSG_TYPES
    from pylint.lint import PyLinter

    linter = PyLinter()
    linter.load_default_plugins()
    return [(m.msgid, MSG_TYPES[m.msgid[0]], m.symbol) for m in linter.msgs_store.messages]


def configuration(workdir: Path) -> dict[str, Any]:
    """What the counts mean: versions, the rc file and the messages each category counts.

    Runs the configured linter once on an empty module in ``workdir`` (no candidate code),
    so the lists are pylint's own view of this configuration.
    """
    from pylint.constants import MSG_TYPES
    from pylint.lint import Run
    from pylint.reporters import CollectingReporter

    rcfile = write_rcfile(workdir)
    empty = workdir / "m_empty.py"
    empty.write_text("", encoding="utf-8")
    try:
        linter = Run(
            ["--rcfile", str(rcfile), "--", str(empty)], reporter=CollectingReporter(), exit=False
        ).linter
    finally:
        from astroid import MANAGER

        MANAGER.clear_cache()
    counted: dict[str, list[str]] = {"refactor": [], "convention": []}
    for msg in linter.msgs_store.messages:
        category = MSG_TYPES[msg.msgid[0]]
        if category in counted and linter.is_message_enabled(msg.msgid):
            counted[category].append(f"{msg.msgid} {msg.symbol}")
    return {
        **versions(),
        "pylintrc": PYLINTRC,
        "py_version": ".".join(str(v) for v in linter.config.py_version),
        "disabled": list(DISABLED),
        "counted_messages": {k: sorted(v) for k, v in counted.items()},
    }
