"""pylint in-process on a batch of programs, with a configuration the caller controls.

Why in-process on batches: one ``pylint`` process per file pays interpreter start-up,
pylint's imports and astroid's bootstrap of the builtins (about 0.7 s) for every sample,
and re-parses every standard-library module a sample imports. Here those costs are paid
once per worker process (:mod:`.pylint_pool`) and once per batch (docs/performance.md has
the measured ratio).

Configuration: :func:`pylintrc` writes the part that is about *running* (one job, no
persistent statistics, no score or reports, no plugins, no compiled extension loaded) and
the caller adds only which messages count. The rc file is passed with ``--rcfile``, so
pylint's search for ``pylintrc``/``pyproject.toml``/``setup.cfg``/``~/.pylintrc``/
``$PYLINTRC`` never runs: no user or project configuration is read, no ``init-hook`` runs.

Hostile code: pylint and astroid only parse the files; candidate modules are never imported
or executed. Caches: astroid keeps every module it builds in a process-wide cache (and
pylint keeps LRU caches); both are cleared after every batch, so no batch sees modules or
inference results of another and a long-lived worker's memory does not grow.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

#: a file stem pylint takes as a module name as it is (the caller's names stay the names)
STEM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class PylintMessage:
    symbol: str
    msg_id: str
    category: str
    line: int
    text: str = ""


def versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in ("pylint", "astroid")}


def pylintrc(disable: Sequence[str] = (), enable: Sequence[str] = (), comment: str = "") -> str:
    """The rc file text: how pylint runs (fixed here) and which messages count (``disable``
    first, then ``enable``, as pylint applies them in file order)."""
    control = "".join(
        f"{key}={','.join(values)}\n"
        for key, values in (("disable", disable), ("enable", enable))
        if values
    )
    head = f"# {comment}\n" if comment else ""
    return (
        f"{head}[MAIN]\njobs=1\npersistent=no\nrecursive=no\nload-plugins=\n"
        "unsafe-load-any-extension=no\nextension-pkg-allow-list=\n\n"
        "[REPORTS]\nreports=no\nscore=no\n\n"
        f"[MESSAGES CONTROL]\n{control}"
    )


def write_rcfile(directory: Path, text: str) -> Path:
    path = directory / "beyondpass-pylintrc"
    path.write_text(text, encoding="utf-8")
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


def lint_sources(
    sources: Mapping[str, str],
    workdir: Path,
    rcfile: Path,
    on_file: Callable[[str], None] | None = None,
) -> dict[str, list[PylintMessage]]:
    """Messages for each ``stem -> program``: files ``<stem>.py`` written to ``workdir``
    (and removed), one pylint run. ``on_file(stem)`` reports progress as in
    :func:`lint_files`."""
    by_path: dict[str, str] = {}
    for stem, source in sources.items():
        if not STEM.fullmatch(stem):
            raise ValueError(f"not a module name: {stem!r}")
        path = (workdir / f"{stem}.py").resolve()
        path.write_text(source, encoding="utf-8", errors="surrogatepass")
        by_path[str(path)] = stem

    def progress(path: str) -> None:
        if on_file is not None and (stem := by_path.get(os.path.abspath(path))):
            on_file(stem)

    try:
        messages = lint_files(list(by_path), rcfile, progress)
    finally:
        for path in by_path:
            Path(path).unlink(missing_ok=True)
    return {stem: messages.get(path, []) for path, stem in by_path.items()}


_SYMBOL_CATEGORY: dict[str, str] = {}


def category_of(symbol: str) -> str:
    """The category (``refactor``, ``convention``, ...) of a message symbol or id."""
    if not _SYMBOL_CATEGORY:
        from pylint.constants import MSG_TYPES
        from pylint.lint import PyLinter

        linter = PyLinter()
        linter.load_default_plugins()
        for m in linter.msgs_store.messages:
            _SYMBOL_CATEGORY[m.symbol] = _SYMBOL_CATEGORY[m.msgid] = MSG_TYPES[m.msgid[0]]
    return _SYMBOL_CATEGORY.get(symbol, "unknown")


def describe(rc_text: str, workdir: Path) -> dict[str, Any]:
    """What a configuration means: versions, the rc file, the Python version pylint
    targets and every enabled message per category ("R1705 no-else-return").

    Runs the configured linter once on an empty module in ``workdir`` (no candidate code),
    so the lists are pylint's own view of this configuration.
    """
    from pylint.constants import MSG_TYPES
    from pylint.lint import Run
    from pylint.reporters import CollectingReporter

    rcfile = write_rcfile(workdir, rc_text)
    empty = workdir / "m_empty.py"
    empty.write_text("", encoding="utf-8")
    try:
        linter = Run(
            ["--rcfile", str(rcfile), "--", str(empty)], reporter=CollectingReporter(), exit=False
        ).linter
    finally:
        from astroid import MANAGER

        MANAGER.clear_cache()
    enabled: dict[str, list[str]] = {}
    for msg in linter.msgs_store.messages:
        if linter.is_message_enabled(msg.msgid):
            enabled.setdefault(MSG_TYPES[msg.msgid[0]], []).append(f"{msg.msgid} {msg.symbol}")
    return {
        **versions(),
        "pylintrc": rc_text,
        "py_version": ".".join(str(v) for v in linter.config.py_version),
        "enabled_messages": {k: sorted(v) for k, v in sorted(enabled.items())},
    }
