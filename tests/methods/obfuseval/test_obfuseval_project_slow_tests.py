"""Project mode leaves out tests that are slow across the process boundary, so that every
judged run keeps half its time limit in hand: the outcome plugin reports how long each
test took, and the crossing check leaves out the slowest until the rest fit.

The plugin runs here in a real pytest process (without a sandbox: it is the project's
test process that writes the rows, and the sandboxes are tested with the real projects).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from beyondpass.methods.obfuseval.project.runner import too_slow
from beyondpass.methods.obfuseval.project.testing import (
    PLUGIN,
    _drain,
    _install_plugin,
    _outcomes,
)
from beyondpass.methods.obfuseval.project.workspace import PLUGIN_DIR


def test_the_slowest_tests_are_left_out_until_the_rest_fit_in_half_the_limit():
    seconds = {"a": 10.0, "b": 50.0, "c": 30.0, "d": 0.2}
    slow = too_slow(seconds, 120)
    # 90.2 s in all: b alone goes (40.2 s left, within 60 s); c stays
    assert set(slow) == {"b"}
    assert slow["b"].startswith("slow: 50.0 s") and "120 s limit" in slow["b"]
    assert set(too_slow(seconds, 60)) == {"b", "c"}  # 10.2 s left of 30 s
    assert too_slow(seconds, 181) == {}
    # one test alone over half the limit leaves its task with none
    assert set(too_slow({"only": 70.0}, 120)) == {"only"}


def test_the_outcome_plugin_reports_what_each_test_took(tmp_path: Path):
    (tmp_path / "test_sample.py").write_text(
        textwrap.dedent(
            """
            import time

            def test_sleeps():
                time.sleep(0.3)

            def test_fails():
                assert 1 == 2

            def test_quick():
                pass
            """
        )
    )
    _install_plugin(tmp_path)
    read_end, write_end = os.pipe()
    received = bytearray()
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / PLUGIN_DIR),
        "BEYONDPASS_OUTCOMES_FD": str(write_end),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # as project mode runs the projects' tests
    }
    reader = threading.Thread(target=_drain, args=(read_end, received))
    reader.start()
    try:
        subprocess.run(
            [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", "-q"],
            cwd=tmp_path,
            env=env,
            pass_fds=(write_end,),
            capture_output=True,
            check=False,
        )
    finally:
        os.close(write_end)
        reader.join(30)
    seen = _outcomes(bytes(received))
    assert set(seen) == {f"test_sample.py::test_{n}" for n in ("sleeps", "fails", "quick")}
    assert seen["test_sample.py::test_sleeps"].seconds >= 0.3  # it slept that long
    assert seen["test_sample.py::test_fails"].error == "AssertionError"
    assert all(o.seconds > 0 for o in seen.values())
