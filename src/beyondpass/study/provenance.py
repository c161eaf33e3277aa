"""What a result was produced with: versions of beyondpass, Python and every tool involved."""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import beyondpass

TRACKED_PACKAGES = (
    "openai",
    "anthropic",
    "numpy",
    "matplotlib",
    "jinja2",
    "rich",
    "click",
    "pylint",
    "astroid",
    "radon",
)


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def environment() -> dict[str, Any]:
    return {
        "beyondpass": beyondpass.__version__,
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "packages": package_versions(),
    }


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
