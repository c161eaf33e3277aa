"""The analyser process layer with real tools: a missing tool, a timeout, a memory limit and a
death by signal are each one precise line; what is recorded is what ran."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from beyondpass.analysers import (
    Analyser,
    AnalyserFailed,
    AnalyserMissing,
    require,
    run_process,
    version,
)
from beyondpass.errors import ConfigError


def test_a_missing_tool_is_one_line_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing installed
    with pytest.raises(AnalyserMissing) as exc:
        Analyser("cppcheck", purpose="code smells of C++").run(["a.cpp"], tmp_path)
    assert str(exc.value) == (
        "code smells of C++: cppcheck is not installed — apt-get install cppcheck"
    )
    assert isinstance(exc.value, ConfigError)  # the CLI's one line and exit code 2
    with pytest.raises(AnalyserMissing, match="pip install x-extra$"):
        require("clang-tidy", "here", install="pip install x-extra")


def test_a_python_tool_runs_with_this_interpreter() -> None:
    assert require("pylint", "here") == [sys.executable, "-m", "pylint"]


def test_a_timeout_is_one_line_naming_the_tool_and_the_limit(tmp_path: Path) -> None:
    with pytest.raises(AnalyserFailed, match=r"^sleeper did not finish within 0\.5 s$"):
        run_process("sleeper", ["sleep", "5"], tmp_path, timeout_s=0.5)


def test_the_memory_limit_holds(tmp_path: Path) -> None:
    """300 MB of bytes under a 200 MB address-space limit fails; without the limit, not."""
    grab = [sys.executable, "-c", "b = bytearray(300 * 1024 * 1024)"]
    limited = run_process("python", grab, tmp_path, timeout_s=60, memory_mb=200)
    assert limited.returncode != 0 and "MemoryError" in limited.stderr
    free = run_process("python", grab, tmp_path, timeout_s=60, memory_mb=None)
    assert free.returncode == 0


def test_a_death_by_signal_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AnalyserFailed, match=r"^crasher was killed by SIGKILL"):
        run_process("crasher", ["/bin/sh", "-c", "kill -9 $$"], tmp_path, timeout_s=10)


def test_the_process_runs_in_its_directory_without_stdin(tmp_path: Path) -> None:
    proc = run_process("sh", ["/bin/sh", "-c", "pwd; cat"], tmp_path, timeout_s=10)
    assert proc.stdout == f"{tmp_path}\n" and proc.returncode == 0


def test_the_record_is_what_runs(tmp_path: Path) -> None:
    ruff = Analyser("ruff", ("check", "--isolated"), after_files=("--quiet",), timeout_s=9)
    record = ruff.record()
    assert record["version"] == importlib.metadata.version("ruff")
    assert record["args"] == ["check", "--isolated", "<files>", "--quiet"]
    assert (record["timeout_s"], record["memory_mb"]) == (9, 4096)
    (tmp_path / "a.py").write_text("import os\n")
    proc = ruff.run(["a.py"], tmp_path)
    assert proc.returncode == 1 and "F401" in proc.stdout


def test_versions_of_installed_and_missing_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    assert version("pylint") == importlib.metadata.version("pylint")
    assert version("no-such-analyser") == "not installed"
