"""``fork()`` that waits for room in the sandbox's process budget.

The processes of a sample that just ended (a fork bomb's, say) count against the budget
until they are reaped, and a budget shared with other sandboxes (an enclosing container's)
can be full for a moment: a fork the kernel refuses for want of room is retried until a
deadline instead of deciding a verdict. Used by the fork server (a sample's process) and
the compiled runner (the program's process).

This file must import nothing from beyondpass: it runs in the sandboxed interpreter.
"""

import errno
import os
import time

RETRY_S = 30.0  # a budget that stays full this long is not freeing up


def fork(deadline: float) -> "tuple[int, OSError | None]":
    """``os.fork()``, retried while the kernel says there is no room (``EAGAIN``) and
    ``deadline`` has not passed -> (pid, None), or (-1, the last error)."""
    delay = 0.01
    while True:
        try:
            return os.fork(), None
        except OSError as exc:
            if exc.errno != errno.EAGAIN or time.monotonic() > deadline:
                return -1, exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
