"""The shared pylint runner: its messages equal the ``pylint`` command's with the same rc
file; a batch sees messages that relate modules; names are checked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from beyondpass.analysers import PylintPool, category_of, lint, pylintrc
from beyondpass.analysers.pylint_batch import describe

SMELLY = (
    '"""Doc."""\nimport os\n\n\ndef Grade(x):\n    """Doc."""\n'
    "    if x > 1:\n        return 1\n    else:\n        return nope\n"
)
BLOCK = "".join(
    f"def f{i}(a):\n    b = a * {i}\n    c = b + a\n    return c - {i}\n" for i in range(3)
)


def _command(path: Path, rc: str) -> list[tuple[str, int]]:
    rcfile = path.parent / "rc"
    rcfile.write_text(rc)
    proc = subprocess.run(
        [sys.executable, "-m", "pylint", f"--rcfile={rcfile}", "--output-format=json", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted((m["symbol"], m["line"]) for m in json.loads(proc.stdout))


def test_messages_equal_the_pylint_commands(tmp_path: Path) -> None:
    rc = pylintrc(("invalid-name",), ())
    (tmp_path / "smelly.py").write_text(SMELLY)
    result = lint({"smelly": SMELLY}, rc)["smelly"]
    assert result.messages is not None and not result.error
    got = sorted((m.symbol, m.line) for m in result.messages)
    assert got == _command(tmp_path / "smelly.py", rc)
    assert ("no-else-return", 7) in got and ("undefined-variable", 10) in got
    assert not any(symbol == "invalid-name" for symbol, _ in got)


def test_one_batch_sees_duplicate_code_across_its_files() -> None:
    found = lint({"a": BLOCK, "b": BLOCK}, pylintrc(("all",), ("duplicate-code",)))
    assert {m.symbol for r in found.values() for m in r.messages or []} == {"duplicate-code"}
    alone = lint({"a": BLOCK}, pylintrc(("all",), ("duplicate-code",)))
    assert alone["a"].messages == []


def test_keys_must_make_module_names() -> None:
    with pytest.raises(ValueError, match="not a module name: 'x-1'"):
        PylintPool(pylintrc()).run({"x-1": ""}, lambda k, r: None)


def test_configuration_is_described_as_pylint_sees_it(tmp_path: Path) -> None:
    described = describe(pylintrc(("all",), ("no-else-return", "invalid-name")), tmp_path)
    enabled = described["enabled_messages"]
    # pylint keeps a few messages about the run itself (syntax-error, ...) on regardless
    assert enabled["convention"] == ["C0103 invalid-name"]
    assert "R1705 no-else-return" in enabled["refactor"]
    assert "R0912 too-many-branches" not in enabled["refactor"]
    assert category_of("too-many-branches") == category_of("R0912") == "refactor"


def test_a_killed_harness_leaves_no_pylint_scratch_behind(tmp_path: Path) -> None:
    """A harness killed outright (SIGKILL: a resumable run stopped by its user) cannot clean
    up; its pylint worker sees the pipe close and removes its own scratch directory."""
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    script = (
        "import os, signal\n"
        "from beyondpass.analysers import PylintPool, pylintrc\n"
        "def die(key, result):\n"
        "    assert result.messages is not None\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        f"PylintPool(pylintrc()).run({{'a': {SMELLY!r}}}, die)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(scratch_root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    deadline = time.monotonic() + 60  # the orphaned worker's exit, not a speed check
    while any(scratch_root.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(scratch_root.iterdir())
