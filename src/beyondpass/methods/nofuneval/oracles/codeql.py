"""The CodeQL CLI, used for the oracle when ``codeql`` is on PATH (as NoFunEval does).

One database per program (``codeql database create``), then the row's query
(``codeql database analyze ... --format=csv``); any result row is a finding. The row's
``codeql_check`` is a path inside the authors' CodeQL checkout (``codeql-home/codeql-repo/
...``, some queries are their own): it is resolved under ``$BEYONDPASS_CODEQL_REPO``; a
query file that is not there gives "no oracle" for the row, never a pass.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

PREFIX = "codeql-home/codeql-repo/"
#: most seconds one CodeQL command may take
TIMEOUT_S = 1800
REPO_ENV = "BEYONDPASS_CODEQL_REPO"


def available() -> bool:
    return shutil.which("codeql") is not None


def query_path(codeql_check: str, repo: str | None = None) -> Path | None:
    """The query file of ``codeql_check`` under the CodeQL checkout, if it exists."""
    root = repo or os.environ.get(REPO_ENV)
    if not root:
        return None
    rel = codeql_check.replace("\\ ", " ")
    rel = rel[len(PREFIX) :] if rel.startswith(PREFIX) else rel
    path = Path(root) / rel
    return path if path.is_file() else None


def commands(source_root: Path, db: Path, query: Path, out_csv: Path, lang: str) -> list[list[str]]:
    """The two command lines for one program (C is built with the fixed-dialect compiler)."""
    create = ["codeql", "database", "create", str(db), "--quiet", "--overwrite",
              f"--source-root={source_root}"]  # fmt: skip
    if lang == "python":
        create.append("--language=python")
    else:
        compiler = "g++" if lang == "c++" else "gcc"
        create += ["--language=cpp", f"--command={compiler} -c -w -o /dev/null prog.{_ext(lang)}"]
    analyze = ["codeql", "database", "analyze", str(db), str(query), "--format=csv",
               f"--output={out_csv}", "--rerun", "--threads=1"]  # fmt: skip
    return [create, analyze]


def _ext(lang: str) -> str:
    return {"python": "py", "c": "c", "c++": "cpp"}[lang]


def findings(workdir: Path, program: str, lang: str, query: Path) -> int:
    """Number of CodeQL results of ``query`` on ``program`` (-1: the database failed)."""
    src = workdir / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / f"prog.{_ext(lang)}").write_text(program, "utf-8")
    out_csv = workdir / "out.csv"
    for cmd in commands(src, workdir / "db", query, out_csv, lang):
        if subprocess.run(cmd, capture_output=True, timeout=TIMEOUT_S).returncode != 0:
            return -1
    with out_csv.open(encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.reader(fh))


def version() -> str:
    proc = subprocess.run(["codeql", "version", "--format=terse"], capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"
