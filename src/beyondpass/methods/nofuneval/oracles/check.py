"""Judging edited programs with the static oracle of their row's CodeQL query.

NoFunEval's rule: every source program has a finding of the row's query (that is how the
rows were chosen); an edit passes when the query finds nothing in it. With a stand-in the
precondition is checked, not assumed: a row whose *source* the stand-in does not flag gets
"no oracle" (the stand-in cannot see that weakness there, so a pass would mean nothing).

Verdict per edit, in order: no stand-in (or CodeQL query file) -> ``no_oracle``; source
not flagged -> ``no_oracle``; no program -> ``fail``; Python that does not parse -> ``fail``
(NoFunEval's harness too: CodeQL reports the syntax error); C/C++ that ``gcc
-fsyntax-only`` rejects -> ``fail`` (compat: ``pass``, as NoFunEval's build drops the file
before CodeQL sees it); a mapped rule in the edit -> ``fail``; else ``pass``.
"""

from __future__ import annotations

import ast
import hashlib
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from beyondpass.methods.nofuneval.oracles import analysers, codeql
from beyondpass.methods.nofuneval.oracles.table import StandIn, query_name, stand_in

if TYPE_CHECKING:
    from beyondpass.execution import BatchContext

PASS, FAIL, NO_ORACLE = "pass", "fail", "no_oracle"
_LANG = {"python": "python", "c": "c", "c++": "c++", "cpp": "c++"}
_EXT = {"python": ".py", "c": ".c", "c++": ".cpp"}


@dataclass(frozen=True)
class OracleItem:
    pl: str
    codeql_check: str
    source: str
    edit: str | None  # None: no program was read from the answer


@dataclass(frozen=True)
class OracleVerdict:
    status: str  # pass | fail | no_oracle
    reason: str
    analyser: str = ""
    found: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return self.status == PASS

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"status": self.status, "reason": self.reason}
        if self.analyser:
            out["analyser"] = self.analyser
        if self.found:
            out["found"] = list(self.found)
        return out


def engine(use_codeql: bool | None = None) -> str:
    """``codeql`` when the CLI is on PATH (unless ``use_codeql`` is False), else ``open``."""
    if use_codeql is None:
        use_codeql = codeql.available()
    return "codeql" if use_codeql else "open"


def parses(program: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


class KnownFindings:
    """What the analysers found in programs already analysed, across :func:`judge` calls:
    (program digest, analyser group, enabled rules) -> findings, and (digest, language) ->
    whether a C/C++ edit compiles. Table 1 judges the same sources in every file of a
    subset and mostly the same edits in both readings; with one of these each is analysed
    once. Exact because every stand-in rule is a file's own (no rule looks across files)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, tuple[str, ...]], set[str]] = {}
        self.compiled: dict[tuple[str, str], bool] = {}


class _Batch:
    """Every distinct program once, per analyser, in one scratch directory."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.names: dict[tuple[str, str], str] = {}
        self.digests: dict[str, str] = {}  # file name -> sha256 of its program
        self.groups: dict[str, list[str]] = defaultdict(list)
        self.pylint_rules: set[str] = set()
        self.found: dict[str, set[str]] = {}
        self.compiled: dict[str, bool] = {}
        self.to_compile: set[str] = set()  # C/C++ edits (sources need no compile check)

    def add(self, program: str, lang: str, analyser: str) -> str:
        key = (hashlib.sha256(program.encode("utf-8", "replace")).hexdigest(), lang)
        if key not in self.names:
            name = f"p{len(self.names)}{_EXT[lang]}"
            (self.workdir / name).write_text(program, "utf-8", errors="replace")
            self.names[key] = name
            self.digests[name] = key[0]
            group = f"cppcheck-{lang}" if analyser == "cppcheck" else analyser
            self.groups[group].append(name)
        return self.names[key]

    def run(self, known: KnownFindings) -> None:
        for group, names in self.groups.items():
            rules = tuple(sorted(self.pylint_rules)) if group == "pylint" else ()
            keys = {n: (self.digests[n], group, rules) for n in names}
            todo = [n for n in names if keys[n] not in known.found]
            if group == "bandit":
                found = analysers.bandit(self.workdir, todo)
            elif group == "pylint":
                found = analysers.pylint(self.workdir, todo, rules)
            else:
                found = analysers.cppcheck(self.workdir, todo, group == "cppcheck-c++")
            for name in todo:
                known.found[keys[name]] = found.get(name, set())
            self.found.update({n: known.found[keys[n]] for n in names})
            if group.startswith("cppcheck-"):
                self._compile(names, "c++" if group == "cppcheck-c++" else "c", known)

    def _compile(self, names: list[str], lang: str, known: KnownFindings) -> None:
        edits = {n: (self.digests[n], lang) for n in names if n in self.to_compile}
        todo = [n for n, key in edits.items() if key not in known.compiled]
        for name, ok in analysers.compiles(self.workdir, todo, lang).items():
            known.compiled[edits[name]] = ok
        self.compiled.update({n: known.compiled[key] for n, key in edits.items()})


def judge(
    items: Sequence[OracleItem],
    compat: bool = False,
    use_codeql: bool | None = None,
    known: KnownFindings | None = None,
) -> list[OracleVerdict]:
    """The oracle verdict of every edit (see the module docstring for the order of rules);
    ``known``: the stand-ins' findings of earlier calls, reused and added to."""
    with tempfile.TemporaryDirectory(prefix="bp-oracle-") as tmp:
        if engine(use_codeql) == "codeql":
            return [_judge_codeql(it, Path(tmp) / str(i), compat) for i, it in enumerate(items)]
        return _judge_open(items, Path(tmp), compat, known or KnownFindings())


def judge_batch(
    args: tuple[bool, bool], items: list[OracleItem], ctx: BatchContext
) -> list[OracleVerdict]:
    """The oracle as batch work (``execution.BatchJob``): ``args`` = (compat, use CodeQL),
    the engine chosen by the driver so every node judges with the same one. Verdicts do not
    depend on which items share a batch (the stand-ins' rules are each file's own)."""
    compat, use_codeql = args
    return judge(items, compat, use_codeql)


def tools(items: Sequence[OracleItem], use_codeql: bool) -> tuple[str, ...]:
    """The analysers judging ``items`` runs (a machine that is to judge them needs each):
    ``codeql``, or each stand-in's analyser, and the C/C++ compiler beside cppcheck."""
    if use_codeql:
        return ("codeql",)
    need: set[str] = set()
    for item in items:
        lang = _LANG.get(item.pl.lower(), "")
        standin = stand_in(item.codeql_check)
        if standin is None or not lang:
            continue
        if standin.analyser == "cppcheck" and lang != "python":
            need |= {"cppcheck", "g++" if lang == "c++" else "gcc"}
        elif standin.analyser != "cppcheck" and lang == "python" and parses(item.source):
            need.add(standin.analyser)
    return tuple(sorted(need))


def _judge_open(
    items: Sequence[OracleItem], workdir: Path, compat: bool, known: KnownFindings
) -> list[OracleVerdict]:
    batch = _Batch(workdir)
    plans: list[tuple[StandIn, str, str, str | None] | OracleVerdict] = []
    for item in items:
        lang = _LANG.get(item.pl.lower(), "")
        standin = stand_in(item.codeql_check)
        if standin is None:
            q = query_name(item.codeql_check)
            plans.append(OracleVerdict(NO_ORACLE, f"no stand-in for CodeQL query {q}"))
            continue
        wants = "python" if standin.analyser in ("bandit", "pylint") else "c"
        if lang == "" or (lang == "python") != (wants == "python"):
            plans.append(OracleVerdict(NO_ORACLE, f"{standin.analyser} does not analyse {item.pl}"))
            continue
        if standin.analyser == "pylint":
            batch.pylint_rules.update(standin.rules)
        if lang == "python" and not parses(item.source):
            plans.append(OracleVerdict(NO_ORACLE, "the source does not parse", standin.analyser))
            continue
        src = batch.add(item.source, lang, standin.analyser)
        edit = None
        if item.edit and item.edit.strip() and (lang != "python" or parses(item.edit)):
            edit = batch.add(item.edit, lang, standin.analyser)
            if lang != "python":
                batch.to_compile.add(edit)
        plans.append((standin, lang, src, edit))
    batch.run(known)
    return [p if isinstance(p, OracleVerdict) else _verdict(p, items[i], batch, compat)
            for i, p in enumerate(plans)]  # fmt: skip


def _verdict(
    plan: tuple[StandIn, str, str, str | None], item: OracleItem, batch: _Batch, compat: bool
) -> OracleVerdict:
    standin, lang, src, edit = plan
    rules = set(standin.rules)
    tool = standin.analyser
    if not rules & batch.found.get(src, set()):
        return OracleVerdict(
            NO_ORACLE, f"{tool} ({', '.join(standin.rules)}) does not flag the source", tool
        )
    if item.edit is None or not item.edit.strip():
        return OracleVerdict(FAIL, "no program", tool)
    if edit is None:
        return OracleVerdict(FAIL, "the edit does not parse", tool)
    if lang != "python" and not batch.compiled[edit]:
        if compat:
            return OracleVerdict(PASS, "does not compile (compat: passes, as in NoFunEval)", tool)
        return OracleVerdict(FAIL, "the edit does not compile", tool)
    hits = tuple(sorted(rules & batch.found.get(edit, set())))
    if hits:
        return OracleVerdict(FAIL, f"{', '.join(hits)} in the edit", tool, hits)
    return OracleVerdict(PASS, f"no {'/'.join(standin.rules)} finding in the edit", tool)


def _judge_codeql(item: OracleItem, workdir: Path, compat: bool) -> OracleVerdict:
    lang = _LANG.get(item.pl.lower(), "")
    query = codeql.query_path(item.codeql_check)
    if query is None or not lang:
        return OracleVerdict(
            NO_ORACLE, f"CodeQL query {query_name(item.codeql_check)} not found "
            f"(set {codeql.REPO_ENV} to the checkout holding it)", "codeql",
        )  # fmt: skip
    if codeql.findings(workdir / "source", item.source, lang, query) <= 0:
        return OracleVerdict(NO_ORACLE, "CodeQL does not flag the source", "codeql")
    if item.edit is None or not item.edit.strip():
        return OracleVerdict(FAIL, "no program", "codeql")
    if lang == "python" and not parses(item.edit):
        return OracleVerdict(FAIL, "the edit does not parse", "codeql")
    n = codeql.findings(workdir / "edit", item.edit, lang, query)
    if n < 0:  # the C build failed
        if compat:
            return OracleVerdict(
                PASS, "does not compile (compat: passes, as in NoFunEval)", "codeql"
            )
        return OracleVerdict(FAIL, "the edit does not compile", "codeql")
    if n:
        return OracleVerdict(FAIL, f"{n} CodeQL result(s) in the edit", "codeql")
    return OracleVerdict(PASS, "no CodeQL result in the edit", "codeql")


def metadata(use_codeql: bool | None = None) -> dict[str, object]:
    """What decided the verdicts (recorded beside the scores)."""
    if engine(use_codeql) == "codeql":
        return {"oracle_engine": "codeql", "codeql": codeql.version()}
    return {
        "oracle_engine": "open",
        "analysers": analysers.versions(),
        "analyser_runs": analysers.records(),
        "confinement": analysers.confinement(),
        "c_dialect": analysers.C_STD,
    }
