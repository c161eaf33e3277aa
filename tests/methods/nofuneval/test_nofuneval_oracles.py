"""NoFunEval's static oracle with the real analysers (bandit, cppcheck, gcc) on real rows and
on hand-written programs; DiffBLEU x oracle per sample; CodeQL's command line; errors."""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from beyondpass.methods.nofuneval.oracles import analysers, codeql
from beyondpass.methods.nofuneval.oracles.check import KnownFindings, OracleItem, engine, judge
from beyondpass.methods.nofuneval.oracles.table import (
    SECURITY,
    STAND_INS,
    UNMAPPED,
    query_name,
    stand_in,
)
from nofuneval_data import nofuneval_dir, rows
from nofuneval_helpers import need_analysers, score_cli

SQL = "codeql-home/codeql-repo/python/ql/src/Security/CWE-089/SqlInjection.ql"
WORLD = "codeql-home/codeql-repo/cpp/ql/src/Security/CWE/CWE-732/DoNotCreateWorldWritable.ql"
NULLTEST = "codeql-home/codeql-repo/cpp/ql/src/Critical/MissingNullTest.ql"


@pytest.fixture(scope="module")
def security():
    """Every security row judged twice in one batch: its target and its source as the edit."""
    need_analysers("cppcheck", "gcc")
    data = rows("security.jsonl")
    items = [
        OracleItem(r["pl"], r["codeql_check"], r["source_code"], r["target_code"]) for r in data
    ]
    items += [
        OracleItem(r["pl"], r["codeql_check"], r["source_code"], r["source_code"]) for r in data
    ]
    verdicts = judge(items, use_codeql=False)
    return data, verdicts[: len(data)], verdicts[len(data) :]


def test_query_names_as_the_authors_key_them():
    assert query_name(SQL) == "SqlInjection"
    assert (
        query_name(r"codeql-home/codeql-repo/cpp/ql/src/Likely\ Bugs/Memory\ Management/"
                   "PotentialBufferOverflow.ql")
        == "PotentialBufferOverflow"
    )  # fmt: skip
    assert stand_in("x/NoSuchQuery.ql") is None


def test_every_security_query_is_mapped_or_listed_unmapped():
    queries = {query_name(r["codeql_check"]) for r in rows("security.jsonl")}
    assert queries <= set(SECURITY) | set(UNMAPPED)
    assert not set(SECURITY) & set(UNMAPPED)
    for s in STAND_INS.values():
        assert s.analyser in ("bandit", "cppcheck", "pylint") and s.rules
        assert s.fidelity in ("close", "partial", "weak")


def test_targets_pass_and_sources_fail_on_real_rows(security):
    data, on_target, on_source = security
    judged = 0
    for n, (row, t, s) in enumerate(zip(data, on_target, on_source, strict=True)):
        query = query_name(row["codeql_check"])
        if query in UNMAPPED:
            assert t.status == s.status == "no_oracle" and "no stand-in" in t.reason
            continue
        if s.status == "no_oracle":  # the stand-in is blind to this row's source
            assert t.status == "no_oracle" and "does not flag the source" in s.reason
            continue
        judged += 1
        assert s.status == "fail", (n, s)
        assert set(s.found) <= set(STAND_INS[query].rules)
        if n == 11:  # the dataset's own target is not Python (docs/nofuneval-oracles.md)
            with pytest.raises(SyntaxError):
                ast.parse(row["target_code"])
            assert t.status == "fail" and "does not parse" in t.reason
        else:
            assert t.status == "pass", (n, t)
    assert judged >= 20  # most mapped rows are judged, not waved through as "no oracle"


def test_world_writable_and_sql_rows_are_all_judged(security):
    data, _, on_source = security
    for row, s in zip(data, on_source, strict=True):
        if query_name(row["codeql_check"]) in ("DoNotCreateWorldWritable", "SqlInjection"):
            assert s.status == "fail"


SQL_FORMAT = """import sqlite3

def find(conn, name):
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE name = '%s'" % name)
    return cur.fetchall()
"""
SQL_PARAM = SQL_FORMAT.replace(
    """cur.execute("SELECT * FROM users WHERE name = '%s'" % name)""",
    """cur.execute("SELECT * FROM users WHERE name = ?", (name,))""",
)
WORLD_C = """#include <fcntl.h>
#include <unistd.h>
int main(void) {
    int fd = open("config", O_WRONLY | O_CREAT, 0666);
    close(fd);
    return 0;
}
"""
PRIVATE_C = WORLD_C.replace("0666", "0600")
BROKEN_C = PRIVATE_C.replace("close(fd);", "close(fd)")  # missing semicolon


def test_hand_written_sql_injection_vs_parameterised_query():
    need_analysers()
    got = judge(
        [OracleItem("python", SQL, SQL_FORMAT, e) for e in (SQL_FORMAT, SQL_PARAM)],
        use_codeql=False,
    )
    assert [v.status for v in got] == ["fail", "pass"]
    assert got[0].found == ("B608",) and got[0].analyser == "bandit"


def test_hand_written_world_writable_file_and_a_non_compiling_edit():
    need_analysers("cppcheck", "gcc")
    items = [
        OracleItem("c", WORLD, WORLD_C, WORLD_C),
        OracleItem("c", WORLD, WORLD_C, PRIVATE_C),
        OracleItem("c", WORLD, WORLD_C, BROKEN_C),
        OracleItem("c", WORLD, WORLD_C, ""),
        OracleItem("c", WORLD, WORLD_C, None),
    ]
    default = judge(items, use_codeql=False)
    assert [v.status for v in default] == ["fail", "pass", "fail", "fail", "fail"]
    assert default[0].found == ("bpWorldWritableMode",)
    assert "does not compile" in default[2].reason
    compat = judge(items, compat=True, use_codeql=False)
    assert [v.status for v in compat] == ["fail", "pass", "pass", "fail", "fail"]


def test_fopen_counts_as_world_writable_unless_umask_is_set():
    need_analysers("cppcheck", "gcc")
    fopen = '#include <stdio.h>\nint main(void) {\n    fclose(fopen("c", "w"));\n    return 0;\n}\n'
    umask = fopen.replace(
        "int main(void) {\n", "#include <sys/stat.h>\nint main(void) {\n    umask(077);\n"
    )
    reading = fopen.replace('"w"', '"r"')
    got = judge(
        [OracleItem("c", WORLD, fopen, e) for e in (fopen, umask, reading)], use_codeql=False
    )
    assert [v.status for v in got] == ["fail", "pass", "pass"]


def test_missing_null_test_rule():
    need_analysers("cppcheck", "gcc")
    bad = (
        "#include <stdlib.h>\ntypedef struct { int s; } P;\n"
        "int main(void) {\n    P *p = malloc(sizeof(P));\n    p->s = 0;\n"
        "    free(p);\n    return 0;\n}\n"
    )
    guarded = bad.replace("    p->s = 0;", "    if (p == NULL) return 1;\n    p->s = 0;")
    got = judge([OracleItem("c", NULLTEST, bad, e) for e in (bad, guarded)], use_codeql=False)
    assert [v.status for v in got] == ["fail", "pass"]


def test_unmapped_query_and_unflagged_source_are_no_oracle_never_pass():
    need_analysers("cppcheck", "gcc")
    got = judge(
        [
            OracleItem("c", "x/ArithmeticTainted.ql", WORLD_C, PRIVATE_C),
            OracleItem("c", WORLD, PRIVATE_C, PRIVATE_C),  # the source is not flagged
            OracleItem("python", WORLD, SQL_FORMAT, SQL_PARAM),  # a C query on Python
        ],
        use_codeql=False,
    )
    assert [v.status for v in got] == ["no_oracle"] * 3
    assert not any(v.passed for v in got)


def test_without_codeql_the_open_analysers_are_used(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert engine() == "open" and not codeql.available()
    # a stand-in executable named codeql (the real CLI is not installable here) selects it
    stub = tmp_path / "codeql"
    stub.write_text("#!/bin/sh\nexit 1\n")
    stub.chmod(0o755)
    assert engine() == "codeql" and engine(use_codeql=False) == "open"


def test_codeql_command_line_and_query_resolution(tmp_path, monkeypatch):
    query = (
        tmp_path / "repo" / "cpp/ql/src/Likely Bugs/Memory Management/PotentialBufferOverflow.ql"
    )
    query.parent.mkdir(parents=True)
    query.write_text("select 1")
    check = (
        r"codeql-home/codeql-repo/cpp/ql/src/Likely\ Bugs/Memory\ Management/"
        "PotentialBufferOverflow.ql"
    )
    monkeypatch.setenv(codeql.REPO_ENV, str(tmp_path / "repo"))
    assert codeql.query_path(check) == query
    assert codeql.query_path(SQL) is None  # not in that checkout: "no oracle"
    create, analyze = codeql.commands(
        tmp_path / "src", tmp_path / "db", query, tmp_path / "o.csv", "c"
    )
    assert create[:4] == ["codeql", "database", "create", str(tmp_path / "db")]
    assert "--language=cpp" in create and "--command=gcc -c -w -o /dev/null prog.c" in create
    assert analyze[:4] == ["codeql", "database", "analyze", str(tmp_path / "db")]
    assert str(query) in analyze and "--format=csv" in analyze
    py_create, _ = codeql.commands(tmp_path / "s", tmp_path / "d", query, tmp_path / "o", "python")
    assert "--language=python" in py_create and not any(
        a.startswith("--command") for a in py_create
    )


def test_missing_analyser_is_one_line_naming_the_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(analysers.AnalyserMissing, match="apt-get install cppcheck"):
        judge([OracleItem("c", WORLD, WORLD_C, PRIVATE_C)], use_codeql=False)


def test_evaluator_metrics_per_sample():
    need_analysers("cppcheck", "gcc")
    from beyondpass.evaluators.base import Candidate
    from beyondpass.methods.nofuneval.benchmark import load_subset
    from beyondpass.methods.nofuneval.extraction.answers import extract_edit
    from beyondpass.methods.nofuneval.oracles.evaluator import OracleEvaluator, OracleOptions

    tasks = load_subset("security", nofuneval_dir().parent).tasks
    sql, unmapped = tasks["8"], tasks["0"]
    fence = "```python\n{}\n```"
    cands = [
        Candidate(sql, extract_edit(fence.format(sql.metadata["target_code"]), sql)),
        Candidate(sql, extract_edit(fence.format(sql.metadata["source_code"]), sql)),
        Candidate(
            unmapped, extract_edit("```c\n" + unmapped.metadata["target_code"] + "\n```", unmapped)
        ),
    ]
    got = OracleEvaluator(OracleOptions(engine="open")).evaluate(cands)
    assert got[0].metrics == {"oracle_pass": 1, "diffbleu_x_oracle": pytest.approx(1.0)}
    assert got[1].metrics == {"oracle_pass": 0, "diffbleu_x_oracle": 0.0}
    assert got[2].metrics == {} and got[2].details["oracle"] == "no_oracle"
    assert all(e.status is None for e in got)  # adds metrics, never decides the verdict


def test_cli_multiplies_each_samples_own_diffbleu_and_oracle(run_cli, tmp_path):
    need_analysers("cppcheck", "gcc")
    data = rows("security.jsonl")
    lines = []
    for n in (8, 21):  # SqlInjection, Jinja2WithoutEscaping: source first, then target
        for field in ("source_code", "target_code"):
            lines.append({"row": n, "generation": "```python\n" + data[n][field] + "\n```"})
    lines.append({"row": 0, "generation": "```c\n" + data[0]["target_code"] + "\n```"})
    gens = tmp_path / "g.jsonl"
    gens.write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = score_cli(
        run_cli,
        tmp_path,
        "--subset",
        "security",
        "--generations",
        gens,
        "--out",
        tmp_path / "o",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    scored = [json.loads(x) for x in (tmp_path / "o/scores.jsonl").read_text().splitlines()]
    assert [s["oracle"]["status"] for s in scored] == ["fail", "pass", "fail", "pass", "no_oracle"]
    assert [s["diffbleu_x_oracle"] for s in scored[:4]] == [0.0, pytest.approx(1.0)] * 2
    assert scored[4]["diffbleu_x_oracle"] is None
    summary = json.loads(proc.stdout)
    assert summary["oracle_samples"] == 4 and summary["no_oracle_samples"] == 1
    assert summary["oracle_pass_rate"] == pytest.approx(0.5)
    # per sample: score@1 is the mean of [0, 1] per row; score@2 the best of both = 1. The
    # authors' pairing (oracle sorted, DiffBLEU not) would give [0*1, 1*0] -> 0 for both.
    assert summary["diffbleu_x_oracle_score@1"] == pytest.approx(0.5)
    assert summary["diffbleu_x_oracle_score@2"] == pytest.approx(1.0)
    assert summary["oracle_engine"] == "open" and summary["analysers"]["bandit"]


def test_cli_missing_analyser_exits_2_and_keeps_old_scores(run_cli, tmp_path):
    data = rows("security.jsonl")
    gens = tmp_path / "g.jsonl"
    gens.write_text(
        json.dumps({"row": 25, "generation": "```c\n" + data[25]["target_code"] + "\n```"}) + "\n"
    )
    bin_dir = tmp_path / "bin"  # git and the compiler, but no cppcheck
    bin_dir.mkdir()
    for tool in ("git", "gcc", "bwrap"):
        if shutil.which(tool):
            (bin_dir / tool).symlink_to(shutil.which(tool))
    out = tmp_path / "o"
    out.mkdir()
    (out / "scores.jsonl").write_text("kept\n")
    path = f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}"
    proc = score_cli(
        run_cli,
        tmp_path,
        "--subset",
        "security",
        "--generations",
        gens,
        "--out",
        out,
        env={"PATH": path},
    )
    assert proc.returncode == 2, proc.stderr
    assert "cppcheck" in proc.stderr and "apt-get install cppcheck" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert (out / "scores.jsonl").read_text() == "kept\n"


def test_maintainability_query_through_pylint():
    query = "codeql-home/codeql-repo/python/ql/src/Imports/UnusedImport.ql"
    source = "import os\nimport sys\n\nprint(sys.argv)\n"
    fixed = "import sys\n\nprint(sys.argv)\n"
    broken = "import sys\n\nprint(sys.argv\n"
    items = [OracleItem("python", query, source, e) for e in (source, fixed, broken)]
    got = judge(items, use_codeql=False)
    assert [v.status for v in got] == ["fail", "pass", "fail"]
    assert got[0].found == ("unused-import",) and got[0].analyser == "pylint"


#: query -> (a source CodeQL's query flags, the same program fixed), hand-written
MAINTAINABILITY_CASES = {
    "UnintentionalImplicitStringConcatenation": (
        'NAMES = [\n    "alpha",\n    "beta"\n    "gamma",\n]\nprint(NAMES)\n',
        'NAMES = [\n    "alpha",\n    "beta",\n    "gamma",\n]\nprint(NAMES)\n',
    ),
    "CallToSuperWrongClass": (
        "class A:\n    def f(self):\n        return 1\n\n\nclass B(A):\n    pass\n\n\n"
        "class C(A):\n    def f(self):\n        return super(B, self).f()\n",
        "class A:\n    def f(self):\n        return 1\n\n\nclass B(A):\n    pass\n\n\n"
        "class C(A):\n    def f(self):\n        return super().f()\n",
    ),
    "NotImplementedIsNotAnException": (
        "def area():\n    raise NotImplemented\n",
        "def area():\n    raise NotImplementedError\n",
    ),
    "GlobalAtModuleLevel": ("global COUNT\nCOUNT = 0\n", "COUNT = 0\n"),
    "UseImplicitNoneReturnValue": (
        "def log(msg):\n    print(msg)\n\n\nresult = log('x')\nprint(result)\n",
        "def log(msg):\n    print(msg)\n\n\nlog('x')\n",
    ),
    "CompareConstants": (
        "if 1 == 2:\n    print('never')\n",
        "LIMIT = int(input())\nif LIMIT == 2:\n    print('two')\n",
    ),
}


def test_maintainability_stand_ins_flag_the_source_and_pass_the_fix():
    """One batch for every case (one pylint run), each query's rules enabled together."""
    checks = {q: f"codeql-home/codeql-repo/python/ql/src/Any/{q}.ql" for q in MAINTAINABILITY_CASES}
    items = [
        OracleItem("python", checks[q], flagged, e)
        for q, (flagged, fixed) in MAINTAINABILITY_CASES.items()
        for e in (flagged, fixed)
    ]
    got = iter(judge(items, use_codeql=False))
    for query in MAINTAINABILITY_CASES:
        on_source, on_fix = next(got), next(got)
        assert (on_source.status, on_fix.status) == ("fail", "pass"), (query, on_source, on_fix)
        assert on_source.found and set(on_source.found) <= set(stand_in(checks[query]).rules)


def test_known_findings_analyse_each_program_once_across_calls(monkeypatch):
    """Table 1 judges the same sources in every file and mostly the same edits in both
    readings: with one KnownFindings each program reaches the real analysers once, and the
    verdicts are those of a judge that starts afresh."""
    need_analysers("cppcheck", "gcc")
    seen: dict[str, int] = {"pylint": 0, "cppcheck": 0, "compiles": 0}
    for name in seen:
        real = getattr(analysers, name)

        def spy(workdir, names, *rest, _real=real, _name=name):
            seen[_name] += len(names)  # counts the programs, then runs the real analyser
            return _real(workdir, names, *rest)

        monkeypatch.setattr(analysers, name, spy)
    query = "codeql-home/codeql-repo/python/ql/src/Imports/UnusedImport.ql"
    source = "import os\nimport sys\n\nprint(sys.argv)\n"
    items = [OracleItem("python", query, source, e) for e in (source, source[10:])]
    items += [OracleItem("c", WORLD, WORLD_C, e) for e in (PRIVATE_C, BROKEN_C)]
    known = KnownFindings()
    first = judge(items, use_codeql=False, known=known)
    assert [v.status for v in first] == ["fail", "pass", "pass", "fail"]
    assert seen == {"pylint": 2, "cppcheck": 3, "compiles": 2}
    # the other reading: compat passes C that does not compile, from the same findings
    compat = judge(items, compat=True, use_codeql=False, known=known)
    assert [v.status for v in compat] == ["fail", "pass", "pass", "pass"]
    assert seen == {"pylint": 2, "cppcheck": 3, "compiles": 2}
    other = "import os\nimport sys\n\nprint(os.sep)\n"
    (third,) = judge([OracleItem("python", query, source, other)], use_codeql=False, known=known)
    assert third.status == "fail" and third.found == ("unused-import",)
    assert seen["pylint"] == 3  # only the new edit
    assert judge(items, use_codeql=False) == first


def test_table1_oracle_judges_every_file_in_each_run(tmp_path, monkeypatch):
    """``run_table`` with the oracle over two published maintainability files (two models,
    the same two rows): each file's run of each reading gives every row DiffBLEU x its own
    verdict, and each run analyses each of its programs once."""
    from beyondpass.methods.nofuneval.table1.published import published_files
    from beyondpass.methods.nofuneval.table1.score import TableSettings, run_table

    query = "codeql-home/codeql-repo/python/ql/src/Imports/UnusedImport.ql"
    sources = ["import os\nimport sys\n\nprint(sys.argv)\n", "import re\n\nprint(1)\n"]
    targets = ["import sys\n\nprint(sys.argv)\n", "print(1)\n"]
    edits = {"m1": targets, "m2": [targets[0], sources[1]]}  # m2's 2nd: not fixed
    for model, programs in edits.items():
        folder = tmp_path / "generations/edit/maintainability" / model / "base_prompt/1_samples"
        folder.mkdir(parents=True)
        lines = [
            {"generated_answers": [f"### Instruction:\n```python\n{src}```\n\n"
                                   f"### Response:\n```python\n{edit}```"],
             "source_code": src, "target_code": tgt, "pl": "python", "codeql_check": query}
            for src, tgt, edit in zip(sources, targets, programs, strict=True)
        ]  # fmt: skip
        text = "".join(json.dumps(x) + "\n" for x in lines)
        (folder / "generated_outputs.jsonl").write_text(text)
    linted: list[str] = []
    real = analysers.pylint

    def spy(workdir, names, rules):
        linted.extend((workdir / n).read_text() for n in names)  # then the real pylint
        return real(workdir, names, rules)

    monkeypatch.setattr(analysers, "pylint", spy)
    monkeypatch.delenv("BEYONDPASS_NOFUNEVAL_MAINTAINABILITY", raising=False)
    files = published_files(tmp_path, samples=1)
    settings = TableSettings(tmp_path / "out", data_dir=str(tmp_path / "no-data"), oracle=True)
    results = run_table(files, settings)
    by_model = {r.file.model: r for r in results}
    for model, result in by_model.items():
        for reading in ("compat", "default"):
            for line in result.lines[reading]:
                fixed = edits[model][line["row"]] == targets[line["row"]]
                expected = line["diffbleu"] if fixed else 0.0
                assert line["diffbleu_x_oracle"] == pytest.approx(expected), line
            assert result.summaries[reading]["oracle_samples"] == 2
    assert by_model["m2"].summaries["compat"]["oracle_pass_rate"] == 0.5
    # a run per file and reading, each analysing each source once
    assert [linted.count(src) for src in sources] == [4, 4]


def test_every_pylint_stand_in_is_a_pylint_message():
    from pylint.lint import PyLinter

    linter = PyLinter()
    linter.load_default_plugins()
    for s in STAND_INS.values():
        if s.analyser == "pylint":
            for rule in s.rules:
                assert linter.msgs_store.get_message_definitions(rule), rule


def test_a_program_cannot_switch_its_own_checks_off():
    need_analysers()
    sql_nosec = SQL_FORMAT.replace("% name)", "% name)  # nosec B608")
    query = "codeql-home/codeql-repo/python/ql/src/Imports/UnusedImport.ql"
    source = "import os\nimport sys\n\nprint(sys.argv)\n"
    disabled = "import os  # pylint: disable=unused-import\nimport sys\n\nprint(sys.argv)\n"
    got = judge(
        [
            OracleItem("python", SQL, SQL_FORMAT, sql_nosec),
            OracleItem("python", query, source, disabled),
        ],
        use_codeql=False,
    )
    assert [v.status for v in got] == ["fail", "fail"]


def test_study_run_records_the_oracle_metrics(tmp_path):
    need_analysers("cppcheck", "gcc")
    from beyondpass.store.run_store import RunStore
    from beyondpass.study.config import load_study
    from beyondpass.study.runner import StudyRunner

    data = rows("security.jsonl")
    answers = {
        "8": data[8]["target_code"],
        "25": data[25]["source_code"],
        "0": data[0]["target_code"],
    }
    replay = tmp_path / "answers.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": t, "response": f"```{data[int(t)]['pl']}\n{code}\n```"}) + "\n"
            for t, code in answers.items()
        )
    )
    study = tmp_path / "study.toml"
    study.write_text(
        'name = "oracle"\nseed = 0\n[[benchmarks]]\nname = "nofuneval-security"\n'
        'tasks = ["0", "8", "25"]\n[[models]]\nspec = "replay:answers.jsonl"\n'
        '[prompts]\nplan = "nofuneval-edit"\nselect = ["base_prompt"]\n'
        '[evaluation]\nevaluators = ["nofuneval-oracle"]\n'
    )
    outcome = StudyRunner(load_study(study), tmp_path / "run").run()
    assert outcome.complete and outcome.scored == 3
    with RunStore(tmp_path / "run", create=False) as store:
        got = {r.sample.task_id: r.result for r in store.rows()}
    assert got["8"].metrics["oracle_pass"] == 1
    assert got["8"].metrics["diffbleu_x_oracle"] == pytest.approx(1.0)
    assert got["25"].metrics["oracle_pass"] == 0 and got["25"].metrics["diffbleu_x_oracle"] == 0
    assert "oracle_pass" not in got["0"].metrics  # no oracle: left out, not a pass


CODEQL_STUB = r"""#!/bin/sh
# Stand-in for the CodeQL CLI (not installable here): a "database" remembers its source
# root; "analyze" reports one result per line containing VULN; a C build fails on BROKEN.
case "$1 $2" in
  "version --format=terse") echo 0.0.0-stub; exit 0 ;;
  "database create")
    db=$3; shift 3
    for a in "$@"; do case "$a" in --source-root=*) src=${a#--source-root=} ;; esac; done
    case "$*" in *--language=cpp*) grep -q BROKEN "$src"/prog.* && exit 1 ;; esac
    mkdir -p "$db" && echo "$src" > "$db/src" ;;
  "database analyze")
    db=$3; shift 4
    for a in "$@"; do case "$a" in --output=*) out=${a#--output=} ;; esac; done
    grep -h VULN "$(cat "$db/src")"/prog.* | sed 's/.*/r,w,e,m,p,1,1,1,1/' > "$out" ;;
  *) exit 2 ;;
esac
"""


def test_codeql_engine_verdicts_with_a_stub_cli(monkeypatch, tmp_path):
    """The CodeQL path's verdict rules, driven through a stub ``codeql`` (a mock: the real
    CLI cannot be installed on this machine); the stub is the only fake part."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "codeql"
    stub.write_text(CODEQL_STUB)
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    query = tmp_path / "repo/cpp/ql/src/Security/CWE/CWE-732/DoNotCreateWorldWritable.ql"
    query.parent.mkdir(parents=True)
    query.write_text("select 1")
    monkeypatch.setenv(codeql.REPO_ENV, str(tmp_path / "repo"))
    source = "int main(void) { return 0; } /* VULN */\n"
    items = [
        OracleItem("c", WORLD, source, source),
        OracleItem("c", WORLD, source, "int main(void) { return 0; }\n"),
        OracleItem("c", WORLD, source, "int main(void) { BROKEN }\n"),
        OracleItem("c", WORLD, "int main(void) { return 0; }\n", source),  # source clean
        OracleItem("c", "x/NotInTheCheckout.ql", source, source),
    ]
    assert engine() == "codeql"
    got = judge(items)
    assert [v.status for v in got] == ["fail", "pass", "fail", "no_oracle", "no_oracle"]
    assert all(v.analyser == "codeql" for v in got)
    assert [v.status for v in judge(items, compat=True)][2] == "pass"
