"""NFR metrics (RobuNFR 3.2): the documented LOC / exception-handling definitions, pylint
counts equal to the real ``pylint`` command's, and what happens when analysis fails.

The oracle for pylint counts is the ``pylint`` command itself (pylint_oracle.py, beside this
file).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest

from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Candidate
from beyondpass.extraction.result import Extraction
from beyondpass.methods.robunfr.evaluators.code_metrics import count_code
from beyondpass.methods.robunfr.evaluators.nfr import NFR_METRICS, NfrEvaluator
from beyondpass.methods.robunfr.evaluators.pylint_batch import LintPool
from pylint_oracle import pylint_oracle

SAMPLES = Path(__file__).parents[2] / "nfr_samples"

# Counted by hand from the files (cat -n), following docs/nfr-metrics.md.
EXPECTED_COUNTS = {
    # 1 class line + __init__ def + 7 assignments; grade 1+6; is_weekend 1+4;
    # maybe_first 3; between 2; copy_all 2; read_config 5. No handling.
    "smelly.py": (33, 0),
    # 17 physical lines, all code (no docstrings, no comments).
    "unreadable.py": (17, 0),
    # import 1; parse_int 1+10; check_sides 1+7; cleanup_only 1+5; groups 1+8; reraise 1+7.
    # parse_int: 2 except + raise + finally; check_sides: 2 raise (assert not counted);
    # cleanup_only: finally; groups: raise + 2 except*; reraise: 2 except + bare raise.
    "reliable.py": (43, 13),
    # MESSAGE 4 lines (string-led lines are code); TEMPLATE 3 (multi-line string in an
    # expression); joined: def + 4 (docstring and bare string statement excluded);
    # continued: def + 4 (backslash continuation: 2 lines); NAME line 1.
    "loc_edges.py": (18, 0),
    # grade: def + 4 (pragma comment line excluded); Bad_Name: def + return.
    "pragmas.py": (7, 0),
    # def, if, raise, return.
    "clean.py": (4, 1),
}


def candidate(name: str, program: str) -> Candidate:
    task = Task(
        benchmark="hand",
        task_id=name,
        language="python",
        prompt="",
        entry_point=None,
        reference_solution="",
        tests=(),
        prompt_style="description",
    )
    return Candidate(task, Extraction("ok", program, program, "full"))


# -- the documented definitions ----------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_hand_counted_loc_and_exception_handling(name: str) -> None:
    counts = count_code((SAMPLES / name).read_text(encoding="utf-8"))
    assert (counts.loc, counts.exception_handling) == EXPECTED_COUNTS[name]


@pytest.mark.parametrize(
    ("source", "loc"),
    [
        ("", 0),
        ("# only a comment\n\n\n", 0),
        ('"""Only a module docstring,\nover two lines."""\n', 0),
        ("x = 1\n\n# comment\ny = 2  # trailing comment\n", 2),
        ('def f():\n    """Doc."""\n    "bare string: documentation"\n    return 1\n', 2),
        ('x = (\n    "a"\n    "b"\n)\n', 4),  # string-led continuation lines are code
        ('x = """one\ntwo\nthree"""\n', 3),  # a multi-line token counts on every line
        ("x = 1 + \\\n    2\n", 2),
        ('x = "é"; "é doc"\n', 1),  # a doc statement sharing a line with code
        ('"""doc"""; x = 1\n', 1),
        ("class A:\n    pass\n", 2),
    ],
)
def test_loc_definition(source: str, loc: int) -> None:
    assert count_code(source).loc == loc


@pytest.mark.parametrize(
    ("source", "handling"),
    [
        ("x = 1\n", 0),
        ("try:\n    pass\nexcept ValueError:\n    pass\n", 1),
        ("try:\n    pass\nexcept A:\n    pass\nexcept B:\n    pass\nelse:\n    pass\n", 2),
        ("try:\n    pass\nfinally:\n    pass\n", 1),
        ("try:\n    pass\nexcept A:\n    pass\nfinally:\n    pass\n", 2),
        ("try:\n    pass\nexcept* A:\n    pass\nexcept* B:\n    pass\n", 2),
        ("raise ValueError\n", 1),
        ("try:\n    pass\nexcept A as e:\n    raise B from e\n", 2),
        ("assert x\n", 0),
        ("with open(p) as f:\n    pass\n", 0),
        ("import contextlib\nwith contextlib.suppress(E):\n    pass\n", 0),
        ("def f():\n    def g():\n        raise E\n    return g\n", 1),
    ],
)
def test_exception_handling_definition(source: str, handling: int) -> None:
    assert count_code(source).exception_handling == handling


def test_unparsable_text_has_no_counts() -> None:
    with pytest.raises(SyntaxError):
        count_code("def f(:\n")


# -- pylint counts against the pylint command --------------------------------------------------
def test_metrics_equal_pylint_command_counts(tmp_path: Path) -> None:
    names = sorted(EXPECTED_COUNTS)
    sources = {n: (SAMPLES / n).read_text(encoding="utf-8") for n in names}
    # batches of 4 on 2 workers: several files per in-process pylint run, several runs
    evaluator = NfrEvaluator(workers=2, batch_size=4)
    results = evaluator.evaluate([candidate(n, sources[n]) for n in names])
    total_refactor = total_convention = 0
    for name, ev in zip(names, results, strict=True):
        oracle = pylint_oracle(sources[name], name, tmp_path / name.removesuffix(".py"))
        by_type = Counter(m["type"] for m in oracle)
        loc, handling = EXPECTED_COUNTS[name]
        assert ev.status is None and ev.passed is None  # never a verdict
        assert ev.metrics == pytest.approx(
            {
                "loc": loc,
                "pylint_refactor": by_type["refactor"],
                "pylint_convention": by_type["convention"],
                "exception_handling": handling,
                "smell_density": by_type["refactor"] * 10 / loc,
                "unreadability_density": by_type["convention"] * 10 / loc,
                "exception_density": handling * 10 / loc,
            }
        ), name
        assert sorted(ev.details["pylint_messages"]) == sorted(
            f"{m['line']}:{m['symbol']}" for m in oracle
        ), name
        total_refactor += by_type["refactor"]
        total_convention += by_type["convention"]
    assert total_refactor >= 10 and total_convention >= 15  # the files do exercise pylint


def test_pragmas_are_honoured_and_recorded() -> None:
    source = (SAMPLES / "pragmas.py").read_text(encoding="utf-8")
    [ev] = NfrEvaluator(workers=1).evaluate([candidate("pragmas.py", source)])
    # no-else-return and invalid-name are suppressed in the file, as pylint itself does
    assert ev.details["pylint_messages"] == ["15:unnecessary-comprehension"]
    assert ev.details["suppressed_by_pragmas"] == {"refactor": 1, "convention": 1}

    [skipped] = NfrEvaluator(workers=1).evaluate(
        [candidate("skip.py", "# pylint: skip-file\ndef BadName():\n    return 1\n")]
    )
    assert skipped.metrics["pylint_convention"] == 0
    assert skipped.details["file_ignored"] is True


def test_identical_programs_share_one_analysis_and_order_is_kept() -> None:
    smelly = (SAMPLES / "smelly.py").read_text(encoding="utf-8")
    clean = (SAMPLES / "clean.py").read_text(encoding="utf-8")
    cands = [candidate(f"c{i}", src) for i, src in enumerate([smelly, clean, smelly, clean])]
    deduped = NfrEvaluator(workers=1).evaluate(cands)
    separate = NfrEvaluator(workers=2, dedupe=False, batch_size=1).evaluate(cands)
    assert [e.metrics for e in deduped] == [e.metrics for e in separate]
    assert [e.metrics["loc"] for e in deduped] == [33, 4, 33, 4]


# -- failures: no code, syntax errors, pylint that cannot analyse a file -----------------------
def test_no_code_and_syntax_errors_get_no_metrics() -> None:
    task = candidate("t", "").task
    cands = [
        Candidate(task, Extraction("no_code", "", "", "none")),
        Candidate(task, Extraction("syntax_error", "def f(:", "def f(:\n", "full", "E")),
        candidate("ok", "def f():\n    raise ValueError\n"),
    ]
    results = NfrEvaluator(workers=1).evaluate(cands)
    assert results[0].metrics == {} and "no_code" in results[0].details["skipped"]
    assert results[1].metrics == {} and "syntax_error" in results[1].details["skipped"]
    assert results[2].metrics["exception_handling"] == 1
    assert set(results[2].metrics) == set(NFR_METRICS)


def test_program_without_lines_of_code_has_counts_but_no_densities() -> None:
    [ev] = NfrEvaluator(workers=1).evaluate([candidate("doc", '"""Only a docstring."""\n')])
    assert ev.metrics == {
        "loc": 0,
        "pylint_refactor": 0,
        "pylint_convention": 0,
        "exception_handling": 0,
    }


def test_file_pylint_cannot_analyse_keeps_loc_and_loses_pylint_counts(tmp_path: Path) -> None:
    """A left-nested sum too deep for astroid: pylint reports astroid-error (F0002) for it,
    and says nothing trustworthy about it; the other file of the batch is unaffected."""
    deep = "total = 1" + " + 1" * 900 + "\n"
    compile(deep, "deep", "exec")  # the program itself is valid Python
    oracle = pylint_oracle(deep, "deep.py", tmp_path)
    assert [m["symbol"] for m in oracle] == ["astroid-error"]
    clean = (SAMPLES / "clean.py").read_text(encoding="utf-8")
    deep_ev, clean_ev = NfrEvaluator(workers=1).evaluate(
        [candidate("deep", deep), candidate("clean", clean)]
    )
    assert deep_ev.metrics == {"loc": 1, "exception_handling": 0, "exception_density": 0.0}
    assert "astroid-error" in deep_ev.details["pylint_error"]
    assert clean_ev.metrics["pylint_convention"] == 0 and clean_ev.metrics["loc"] == 4


def test_stuck_file_is_blamed_and_the_rest_of_its_batch_is_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pylint needs far longer than the per-file limit on the big module (tens of seconds
    on this machine): its worker is killed, it gets no pylint counts, and the other two
    files of its batch are re-run in a fresh worker. No scratch directory is left behind."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    big = "".join(
        f"def f{i}(a, b):\n    if a > b:\n        return a - b\n    else:\n        return b\n"
        for i in range(6000)
    )
    small = (SAMPLES / "smelly.py").read_text(encoding="utf-8")
    other = (SAMPLES / "clean.py").read_text(encoding="utf-8")
    got: dict[str, object] = {}
    LintPool(1, file_timeout_s=3).run(
        {"small": small, "big": big, "other": other}, lambda k, a: got.__setitem__(k, a)
    )
    assert set(got) == {"small", "big", "other"}
    assert got["big"].counts is None and "did not finish on big" in got["big"].pylint_error
    assert got["big"].loc == 6000 * 5  # counted without pylint
    assert got["small"].counts["refactor"] == 13 and not got["small"].pylint_error
    assert got["other"].counts["convention"] == 0
    assert list(tmp_path.iterdir()) == []


def test_worker_that_cannot_run_pylint_fails_its_files_with_a_reason() -> None:
    """An address-space limit too small to import pylint: every file is reported with the
    reason, after one retry, instead of hanging or crashing the harness."""
    got: dict[str, object] = {}
    # A worker spawned from pytest has more imported before the limit applies, and out of
    # memory it may hang inside pylint instead of dying: then the file timeout ends it. Both
    # ways every file fails with a reason; 5 s keeps the hanging way from costing a minute.
    LintPool(1, memory_mb=30, file_timeout_s=5).run(
        {"a": "x = 1\n", "b": "raise E\n"}, lambda k, a: got.__setitem__(k, a)
    )
    assert set(got) == {"a", "b"}
    for analysis in got.values():
        assert analysis.counts is None and analysis.pylint_error
    assert (got["a"].loc, got["b"].exception_handling) == (1, 1)


def test_metadata_records_versions_and_configuration() -> None:
    from importlib.metadata import version

    meta = NfrEvaluator(workers=1).metadata()
    assert meta["evaluator"] == "nfr" and meta["metrics"] == list(NFR_METRICS)
    pylint = meta["pylint"]
    assert (pylint["pylint"], pylint["astroid"]) == (version("pylint"), version("astroid"))
    assert "disable=duplicate-code,cyclic-import" in pylint["pylintrc"]
    refactor = pylint["counted_messages"]["refactor"]
    assert "R1705 no-else-return" in refactor
    assert not any("duplicate-code" in m or "cyclic-import" in m for m in refactor)
    assert "C0103 invalid-name" in pylint["counted_messages"]["convention"]
