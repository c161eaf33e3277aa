"""Rich progress bars on stderr (silent when stderr is not a terminal)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

stderr = Console(stderr=True)


class RichProgress:
    def __init__(self, enabled: bool = True) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=stderr,
            disable=not (enabled and stderr.is_terminal),
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def start(self, label: str, total: int) -> None:
        if label in self._tasks:
            self._progress.reset(self._tasks[label], total=total)
        else:
            self._tasks[label] = self._progress.add_task(label, total=total)

    def advance(self, label: str, n: int = 1) -> None:
        if label in self._tasks:
            self._progress.advance(self._tasks[label], n)

    def note(self, message: str) -> None:
        stderr.print(message)
