"""The one TOML reader: every way a user's file can be wrong is one line naming the file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError
from beyondpass.tomlfile import read_toml, read_toml_text


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        read_toml(path, "study file")
    message = str(caught.value)
    assert "\n" not in message and message.count(str(path)) == 1
    return message


def test_a_file_that_is_missing_unreadable_or_not_toml_is_one_line(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.toml") == f"study file {tmp_path / 'nope.toml'} does not exist"
    assert _error(tmp_path) == f"cannot read study file {tmp_path}: Is a directory"
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n')
    assert _error(latin).startswith(f"cannot read study file {latin}: not UTF-8 text")
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "x"\n[[benchmarks]\n', encoding="utf-8")
    message = _error(broken)
    assert message.startswith(f"study file {broken}: invalid TOML (") and "line 2" in message


def test_the_text_is_the_files_bytes(tmp_path: Path) -> None:
    """Callers hash the text (the templates' recorded sha256): no newline translation."""
    data = b'name = "x"\r\n[frames]\r\n'
    (tmp_path / "t.toml").write_bytes(data)
    raw, text = read_toml_text(tmp_path / "t.toml", "prompt template file")
    assert raw == {"name": "x", "frames": {}}
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == hashlib.sha256(data).hexdigest()
