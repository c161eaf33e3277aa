"""Stop a real ``beyondpass`` command at a known point, so a test can SIGKILL it there.

``python PAUSE_SCRIPT ARGS...`` runs ``beyondpass ARGS...``; once the store has taken
``PAUSE_AFTER`` evaluations of evaluator ``PAUSE_EVALUATOR``, it writes ``PAUSE_MARKER``
(the keys stored so far, one per line) and waits forever. The test waits for the marker,
kills the process group and runs the command again: what a kill mid-run leaves behind,
without guessing when "mid-run" is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

PAUSE_SCRIPT = """
import os, sys, threading


def pause_after_evaluations():
    from beyondpass.store import run_store

    marker = os.environ["PAUSE_MARKER"]
    evaluator, after = os.environ["PAUSE_EVALUATOR"], int(os.environ["PAUSE_AFTER"])
    store_evaluation = run_store.RunStore.put_evaluation
    stored = []

    def put_evaluation(self, e):
        store_evaluation(self, e)
        if e.evaluator == evaluator:
            stored.append(e.key)
            if len(stored) >= after:
                # written whole, then renamed: the test sees the marker only once it is complete
                with open(marker + ".part", "w") as fh:
                    fh.write("\\n".join(stored) + "\\n")
                os.replace(marker + ".part", marker)
                threading.Event().wait()

    run_store.RunStore.put_evaluation = put_evaluation


if __name__ == "__main__":
    pause_after_evaluations()
    from beyondpass.cli.app import main

    sys.argv = ["beyondpass", *sys.argv[1:]]
    main()
"""


def run_until_paused(
    args: Sequence[str | os.PathLike[str]],
    cwd: Path,
    evaluator: str,
    after: int,
    while_paused: Callable[[], None] | None = None,
) -> list[str]:
    """Run ``beyondpass args`` until ``after`` evaluations of ``evaluator`` are stored, then
    SIGKILL it (and its process group); the keys stored before the kill. ``while_paused``
    is called once the command is paused, before the kill (to look at what it runs)."""
    script = cwd / "pause_after_evaluations.py"
    script.write_text(PAUSE_SCRIPT, encoding="utf-8")
    marker = cwd / "paused.txt"
    marker.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PAUSE_MARKER": str(marker),
        "PAUSE_EVALUATOR": evaluator,
        "PAUSE_AFTER": str(after),
    }
    proc = subprocess.Popen(
        [sys.executable, str(script), *map(str, args)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the kill reaches its workers too
    )
    try:
        for _ in range(6000):  # a guard against hanging forever, not a timing assertion
            if marker.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), proc.stderr.read().decode() if proc.poll() is not None else ""
        if while_paused is not None:
            while_paused()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
    return marker.read_text().split()
