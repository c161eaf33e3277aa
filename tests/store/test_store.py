"""The run store: round trips, replacement semantics, WAL, clear errors, per-evaluator rows,
schema migration (on run directories made by the previous release)."""

from __future__ import annotations

import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from beyondpass.errors import DataError
from beyondpass.methods.robunfr.evaluators.nfr import NFR_METRICS
from beyondpass.store import migrate, schema
from beyondpass.store.run_store import (
    EvaluationRecord,
    ResultRecord,
    RunStore,
    SampleRecord,
    sample_key,
)
from beyondpass.store.schema import SCHEMA_VERSION


def sample(key: str, task: str = "T/1") -> SampleRecord:
    return SampleRecord(
        key=key,
        benchmark="b",
        task_id=task,
        model="m",
        condition="c",
        sample_index=0,
        raw="answer <script>",
        code="code",
        program="program",
        extraction={"status": "ok", "kind": "full", "error": "", "notes": []},
        transcript=[{"step": 0, "messages": [{"role": "user", "content": "q"}], "answer": "a"}],
        generation={"model_version": "v1"},
    )


def test_round_trip_and_reopen(tmp_path):
    key = sample_key("b", "T/1", "m", "c", 0)
    with RunStore(tmp_path) as store:
        store.put_sample(sample(key))
        store.put_result(ResultRecord(key, "failed", False, {"tests_run": 3}, {"message": "x"}))
        store.set_meta("study", {"name": "s"})
    with RunStore(tmp_path, create=False) as store:
        (row,) = list(store.rows())
        assert row.sample == sample(key)
        assert row.result == ResultRecord(key, "failed", False, {"tests_run": 3}, {"message": "x"})
        assert store.get_meta("study") == {"name": "s"}
        assert store.counts() == {"samples": 1, "results": 1}


def test_replacing_a_sample_drops_its_stale_result(tmp_path):
    with RunStore(tmp_path) as store:
        store.put_sample(sample("k"))
        store.put_result(ResultRecord("k", "passed", True))
        store.put_sample(sample("k"))
        assert store.result_keys() == set()


def test_uses_write_ahead_logging(tmp_path):
    RunStore(tmp_path).close()
    with sqlite3.connect(tmp_path / "run.sqlite3") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sample_keys_are_distinct_per_coordinate():
    keys = {
        sample_key(*coords)
        for coords in [
            ("b", "t", "m", "c", 0),
            ("b", "t", "m", "c", 1),
            ("b", "t", "m", "d", 0),
            ("b", "t", "n", "c", 0),
            ("b", "u", "m", "c", 0),
            ("a", "t", "m", "c", 0),
        ]
    }
    assert len(keys) == 6


def test_not_a_run_and_corrupt_database(tmp_path):
    with pytest.raises(DataError, match="is not a beyondpass run"):
        RunStore(tmp_path / "empty", create=False)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DataError, match="not a usable run database"):
        RunStore(tmp_path / "bad")


# -- per-evaluator rows ----------------------------------------------------------------------
def two_evaluators(store: RunStore) -> None:
    store.register_evaluator("functional", version="1", decides_verdict=True)
    store.register_evaluator("nfr", version="2", decides_verdict=False, metrics=("loc",))


def test_each_evaluator_has_its_own_row_and_rows_merge_them(tmp_path):
    with RunStore(tmp_path) as store:
        store.put_sample(sample("k"))
        two_evaluators(store)
        store.put_evaluation(
            EvaluationRecord("k", "nfr", "2", {"loc": 3}, {"pylint_counts": {"refactor": 0}})
        )
        assert store.result_keys() == set()  # no verdict yet
        assert [r.result for r in store.rows()] == [None]
        store.put_evaluation(
            EvaluationRecord(
                "k", "functional", "1", {"tests_run": 2}, {"message": ""}, "passed", True
            )
        )
        assert store.result_keys() == {"k"}
        (row,) = store.rows()
        assert row.result == ResultRecord(
            "k",
            "passed",
            True,
            {"tests_run": 2, "loc": 3},
            {"message": "", "nfr": {"pylint_counts": {"refactor": 0}}},
        )
        assert {(e.evaluator, e.version) for e in store.evaluations()} == {
            ("functional", "1"),
            ("nfr", "2"),
        }
        assert store.counts() == {"samples": 1, "results": 1}


def test_one_verdict_evaluator_and_unique_metric_names(tmp_path):
    with RunStore(tmp_path) as store:
        store.put_sample(sample("k"))
        two_evaluators(store)
        store.put_evaluation(
            EvaluationRecord("k", "functional", "1", {"tests_run": 2}, {}, "failed", False)
        )
        with pytest.raises(DataError, match="decided by evaluator 'functional'"):
            store.register_evaluator("robustapi", version="1", decides_verdict=True)
        with pytest.raises(DataError, match="'tests_run'.*'functional' already produces"):
            store.register_evaluator(
                "other", version="1", decides_verdict=False, metrics=["tests_run"]
            )
        with pytest.raises(DataError, match="produced metric 'tests_run'"):  # undeclared too
            store.put_evaluation(EvaluationRecord("k", "nfr", "2", {"loc": 1, "tests_run": 5}))
        with pytest.raises(DataError, match="must not set the verdict"):
            store.put_evaluation(EvaluationRecord("k", "nfr", "2", {"loc": 1}, {}, "passed", True))
        with pytest.raises(DataError, match="not registered"):
            store.put_evaluation(EvaluationRecord("k", "ghost", "1"))
        (row,) = store.rows()  # nothing refused was written
        assert row.result == ResultRecord("k", "failed", False, {"tests_run": 2}, {})
        assert store.evaluations("nfr") == [] and store.metric_owners() == {
            "tests_run": "functional"
        }


def test_clearing_results_forgets_evaluators_but_keeps_samples(tmp_path):
    with RunStore(tmp_path) as store:
        store.put_sample(sample("k"))
        two_evaluators(store)
        store.put_evaluation(EvaluationRecord("k", "functional", "1", {}, {}, "passed", True))
        store.put_evaluation(EvaluationRecord("k", "nfr", "2", {"loc": 1}))
        assert store.clear_results() == 1
        assert store.evaluations() == [] and store.evaluators() == []
        assert store.metric_owners() == {} and store.sample_keys() == {"k"}


# -- schema versions -------------------------------------------------------------------------
V1 = Path(__file__).parents[1] / "data" / "store-v1"


def v1_results(db_path: Path) -> dict[str, ResultRecord]:
    """Read a schema-1 database directly: the oracle for what its results were."""
    with sqlite3.connect(db_path) as conn:
        fetched = conn.execute("SELECT key, status, passed, metrics, details FROM results")
        return {
            k: ResultRecord(k, s, bool(p), json.loads(m), json.loads(d))
            for k, s, p, m, d in fetched.fetchall()
        }


@pytest.mark.parametrize("name", ["ev-nfr", "ev-plain", "demo-run"])
def test_runs_of_the_previous_release_are_migrated_in_place(tmp_path, name):
    with tarfile.open(V1 / f"{name}.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    run = tmp_path / name
    before = v1_results(run / "run.sqlite3")
    assert before
    with RunStore(run, create=False) as store:
        after = {r.sample.key: r.result for r in store.rows()}
        assert after == before  # same verdicts, metrics and details
        assert store.get_meta("schema_version") == SCHEMA_VERSION
        migration, renaming, verdicts = store.get_meta("migrations")  # 1->2, 2->3, 3->4
        evaluators = [e.name for e in store.evaluators()]
        nfr_rows = store.evaluations("nfr")
        verdict_rows = store.evaluations("functional")
    assert (migration["from_schema"], migration["to_schema"]) == (1, 2)
    assert (renaming["from_schema"], renaming["to_schema"]) == (2, 3)
    assert renaming["renamed_evaluators"] == {}  # no evaluator of 0.1.0 was renamed
    assert verdicts["verdicts_without_pass_fail"] == {}  # 0.1.0 had only test verdicts
    assert migration["backup"] == renaming["backup"] == "run.sqlite3.schema1.bak"
    assert v1_results(run / "run.sqlite3.schema1.bak") == before  # the untouched old run
    assert {e.key for e in verdict_rows} == set(before)
    if name == "ev-nfr":  # NFR metrics and details go to nfr, the rest stays with the verdict
        assert evaluators == ["functional", "nfr"]
        assert {e.key for e in nfr_rows} == set(before)
        for e in nfr_rows:
            assert set(e.metrics) <= set(NFR_METRICS) and e.status is None
            assert e.details == before[e.key].details["nfr"]
        for e in verdict_rows:
            assert not set(e.metrics) & set(NFR_METRICS) and "nfr" not in e.details
        assert any(e.metrics for e in nfr_rows)
    else:
        assert evaluators == ["functional"] and nfr_rows == []
    with RunStore(run, create=False) as store:  # opening again migrates nothing
        assert len(store.get_meta("migrations")) == 3


def test_a_failed_migration_leaves_the_old_run_as_it_was(tmp_path):
    with tarfile.open(V1 / "ev-nfr.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    db = tmp_path / "ev-nfr" / "run.sqlite3"
    with sqlite3.connect(db) as conn:  # one row the migration cannot read
        conn.execute("UPDATE results SET metrics = 'not json' WHERE rowid = 2")
    before = sqlite3.connect(db).execute("SELECT * FROM results ORDER BY key").fetchall()
    with pytest.raises(DataError, match="cannot migrate this run from store schema 1"):
        RunStore(tmp_path / "ev-nfr", create=False)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT * FROM results ORDER BY key").fetchall() == before
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            "1",
        )
        tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "evaluations" not in tables


def test_a_run_of_a_newer_schema_is_refused(tmp_path):
    with RunStore(tmp_path) as store:
        store.set_meta("schema_version", SCHEMA_VERSION + 1)
    with pytest.raises(DataError, match=f"newer beyondpass \\(store schema {SCHEMA_VERSION + 1}"):
        RunStore(tmp_path, create=False)


def test_a_run_migrated_meanwhile_by_another_process_is_left_alone(tmp_path):
    with tarfile.open(V1 / "demo-run.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    run = tmp_path / "demo-run"
    late = sqlite3.connect(run / "run.sqlite3")  # opened while the run was still schema 1
    assert migrate.schema_version(late) == 1
    with RunStore(run, create=False) as store:  # the other process migrates it
        rows = list(store.rows())
    migrate.migrate(late, run / "run.sqlite3", 1, schema.SCHEMA, SCHEMA_VERSION)
    late.close()
    with RunStore(run, create=False) as store:
        assert list(store.rows()) == rows
        assert len(store.get_meta("migrations")) == 3


# -- schema 2 -> 3: evaluators renamed -------------------------------------------------------
V2 = Path(__file__).parents[1] / "data" / "store-v2"
NEW_NAMES = {"psb2_quality": "psb2-quality", "psb2_smells": "psb2-smells"}


def v2_evaluations(db_path: Path) -> dict[tuple[str, str], tuple]:
    """Read a schema-2 database directly: (key, evaluator) -> version, status, passed,
    metrics, details, created_at, as that release stored them."""
    with sqlite3.connect(db_path) as conn:
        fetched = conn.execute(
            "SELECT key, evaluator, version, status, passed, metrics, details, created_at "
            "FROM evaluations"
        ).fetchall()
    return {
        (k, e): (v, s, p, json.loads(m), json.loads(d), c) for k, e, v, s, p, m, d, c in fetched
    }


def v2_meta(db_path: Path) -> dict[str, object]:
    with sqlite3.connect(db_path) as conn:
        return {k: json.loads(v) for k, v in conn.execute("SELECT key, value FROM meta")}


@pytest.mark.parametrize("name", ["psb2-study", "psb2-evaluate"])
def test_runs_of_schema_2_get_the_renamed_evaluators_and_nothing_else_changes(tmp_path, name):
    with tarfile.open(V2 / f"{name}.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    run = tmp_path / name
    before = v2_evaluations(run / "run.sqlite3")
    meta_before = v2_meta(run / "run.sqlite3")
    assert {e for _, e in before} == {"functional", "psb2_quality", "psb2_smells"}
    with RunStore(run, create=False) as store:
        assert store.get_meta("schema_version") == SCHEMA_VERSION == 4
        migration, verdicts = store.get_meta("migrations")  # 2 -> 3, then 3 -> 4
        evaluators = store.evaluators()
        after = {(e.key, e.evaluator): e for e in store.evaluations()}
        owners = store.metric_owners()
        meta = store.all_meta()
        rows = list(store.rows())
    assert migration["renamed_evaluators"] == NEW_NAMES
    assert (migration["from_schema"], migration["backup"]) == (2, "run.sqlite3.schema2.bak")
    assert v2_evaluations(run / "run.sqlite3.schema2.bak") == before  # the untouched old run
    assert [e.name for e in evaluators] == ["functional", "psb2-quality", "psb2-smells"]
    assert [e.metadata["evaluator"] for e in evaluators] == [e.name for e in evaluators]
    # every row is the old one under the new name: same version, verdict, metrics, details
    assert {(k, NEW_NAMES.get(e, e)): row for (k, e), row in before.items()} == {
        key: (
            e.version,
            e.status,
            None if e.passed is None else int(e.passed),
            e.metrics,
            e.details,
            e.created_at,
        )
        for key, e in after.items()
    }
    with sqlite3.connect(run / "run.sqlite3.schema2.bak") as conn:
        owners_before = dict(conn.execute("SELECT metric, evaluator FROM metric_owners"))
    assert owners == {m: NEW_NAMES.get(e, e) for m, e in owners_before.items()}
    assert owners["lloc"] == "psb2-quality" and owners["smells"] == "psb2-smells"
    assert [e["evaluator"] for e in meta["evaluators"]] == [
        "functional",
        "psb2-quality",
        "psb2-smells",
    ]
    for row in rows:  # the merged result: the smells' details under the evaluator's new name
        assert "psb2_smells" not in row.result.details and "psb2-smells" in row.result.details
    if name == "psb2-evaluate":  # the settings its results were scored under, renamed
        assert meta_before["evaluation"] == {
            "psb2_quality": True,
            "psb2_smells": True,
            "timing_repeats": 0,
        }
        assert meta["evaluation"] == {
            "psb2-quality": True,
            "psb2-smells": True,
            "timing_repeats": 0,
        }
    # everything else is as the old release wrote it (the study file keeps its old names)
    unchanged = {"evaluators", "evaluation", "migrations", "schema_version"}
    assert {k: v for k, v in meta.items() if k not in unchanged} == {
        k: v for k, v in meta_before.items() if k not in unchanged
    }
    assert verdicts["verdicts_without_pass_fail"] == {}  # PSB2's verdicts are test runs
    with RunStore(run, create=False) as store:  # opening again migrates nothing
        assert len(store.get_meta("migrations")) == 2


def test_a_run_with_an_old_and_a_new_name_of_one_evaluator_is_not_migrated(tmp_path):
    with tarfile.open(V2 / "psb2-study.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    db = tmp_path / "psb2-study" / "run.sqlite3"
    with sqlite3.connect(db) as conn:  # what no release wrote: both names in one run
        conn.execute(
            "INSERT INTO evaluators SELECT 'psb2-quality', version, decides_verdict, 9, "
            "metrics, metadata, updated_at FROM evaluators WHERE name = 'psb2_quality'"
        )
    with pytest.raises(DataError, match="both evaluator 'psb2_quality' and 'psb2-quality'"):
        RunStore(tmp_path / "psb2-study", create=False)
    assert migrate.schema_version(sqlite3.connect(db)) == 2


def test_the_renamed_evaluators_are_the_registered_ones_under_their_former_names():
    from beyondpass import registry

    assert migrate.RENAMED_EVALUATORS == NEW_NAMES
    for old, new in migrate.RENAMED_EVALUATORS.items():
        spec, _ = registry.lookup("evaluators", old)
        assert spec.name == new and old in spec.aliases


# -- schema 3 -> 4: no pass/fail where no test ran -------------------------------------------


def test_verdicts_that_ran_no_test_lose_their_pass_or_fail(tmp_path):
    """A schema-3 run as the release before docs/verdicts.md wrote it: RobustAPI's check,
    NoFunClassify's label and NoFunEval's edit of a row without tests stored passed/failed,
    under their own evaluators or a study's ``dispatch``. Opened now, they are as the current
    evaluators store them (passed NULL; correct/wrong; scored with ``edited``); an edit that
    ran on its row's cases, a row already written the new way, a no-code answer whose task
    is not known and a test verdict keep their pass or fail. (Written with this release's
    store and set back to the old values by hand: the columns are the same in schema 3.)"""
    api = {"misuse": 1, "verdict_original": "violation"}
    old = {  # sample -> (verdict evaluator, status, passed, metrics)
        "api": ("robustapi", "violation", 0, api),
        "api-ok": ("robustapi", "pass", 1, {**api, "misuse": 0, "verdict_original": "pass"}),
        "label": ("dispatch", "passed", 1, {"choice_correct": 1, "choice_parsed": 1}),
        "label-wrong": ("dispatch", "failed", 0, {"choice_correct": 0, "choice_parsed": 1}),
        "edit": ("nofuneval-edit", "passed", 1, {"diffbleu": 0.5}),
        "no-op": ("dispatch", "failed", 0, {"diffbleu": 0.0}),
        "ran": ("nofuneval-edit", "failed", 0, {"diffbleu": 0.4, "runtime_correct": 0}),
        "no-code": ("nofuneval-edit", "no_code", 0, {"diffbleu": 0.0}),
        "new": ("dispatch", "correct", None, {"choice_correct": 1, "choice_parsed": 1}),
        "tested": ("dispatch", "failed", 0, {"tests_run": 2}),
    }
    for evaluator in ("robustapi", "nofuneval-edit", "dispatch"):  # one verdict evaluator a run
        run = tmp_path / evaluator
        mine = {k: v[1:] for k, v in old.items() if v[0] == evaluator}
        with RunStore(run) as store:
            store.register_evaluator(evaluator, version="1", decides_verdict=True)
            for key in mine:
                store.put_sample(sample(key, task=key))
                store.put_evaluation(EvaluationRecord(key, evaluator, "1", status="x"))
        with sqlite3.connect(run / "run.sqlite3") as conn:
            for key, (status, passed, metrics) in mine.items():
                conn.execute(
                    "UPDATE evaluations SET status = ?, passed = ?, metrics = ? WHERE key = ?",
                    (status, passed, json.dumps(metrics), key),
                )
            conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    got, rewritten = {}, {}
    for evaluator in ("robustapi", "nofuneval-edit", "dispatch"):
        with RunStore(tmp_path / evaluator, create=False) as store:
            got |= {e.key: (e.status, e.passed, e.metrics) for e in store.evaluations()}
            (migration,) = store.get_meta("migrations")
            owners = store.metric_owners()
        if evaluator != "robustapi":  # the metric the rewrite added has its owner
            assert owners.get("edited") == evaluator
        assert migration["backup"] == "run.sqlite3.schema3.bak"
        rewritten |= migration["verdicts_without_pass_fail"]
    assert got == {
        "api": ("violation", None, api),
        "api-ok": ("pass", None, {**api, "misuse": 0, "verdict_original": "pass"}),
        "label": ("correct", None, {"choice_correct": 1, "choice_parsed": 1}),
        "label-wrong": ("wrong", None, {"choice_correct": 0, "choice_parsed": 1}),
        "edit": ("scored", None, {"diffbleu": 0.5, "edited": 1}),
        "no-op": ("scored", None, {"diffbleu": 0.0, "edited": 0}),
        "ran": ("failed", False, {"diffbleu": 0.4, "runtime_correct": 0}),
        "no-code": ("no_code", False, {"diffbleu": 0.0}),
        "new": ("correct", None, {"choice_correct": 1, "choice_parsed": 1}),
        "tested": ("failed", False, {"tests_run": 2}),
    }
    assert rewritten == {"robustapi": 2, "nofuneval-edit": 1, "dispatch": 3}
