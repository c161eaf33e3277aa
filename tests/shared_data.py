"""The shared data the tests read: present, or the test fails on CI and skips elsewhere."""

from __future__ import annotations

import os
import pathlib

import pytest


def require(path: pathlib.Path, what: str) -> pathlib.Path:
    """``path`` when it exists; otherwise fail the test under CI (``CI=true``: data that CI
    must have is missing) and skip it elsewhere."""
    if not path.exists():
        message = f"{what} not found at {path} (set BEYONDPASS_DATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path
