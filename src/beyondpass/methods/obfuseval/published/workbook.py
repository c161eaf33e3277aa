"""The published files' sheets, read with openpyxl.

openpyxl is the maintained reader of the xlsx format in pure Python; its read-only mode
streams rows without loading styles, which keeps the 120 MB of the full repository within
seconds per project. Formulas are read as their text (the paper's decrease columns are
``=1-E2/C2``): the values the paper shows are computed here from the cells they name.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from beyondpass.errors import ConfigError, DataError


@dataclass(frozen=True)
class Sheet:
    """One sheet: its title, its first row (the column names) and the rows under it."""

    title: str
    header: tuple
    rows: tuple

    @property
    def named(self) -> bool:
        """Its columns have names (some sheets are dumps with 0, 1, 2, ... instead)."""
        return any(isinstance(name, str) for name in self.header)

    def column(self, name: str) -> int | None:
        return self.header.index(name) if name in self.header else None


@lru_cache(maxsize=64)
def sheets(path: Path) -> tuple[Sheet, ...]:
    """Every sheet of an xlsx file, in the workbook's order (blank trailing rows dropped)."""
    try:
        import openpyxl
    except ImportError:
        raise ConfigError(
            "reading ObfusEval's published files needs openpyxl — "
            "pip install 'beyondpass[obfuseval]'"
        ) from None
    from openpyxl.utils.exceptions import InvalidFileException

    bad = (OSError, KeyError, ValueError, zipfile.BadZipFile, InvalidFileException)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    except bad as exc:
        raise DataError(f"{path}: not a readable xlsx file ({type(exc).__name__}: {exc})") from None
    try:
        found = []
        for sheet in book.worksheets:
            rows = [tuple(row) for row in sheet.iter_rows(values_only=True)]
            while rows and all(value is None for value in rows[-1]):
                rows.pop()
            header = rows[0] if rows else ()
            found.append(Sheet(sheet.title, header, tuple(rows[1:])))
        return tuple(found)
    finally:
        book.close()
