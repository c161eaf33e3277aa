"""Progress reporting as a tiny interface, so the runner stays free of terminal concerns."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def start(self, label: str, total: int) -> None: ...
    def advance(self, label: str, n: int = 1) -> None: ...
    def note(self, message: str) -> None: ...


class NullProgress:
    """Silent progress, for library use and tests."""

    def start(self, label: str, total: int) -> None:
        pass

    def advance(self, label: str, n: int = 1) -> None:
        pass

    def note(self, message: str) -> None:
        pass
