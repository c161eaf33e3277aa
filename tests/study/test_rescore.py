"""``beyondpass rescore``: evaluators added to or recomputed on finished runs.

The model endpoint is a real HTTP server on 127.0.0.1 (tests/fake_endpoints.py) that counts
requests; rescoring runs as a real ``beyondpass`` subprocess. Nothing is mocked.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_study_run import answer_from_prompt, write_study

from beyondpass.errors import BeyondpassError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.methods.robunfr.evaluators.nfr import NFR_METRICS, NfrEvaluator
from beyondpass.store.run_store import RunStore
from beyondpass.study.config import load_study
from beyondpass.study.rescore import IN_PROGRESS, rescore
from beyondpass.study.runner import StudyRunner
from fake_endpoints import FakeEndpoint
from pause_points import run_until_paused

V1 = Path(__file__).parents[1] / "data" / "store-v1"
EXEC_TIME = ("exec_time_ms", "exec_time_stdev_ms", "exec_time_ref")


def unpack(name: str, dest: Path) -> Path:
    """A run directory made by the previous release (tests/data/store-v1/README.md)."""
    with tarfile.open(V1 / f"{name}.tgz") as tar:
        tar.extractall(dest, filter="data")
    return dest / name


def evaluations(run: Path, evaluator: str) -> dict[str, tuple[float, dict, dict]]:
    with RunStore(run, create=False) as store:
        return {e.key: (e.created_at, e.metrics, e.details) for e in store.evaluations(evaluator)}


def study_body(url: str, nfr: bool) -> str:
    return f"""
name = "live"
[[benchmarks]]
name = "demo"
limit = 4
[[models]]
spec = "openai:pretend-coder@{url}"
label = "pretend"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{{prompt}}"
[evaluation]
nfr = {"true" if nfr else "false"}
"""


def test_rescore_adds_nfr_without_asking_the_model_or_rerunning_the_verdict(
    tmp_path, run_cli, data_dir
):
    with FakeEndpoint(responder=answer_from_prompt) as server:
        plain = write_study(tmp_path / "plain.toml", study_body(server.openai_base_url, False))
        assert StudyRunner(load_study(plain), tmp_path / "run").run().complete
        asked = server.request_count
        assert asked == 4
        verdicts = evaluations(tmp_path / "run", "functional")
        assert len(verdicts) == 4 and evaluations(tmp_path / "run", "nfr") == {}

        done = run_cli(["rescore", tmp_path / "run", "--evaluator", "nfr", "--json"], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert server.request_count == asked  # no model call
        out = json.loads(done.stdout)
        assert out["evaluators"] == [{"evaluator": "nfr", "version": "1", "samples_scored": 4}]

        # the same study with NFR metrics from the start: the reference for the metrics
        with_nfr = write_study(tmp_path / "nfr.toml", study_body(server.openai_base_url, True))
        assert StudyRunner(load_study(with_nfr), tmp_path / "ref").run().complete

    # the verdict rows are the very rows stored by the run: not recomputed
    assert evaluations(tmp_path / "run", "functional") == verdicts
    added = evaluations(tmp_path / "run", "nfr")
    reference = evaluations(tmp_path / "ref", "nfr")
    assert set(added) == set(verdicts)
    for key, (_, metrics, details) in added.items():
        assert set(metrics) == set(NFR_METRICS)
        assert (metrics, details) == reference[key][1:]
    with RunStore(tmp_path / "run", create=False) as store:
        rows = list(store.rows())
        meta = store.all_meta()
    for row in rows:  # the merged result analysis reads: verdict plus the added metrics
        assert row.result is not None
        _, verdict_metrics, verdict_details = verdicts[row.sample.key]
        assert row.result.metrics == {**verdict_metrics, **added[row.sample.key][1]}
        assert row.result.details["nfr"] == added[row.sample.key][2]
    assert [e["evaluator"] for e in meta["evaluators"]] == ["functional", "nfr"]
    (record,) = meta["rescores"]
    assert record["evaluators"][0]["metadata"]["metrics"] == list(NFR_METRICS)
    assert record["pool"] == "local"  # where the NFR batches ran
    assert IN_PROGRESS not in meta


def test_rescored_evaluation_rewrites_results_jsonl_like_evaluate_nfr(tmp_path, run_cli, data_dir):
    """A schema-1 evaluation without --nfr, rescored, has the results.jsonl that the
    previous release wrote with --nfr (execution times aside: they need timed re-runs)."""
    plain, with_nfr = unpack("ev-plain", tmp_path), unpack("ev-nfr", tmp_path)
    verdicts = {k: v[1:] for k, v in evaluations(plain, "functional").items()}
    with RunStore(plain, create=False) as store:  # the answers file is not where it was
        recorded = store.get_meta("samples")
        assert Path(recorded["path"]).name == "answers.jsonl"
        store.set_meta("samples", {**recorded, "path": str(tmp_path / "gone" / "answers.jsonl")})

    moved = run_cli(["rescore", plain, "--evaluator", "nfr"], cwd=tmp_path)
    assert moved.returncode == 2
    assert moved.stderr.count("\n") == 1 and "pass --samples" in moved.stderr
    assert evaluations(plain, "nfr") == {}  # refused before any work

    done = run_cli(
        ["rescore", plain, "--evaluator", "nfr", "--samples", V1 / "answers.jsonl"], cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert {k: v[1:] for k, v in evaluations(plain, "functional").items()} == verdicts

    def lines(run: Path) -> list[dict]:
        return [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]

    got, want = lines(plain), lines(with_nfr)
    assert [x["status"] for x in got] == [x["status"] for x in want]
    for g, w in zip(got, want, strict=True):
        assert {k: v for k, v in g.items() if k not in EXEC_TIME} == {
            k: v for k, v in w.items() if k not in EXEC_TIME
        }
        assert all(g[k] is None for k in EXEC_TIME if k in g)
    assert any(g.get("loc") for g in got)


class Crashing(Evaluator):
    """NFR metrics that stop (like a killed process) after ``allow`` stored samples."""

    name = "nfr"
    metrics = NFR_METRICS

    def __init__(self, allow: int) -> None:
        self.inner = NfrEvaluator(1)
        self.allow = allow
        self.seen: list[str] = []

    def metadata(self) -> dict:
        return self.inner.metadata()

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        def forward(i: int, evaluation: Evaluation) -> None:
            if len(self.seen) == self.allow:
                raise KeyboardInterrupt
            assert on_result is not None
            on_result(i, evaluation)
            self.seen.append(candidates[i].task.task_id)

        return self.inner.evaluate(candidates, on_result=forward)


def test_interrupted_recomputation_resumes_where_it_stopped(tmp_path, data_dir):
    run = unpack("demo-run", tmp_path)
    assert rescore(run, ["nfr"], lambda *_: NfrEvaluator(1)).evaluators[0]["samples_scored"] == 6
    first = evaluations(run, "nfr")

    crashing = Crashing(allow=2)
    with pytest.raises(KeyboardInterrupt):
        rescore(run, ["nfr"], lambda *_: crashing)
    redone = evaluations(run, "nfr")
    assert sum(redone[k][0] != first[k][0] for k in first) == 2  # two recomputed and kept
    with RunStore(run, create=False) as store:
        assert "nfr" in store.get_meta(IN_PROGRESS)

    outcome = rescore(run, ["nfr"], lambda *_: NfrEvaluator(1))
    assert outcome.evaluators[0]["samples_scored"] == 4  # only what was not redone yet
    final = evaluations(run, "nfr")
    for key in first:
        assert final[key][1:] == first[key][1:]  # same metrics and details
        assert final[key][0] != first[key][0]  # all recomputed
        if redone[key][0] != first[key][0]:
            assert final[key][0] == redone[key][0]  # kept, not computed a third time
    with RunStore(run, create=False) as store:
        assert store.get_meta(IN_PROGRESS) is None
        assert len(store.get_meta("rescores")) == 2


class Clashing(Evaluator):
    """Declares a metric the verdict evaluator already produces."""

    name = "clash"
    metrics = ("tests_run",)

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        raise AssertionError("never reached: the clash is refused before scoring")


def test_a_metric_name_already_produced_by_another_evaluator_is_refused(tmp_path, data_dir):
    run = unpack("demo-run", tmp_path)
    before = evaluations(run, "functional")
    with pytest.raises(BeyondpassError, match="metric 'tests_run'.*'functional'"):
        rescore(run, ["clash"], lambda *_: Clashing())
    assert evaluations(run, "functional") == before
    assert evaluations(run, "clash") == {}


def test_rescore_errors_are_one_line(tmp_path, run_cli, data_dir):
    run = unpack("demo-run", tmp_path)
    cases = [
        (["rescore", tmp_path / "nowhere"], "does not exist"),
        (["rescore", run, "--evaluator", "pylint"], "unknown evaluator 'pylint'"),
        (["rescore", run, "--evaluator", "robustapi"], "decided by evaluator 'functional'"),
    ]
    for args, message in cases:
        done = run_cli(args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    shutil.rmtree(run)


# Started instead of `python -m beyondpass` by the kill test. It changes nothing in what
# beyondpass does, it only pauses: after the first NFR result with metrics is stored, it
# records that in a file and waits forever, so the test kills the process at a known point
# of NFR scoring (no timing involved). The keys of every stored NFR row are written too.
def test_kill_during_nfr_scoring_keeps_every_stored_result(tmp_path, run_cli, data_dir):
    answers = shutil.copy(V1 / "answers.jsonl", tmp_path / "answers.jsonl")
    args = [
        "evaluate",
        "--benchmark",
        "humaneval",
        "--samples",
        answers,
        "--skip-unknown-tasks",
        "--nfr",
        "--workers",
        "1",
        "--out",
        tmp_path / "ev",
    ]
    # paused once two NFR results are stored (the sample without code, then one analysed)
    stored_before = run_until_paused(args, tmp_path, "nfr", after=2)
    verdicts = evaluations(tmp_path / "ev", "functional")
    nfr = evaluations(tmp_path / "ev", "nfr")
    assert len(verdicts) == 4  # every verdict was stored before NFR scoring began
    assert sorted(nfr) == sorted(stored_before)  # nothing stored was lost
    assert 2 <= len(nfr) < 4  # the sample without code, then one analysed; the rest in flight

    again = run_cli(args, cwd=tmp_path)  # the same command resumes
    assert again.returncode == 0, again.stderr
    assert evaluations(tmp_path / "ev", "functional") == verdicts  # not re-run
    final = evaluations(tmp_path / "ev", "nfr")
    assert len(final) == 4
    assert all(final[k] == nfr[k] for k in nfr)  # stored before the kill: kept, not redone

    want = [json.loads(x) for x in (V1 / "ev-nfr-results.jsonl").read_text().splitlines()]
    got = [json.loads(x) for x in (tmp_path / "ev" / "results.jsonl").read_text().splitlines()]
    for g, w in zip(got, want, strict=True):  # as the previous release scored them
        assert {k: v for k, v in g.items() if k not in EXEC_TIME} == {
            k: v for k, v in w.items() if k not in EXEC_TIME
        }
        assert [g[k] is None for k in EXEC_TIME] == [w[k] is None for k in EXEC_TIME]


def test_recomputed_verdicts_use_the_limits_the_run_recorded(tmp_path, run_cli, data_dir):
    run = unpack("demo-run", tmp_path)  # its study sets timeout_s = 2 (default: 10)
    before = evaluations(run, "functional")
    with RunStore(run, create=False) as store:
        statuses = {r.sample.key: r.result.status for r in store.rows()}
    done = run_cli(["rescore", run, "--evaluator", "functional", "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = evaluations(run, "functional")
    assert all(after[k][0] > before[k][0] for k in before)  # every verdict recomputed
    with RunStore(run, create=False) as store:
        assert {r.sample.key: r.result.status for r in store.rows()} == statuses
        (record,) = store.get_meta("rescores")
        executor = store.get_meta("executor")
    assert record["limits"]["timeout_s"] == 2 == executor["limits"]["timeout_s"]
    assert record["evaluators"][0]["metadata"]["limits"]["timeout_s"] == 2


RUNTIME = "nofuneval-runtime_efficiency"


def _edit_executor(run: Path) -> tuple[dict, list[dict]]:
    """What ``nofuneval-edit`` recorded: its executor, and each sample's timing record."""
    with RunStore(run, create=False) as store:
        meta = store.get_meta("executor")
        timings = [e.details["timing"] for e in store.evaluations("nofuneval-edit")]
    assert meta["evaluator"] == "nofuneval-edit"
    return meta["executor"], timings


def test_every_command_gives_nofuneval_edit_the_executor_chosen(tmp_path, run_cli, data_dir):
    """run (the study's [execution]), rescore (the recorded choice, then --executor and
    --isolation) and evaluate (--executor, --isolation) all run the edits in the executor
    the user chose, and record it."""
    from nofuneval_data import rows as dataset_rows

    row = dataset_rows("runtime_efficiency.jsonl")[3]
    answers = tmp_path / "answers.jsonl"
    answer = {"task_id": "3", "condition": "base_prompt", "response": row["target_code"]}
    answers.write_text(json.dumps(answer) + "\n")
    study = tmp_path / "study.toml"
    study.write_text(
        f'name = "rt"\nseed = 7\n[[benchmarks]]\nname = "{RUNTIME}"\ntasks = ["3"]\n'
        '[[models]]\nspec = "replay:answers.jsonl"\nlabel = "recorded"\n'
        '[prompts]\nplan = "nofuneval-edit"\nselect = ["base_prompt"]\n'
        '[execution]\nisolation = "process"\n[evaluation.nofuneval-edit]\nruns = 0\n'
    )
    run = tmp_path / "run"
    done = run_cli(
        ["run", study, "--out", run, "--no-report", "--no-cache", "--json"], cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    executor, timings = _edit_executor(run)
    assert (executor["executor"], executor["isolation"]) == ("sandbox", "process")
    assert [(t["executor"], t["isolation"]) for t in timings] == [("sandbox", "process")]
    assert executor["random_seed"] == 7  # the study's seed reaches the executor

    # rescore without options: the executor the run recorded (not the default level)
    rescore_args = ["rescore", run, "--evaluator", "nofuneval-edit", "--no-report", "--json"]
    done = run_cli(rescore_args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    executor, _ = _edit_executor(run)
    assert (executor["executor"], executor["isolation"]) == ("sandbox", "process")

    # rescore with --executor/--isolation: those, in the results and the rescore record
    done = run_cli([*rescore_args, "--executor", "subprocess", "--isolation", "process"],
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    executor, timings = _edit_executor(run)
    assert (executor["executor"], executor["isolation"]) == ("subprocess", "process")
    assert executor["fresh_worker_per_sample"] is True and executor["random_seed"] == 7
    assert [(t["executor"], t["isolation"]) for t in timings] == [("subprocess", "process")]
    with RunStore(run, create=False) as store:
        record = store.get_meta("rescores")[-1]["evaluators"][0]
        (result,) = [r.result for r in store.rows()]
    assert record["metadata"]["executor"]["executor"] == "subprocess"
    assert result.metrics["runtime_correct"] == 1 and result.status == "passed"

    out = tmp_path / "evaluated"
    done = run_cli(
        ["evaluate", "--benchmark", RUNTIME, "--samples", answers, "--out", out,
         "--executor", "subprocess", "--isolation", "process", "--json"],
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    executor, timings = _edit_executor(out)
    assert (executor["executor"], executor["isolation"]) == ("subprocess", "process")
    assert [(t["executor"], t["isolation"]) for t in timings] == [("subprocess", "process")]
