"""ruff beside pylint for Python answers (``smells_python``): hand-written snippets that
trigger known rules, the equivalents counted once, a missing ruff, the recorded version.
Real pylint and ruff."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError
from beyondpass.methods.psb2.smells import SmellEvaluator, tally
from beyondpass.methods.psb2.smells_python import (
    PYLINT_EQUIVALENTS,
    level,
    ruff_command,
)

# written to trigger, by hand: `l` (E741, an ambiguous name), `> 42` (PLR2004, a magic
# value), getattr with a constant name (B009), a loop that appends (PERF401), a variable
# assigned only to be returned (RET504); pylint (defaults) reports none of these
RUFF_ONLY = textwrap.dedent(
    '''\
    """Doc."""


    def f(values, obj):
        """Doc."""
        l = len(values)
        if l > 42:
            print(getattr(obj, "name"))
        out = []
        for v in values:
            if v:
                out.append(v)
        total = sum(out)
        return total
    '''
)

# each construct is reported by both tools: an unused import (F401 / unused-import), a bare
# except (E722 / bare-except), `== None` (E711 / singleton-comparison), an else after a
# return (RET505 on the else line / no-else-return on the if line), an unused loop
# variable (B007 / unused-variable)
BOTH = textwrap.dedent(
    '''\
    """Doc."""
    import os


    def g(x):
        """Doc."""
        for i in range(3):
            print(x)
        try:
            x = int(x)
        except:
            x = 0
        if x == None:
            return 1
        else:
            return 2
    '''
)
BOTH_RUFF = {"F401", "E722", "E711", "RET505", "B007"}


def _findings(tmp_path: Path, **files: str) -> dict:
    paths = []
    for name, code in files.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
        paths.append(tmp_path / name)
    return SmellEvaluator().findings("python", paths)


def test_ruff_adds_the_rules_pylint_lacks_with_their_levels(tmp_path: Path) -> None:
    found = _findings(tmp_path, **{"a.py": RUFF_ONLY})
    metrics, rules = tally(found["a.py"])
    assert rules == {
        "ruff:E741": 1,
        "ruff:PLR2004": 1,
        "ruff:B009": 1,
        "ruff:PERF401": 1,
        "ruff:RET504": 1,
    }
    # B: warning; PERF, RET, PLR: refactor (as pylint classes such messages); E7: convention
    assert (metrics["smells_warning"], metrics["smells_refactor"]) == (1, 3)
    assert (metrics["smells_convention"], metrics["smells"]) == (1, 5)


def test_a_finding_both_tools_make_is_counted_once_as_pylints(tmp_path: Path) -> None:
    found = _findings(tmp_path, **{"b.py": BOTH})
    _, rules = tally(found["b.py"])
    assert not [r for r in rules if r.startswith("ruff:")], rules
    for code in BOTH_RUFF:
        assert f"{PYLINT_EQUIVALENTS[code]} (" in " ".join(rules), code
    # the pairs are real: ruff alone, asked for exactly these rules, reports each of them
    proc = subprocess.run(
        [ruff_command(), "check", "--isolated", "--no-cache", "--output-format=json"]
        + [f"--select={','.join(sorted(BOTH_RUFF))}", str(tmp_path / "b.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert {m["code"] for m in json.loads(proc.stdout)} == BOTH_RUFF


def test_ruff_syntax_errors_leave_the_fatal_reading_to_pylint(tmp_path: Path) -> None:
    found = _findings(tmp_path, **{"c.py": "def f(:\n    pass\n"})
    _, rules = tally(found["c.py"])
    assert rules == {"syntax-error (E0001)": 1}


def test_levels_cover_every_selected_family() -> None:
    assert level("E902") == "fatal"
    assert level("F822") == "error" and level("F704") == "error"
    assert level("F811") == "warning" and level("B009") == "warning"
    assert level("E741") == "convention" and level("E402") == "convention"
    assert {level(c) for c in ("C401", "PERF203", "RET504", "SIM108", "PLR2004")} == {"refactor"}
    with pytest.raises(ValueError, match="outside the selection"):
        level("UP008")


def test_a_missing_ruff_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no ruff package (an import of it fails) and nothing on PATH: ruff is not installed
    monkeypatch.setitem(sys.modules, "ruff.__main__", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ConfigError) as exc:
        _findings(tmp_path, **{"a.py": "x = 1\n"})
    assert "\n" not in str(exc.value) and "pip install ruff" in str(exc.value)


def test_the_ruff_version_and_arguments_are_recorded() -> None:
    meta = SmellEvaluator().metadata()
    assert meta["ruff"] == importlib.metadata.version("ruff")
    assert "--isolated" in meta["ruff_args"]
    assert any(a.startswith("--ignore=") and "F401" in a for a in meta["ruff_args"])
