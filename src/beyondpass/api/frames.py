"""pandas, an optional extra: the DataFrames of the Python API are built here.

beyondpass runs without pandas; only the methods that return a DataFrame need it. Without
it they raise :class:`~beyondpass.errors.MissingExtra`, one line naming the extra to
install, rather than an ``ImportError`` from deep inside; everything else (records, typed
rows, headline cells) works without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from beyondpass.errors import MissingExtra

if TYPE_CHECKING:
    import pandas

#: what to run to get pandas
PANDAS_INSTALL = "pip install 'beyondpass[pandas]'"


def require_pandas() -> ModuleType:
    """The pandas module, or a one-line error saying how to install it."""
    try:
        import pandas
    except ImportError:  # absent, or hidden (sys.modules["pandas"] = None)
        raise MissingExtra(
            f"a DataFrame needs pandas, which is not installed — {PANDAS_INSTALL} "
            "(or use .records() for the same rows as dicts)"
        ) from None
    return pandas


def records_frame(
    records: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> pandas.DataFrame:
    """A DataFrame of ``records`` (one row each, in order), with ``columns`` in that order
    (default: every key, in the order first seen)."""
    pd = require_pandas()
    rows = [dict(r) for r in records]
    if columns is None:
        columns = list(dict.fromkeys(k for r in rows for k in r))
    return pd.DataFrame.from_records(rows, columns=list(columns))


__all__ = ["PANDAS_INSTALL", "records_frame", "require_pandas"]
