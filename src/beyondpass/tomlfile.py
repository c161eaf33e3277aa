"""Reading a TOML file the user gave us, with the project's one-line errors.

Study files, project descriptions and prompt template files are all read here, so a
missing, unreadable or malformed file is reported the same way whichever one it is: one
:class:`~beyondpass.errors.ConfigError` line naming what the file is and where it is.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """The parsed table of ``path``; ``what`` names the file in errors ("study file")."""
    return read_toml_text(path, what)[0]


def read_toml_text(path: str | Path, what: str) -> tuple[dict[str, Any], str]:
    """The parsed table and the exact text of ``path`` (no newline translation, so
    ``text.encode()`` is the file's bytes: callers hash or rewrite it)."""
    file = Path(path)
    try:
        text = file.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{what} {file} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {what} {file}: not UTF-8 text ({exc.reason})") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{what} {file}: invalid TOML ({exc})") from None
