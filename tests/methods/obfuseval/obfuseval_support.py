"""Project mode's support modules as they run in a sandbox, for the tests that load them
without one: there each imports the others under its copied name (``_beyondpass_*``), so
the codec needs ``_beyondpass_classes`` before it loads."""

from __future__ import annotations

import importlib
import sys

from beyondpass.execution import wire
from beyondpass.methods.obfuseval.project import classes

sys.modules.setdefault("_beyondpass_classes", classes)

from beyondpass.methods.obfuseval.project import codec  # noqa: E402


def copied(monkeypatch, name: str, as_name: str):
    """A support module as it runs in a sandbox: loaded under its copied name."""
    module = importlib.reload(
        importlib.import_module(f"beyondpass.methods.obfuseval.project.{name}")
    )
    monkeypatch.setitem(sys.modules, as_name, module)
    return module


#: the support modules both copies get, in the order they import one another
ORDER = ("classes", "callables", "refs", "state", "kinds", "liveness", "changes", "deltas",
         "mirror", "session")  # fmt: skip


def copied_all(monkeypatch) -> dict:
    """Every support module of both copies, loaded under its copied name: name -> module."""
    monkeypatch.setitem(sys.modules, "_beyondpass_codec", codec)
    monkeypatch.setitem(sys.modules, "_beyondpass_wire", wire)
    return {name: copied(monkeypatch, name, f"_beyondpass_{name}") for name in ORDER}


__all__ = ["codec", "copied", "copied_all"]
