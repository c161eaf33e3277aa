"""The layering contract (pyproject.toml, [tool.importlinter]) holds, and it has teeth.

Generic packages must reach methods only through beyondpass.registry. The contract is
checked by import-linter on the real source tree; a copy of the tree with one forbidden
import added proves the check fails when the rule is broken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "beyondpass"


def lint_imports(config: Path, cwd: Path, pythonpath: Path | None = None) -> tuple[int, str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_layering_contract_holds() -> None:
    code, out = lint_imports(REPO / "pyproject.toml", REPO)
    assert code == 0, out
    assert "Generic packages import no method KEPT" in out
    assert "Methods do not import each other KEPT" in out


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        (
            "study/runner.py",
            "from beyondpass.methods.robunfr.evaluators.nfr import NfrEvaluator",
            "beyondpass.study.runner -> beyondpass.methods.robunfr.evaluators.nfr",
        ),
        (
            "methods/robunfr/evaluation.py",
            "import beyondpass.methods.robustapi.components",
            "beyondpass.methods.robunfr.evaluation -> beyondpass.methods.robustapi.components",
        ),
        (  # a method reaching the sandbox builder past the public execution API
            "methods/obfuseval/project/workspace.py",
            "from beyondpass.execution.sandbox import command",
            "beyondpass.methods.obfuseval.project.workspace -> beyondpass.execution.sandbox",
        ),
        (  # the registry reaching back up into analysis: the cycle the specs once had
            "registry/__init__.py",
            "from beyondpass.analysis.headline import headline_cells",
            "beyondpass.registry -> beyondpass.analysis.headline",
        ),
        (  # metric definitions importing the headline cells built on them
            "analysis/metrics.py",
            "from beyondpass.analysis.headline import headline_cells",
            "beyondpass.analysis.metrics -> beyondpass.analysis.headline",
        ),
        (  # NoFunEval's exports importing the answers-file kind above them
            "methods/nofuneval/files/exports.py",
            "from beyondpass.methods.nofuneval.files.answer_file import GenerationsFile",
            "beyondpass.methods.nofuneval.files.exports -> "
            "beyondpass.methods.nofuneval.files.answer_file",
        ),
    ],
)
def test_contract_fails_when_broken(tmp_path: Path, module: str, line: str, broken: str) -> None:
    """A copy of the package with one forbidden import: the same contract reports it."""
    shutil.copytree(SRC, tmp_path / "src" / "beyondpass", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "src" / "beyondpass" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    code, out = lint_imports(tmp_path / "pyproject.toml", tmp_path, tmp_path / "src")
    assert code != 0, out
    words = " ".join(out.split())  # the report wraps long lines
    assert "BROKEN" in words and broken in words, out


def test_command_modules_do_not_import_the_application() -> None:
    """cli/app.py assembles the commands; no command module imports it back (no cycle)."""
    graph = grimp.build_graph("beyondpass")
    importers = graph.find_modules_that_directly_import("beyondpass.cli.app")
    assert importers - {"beyondpass.__main__"} == set()
    assert graph.find_shortest_chain("beyondpass.prompts.plan", "beyondpass.methods") is None
