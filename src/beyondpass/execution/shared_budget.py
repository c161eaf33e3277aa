"""A verdict that does not depend on the neighbours, where every sandbox shares one budget.

Under the ``enclosing`` budget (the cgroup of the container or service beyondpass runs in)
all sandboxes of a run draw on one task and memory limit. A fork bomb in one sample then
uses up what a sample beside it needs: that sample's forks wait for room, and it times out
through no fault of its own. So a sample that did not pass while the shared limit was met
is judged again *alone*: the samples in flight finish, new ones wait, and the budget has
room again before it starts. A pass is kept as it is (every test really ran). The cost
falls on runs where a limit was met, and mostly on the sample that met it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from beyondpass.execution.base import ExecutionResult
from beyondpass.execution.cgroups import Enclosing

#: how long a sample judged again alone waits for the shared budget to have room
ROOM_TIMEOUT_S = 60.0
JUDGED_ALONE = "judged again alone: the run's shared process budget ran out while it ran"


class Turns:
    """Samples run side by side (``shared``) or one at a time (``alone``); a sample waiting
    to run alone goes before samples that have not started yet."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0
        self._alone = False
        self._waiting_alone = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not (self._alone or self._waiting_alone))
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        with self._changed:
            self._waiting_alone += 1
            self._changed.wait_for(lambda: not (self._alone or self._running))
            self._waiting_alone -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._changed:
                self._alone = False
                self._changed.notify_all()


class SharedBudget:
    """Judges samples under one enclosing budget (see the module docstring)."""

    def __init__(self, enclosure: Enclosing) -> None:
        self.enclosure = enclosure
        self.turns = Turns()

    def judge(self, run: Callable[[], ExecutionResult]) -> ExecutionResult:
        with self.turns.shared():
            before = self.enclosure.limits_met()
            result = run()
            met = self.enclosure.limits_met() != before
        if result.passed or not met:
            return result
        with self.turns.alone():
            self._wait_for_room()
            again = run()
        if not again.passed:
            again.message = f"{again.message} ({JUDGED_ALONE})".lstrip()
        return again

    def _wait_for_room(self) -> None:
        """Until what the other samples left (processes the machine's init has yet to
        collect) fills at most half of the shared task limit."""
        limit = self.enclosure.pids_max or 0
        deadline = time.monotonic() + ROOM_TIMEOUT_S
        while self.enclosure.tasks() > limit // 2 and time.monotonic() < deadline:
            time.sleep(0.05)
