"""A NoFunEval study over runtime-efficiency rows: edits run and timed in the sandbox by the
``nofuneval-edit`` evaluator, and Table 1's runtime columns from the stored samples.

Three models on the local HTTP server answer every prompt with the row's target code, its
source code, or a wrong program. No assertion depends on how fast the machine is: the target
is asserted correct and at least as fast as "not faster" (speed-up >= 1), never faster.
"""

from __future__ import annotations

import json
from statistics import mean

import pytest

from beyondpass.methods.nofuneval.edit.runtime_columns import runtime_columns, runtime_scores
from beyondpass.methods.nofuneval.edit.samples import score_at_k
from beyondpass.methods.nofuneval.report import NoFunEditTable
from beyondpass.report.sections import ReportContext
from beyondpass.store.run_store import ResultRecord, Row, SampleRecord

ROWS = ["1", "3", "12"]  # 3 CodeNet cases each; row 1's programs import numpy
BENCH = "nofuneval-runtime_efficiency"
WRONG = "print(-1)\n"


def _answer(rows: list[dict], kind: str):
    def reply(prompt: str) -> str:
        row = next(r for r in rows if r["source_code"].strip() in prompt)
        code = WRONG if kind == "wrong" else row[f"{kind}_code"]
        return code + "\n```\n"  # the Base prompt ends inside an open code fence

    return reply


def test_study_runs_and_times_runtime_edits_and_reports_them(tmp_path, data_dir, monkeypatch):
    from beyondpass.report.render import render_report
    from beyondpass.store.run_store import RunStore
    from beyondpass.study.config import load_study
    from beyondpass.study.runner import StudyRunner
    from fake_endpoints import FakeEndpoint
    from nofuneval_data import rows as dataset_rows

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rows = dataset_rows("runtime_efficiency.jsonl")
    kinds = ("target", "source", "wrong")
    servers = [FakeEndpoint(responder=_answer(rows, k)) for k in kinds]
    for s in servers:
        s.__enter__()
    try:
        models = "".join(
            f'[[models]]\nspec = "openai:{k}@{s.openai_base_url}#api=completions"\nlabel = "{k}"\n'
            for k, s in zip(kinds, servers, strict=True)
        )
        study = tmp_path / "study.toml"
        study.write_text(
            f'name = "rt"\n[[benchmarks]]\nname = "{BENCH}"\ntasks = {json.dumps(ROWS)}\n'
            '[prompts]\nplan = "nofuneval-edit"\nselect = ["base_prompt"]\n'
            f"{models}[sampling]\nmax_tokens = 64\n"
            "[evaluation.nofuneval-edit]\nruns = 3\n"
        )
        outcome = StudyRunner(load_study(study), tmp_path / "run", data_dir=str(data_dir)).run()
        assert outcome.complete, outcome.failures
    finally:
        for s in servers:
            s.__exit__(None, None, None)

    with RunStore(tmp_path / "run", create=False) as store:
        stored = [r for r in store.rows() if r.result is not None]
    by = {(r.sample.model, r.sample.task_id): r.result for r in stored}
    assert len(by) == 9
    for task in ROWS:
        target, source, wrong = (by[(k, task)] for k in kinds)
        # the source as edit: correct, exactly 1.0, not improved; a no-op edit fails
        assert source.metrics["speedup"] == 1.0 and source.metrics["runtime_correct"] == 1
        assert source.metrics["runtime_improved"] == 0 and source.status == "failed"
        # a wrong program: incorrect, 1.0, with the executor's verdict
        assert wrong.metrics["runtime_correct"] == 0 and wrong.metrics["speedup"] == 1.0
        assert wrong.status == "failed" and wrong.passed is False
        # the dataset's target: correct, timed against the source
        assert target.metrics["runtime_correct"] == 1 and target.status == "passed"
        assert target.metrics["speedup"] >= 1.0
        rt = target.details["runtime"]
        assert rt["time_mean_s"] > 0 and 0 <= rt["p_value"] <= 1
        if target.metrics["runtime_improved"]:
            assert target.metrics["speedup"] == pytest.approx(
                rt["source_time_mean_s"] / rt["time_mean_s"]
            )
        # the source was timed once for the row: every model's sample saw the same times
        assert rt["source_time_mean_s"] == source.details["runtime"]["source_time_mean_s"]
        for result in (target, source, wrong):
            timing = result.details["timing"]
            assert timing["method"] == "cpu" and timing["runs_per_case"] == 3
            assert timing["python"].count(".") == 2

    paths = render_report(tmp_path / "run", tmp_path / "report")
    markdown = paths.markdown.read_text()
    header = next(ln for ln in markdown.splitlines() if ln.startswith("| model |") and BENCH in ln)
    columns = [c.strip() for c in header.strip("|").split("|")]
    want = [f"{BENCH} {name}@1" for name in ("Speedup", "Correct", "Improved")]
    assert columns[-3:] == want

    def cells(model: str) -> list[str]:
        line = next(ln for ln in markdown.splitlines() if ln.startswith(f"| {model} |"))
        return [c.strip() for c in line.strip("|").split("|")][-3:]

    def span(value: str) -> str:  # one condition (Base): both ends are its value
        return f"{value}^B – {value}^B"

    assert cells("source") == [span("1.000"), span("100.0"), span("0.0")]
    assert cells("wrong") == [span("1.000"), span("0.0"), span("0.0")]
    speedups = [by[("target", t)].metrics["speedup"] for t in ROWS]
    improved = [by[("target", t)].metrics["runtime_improved"] for t in ROWS]
    s, i = f"{mean(speedups):.3f}", f"{100 * mean(improved):.1f}"
    assert cells("target") == [span(s), span("100.0"), span(i)]


def _row(model: str, cond: str, task: str, index: int, speedup: float, correct: int) -> Row:
    key = f"{model}{cond}{task}{index}"
    sample = SampleRecord(key, BENCH, task, model, cond, index, "", "", "", {})
    metrics = {
        "diffbleu": 0.5,
        "speedup": speedup,
        "runtime_correct": correct,
        "runtime_improved": int(speedup > 1),
    }
    return Row(sample, ResultRecord(key, "passed", True, metrics))


def test_runtime_columns_are_score_at_k_n_min_max_over_conditions(tmp_path):
    values = {  # condition -> task -> (speed-up, correct) of samples 0 and 1
        "base_prompt": {"0": [(2.0, 1), (1.0, 0)], "1": [(1.0, 1), (1.0, 1)]},
        "one_shot": {"0": [(4.0, 1), (3.0, 1)], "1": [(1.0, 0), (1.5, 1)]},
    }
    rows = [
        _row("m", cond, task, i, sp, ok)
        for cond, tasks in values.items()
        for task, samples in tasks.items()
        for i, (sp, ok) in enumerate(samples)
    ]
    scores = runtime_scores(rows)
    for cond, tasks in values.items():
        got = scores[("m", BENCH, cond)]
        for k in (1, 2):  # score@k,n with n = 2, averaged over tasks
            want = mean(score_at_k([sp for sp, _ in s], k) for s in tasks.values())
            assert got[f"speedup@{k}"] == pytest.approx(want)
            want = mean(score_at_k([ok for _, ok in s], k) for s in tasks.values())
            assert got[f"correct@{k}"] == pytest.approx(want)
    head, cells = runtime_columns(rows, ["m"], [BENCH])
    assert head[:3] == [f"{BENCH} Speedup@1", f"{BENCH} Correct@1", f"{BENCH} Improved@1"]
    assert head[3] == f"{BENCH} Speedup@2"
    # Speedup@1: base (1.5 + 1.0) / 2 = 1.25, one-shot (3.5 + 1.25) / 2 = 2.375
    assert cells["m"][0] == "1.250^B – 2.375^1S"
    # Speedup@2: best of both samples: base (2 + 1) / 2 = 1.5, one-shot (4 + 1.5) / 2 = 2.75
    assert cells["m"][3] == "1.500^B – 2.750^1S"
    section = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path, options={"plots": False}))
    assert section is not None and "1.250^B – 2.375^1S" in section.markdown
    assert f"{BENCH} Correct@2" in section.artifacts["nofuneval-table1.tex"].replace("\\_", "_")


def test_table1_without_runtime_results_has_no_runtime_columns(tmp_path):
    sample = SampleRecord("k", "nofuneval-latency", "0", "m", "base_prompt", 0, "", "", "", {})
    rows = [Row(sample, ResultRecord("k", "passed", True, {"diffbleu": 0.25}))]
    assert runtime_columns(rows, ["m"], ["nofuneval-latency"]) == ([], {"m": []})
    section = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path, options={"plots": False}))
    assert section is not None and "Speedup" not in section.markdown


def _candidate(program: str):
    from beyondpass.benchmarks.task import Task, TestCase
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction

    source = "xs = list(map(int, input().split()))\nfor x in xs:\n    print(x + x)\n"
    tests = (
        TestCase("p/0", stdin="3\n", expected_stdout="6\n"),
        TestCase("p/1", stdin="4 5\n", expected_stdout="8\n10\n"),
    )
    meta = {"source_code": source, "target_code": program, "pl": "python"}
    task = Task(BENCH, "0", "python", "", None, "", tests, metadata=meta)
    return Candidate(task, Extraction("ok", program, program, "full"))


def test_edit_evaluator_compat_option_ignores_extra_lines():
    from beyondpass.execution import create_executor
    from beyondpass.methods.nofuneval.edit.evaluator import DiffBleuEvaluator, EditOptions

    extra = (  # the right lines, then a blank line and a message
        "xs = list(map(int, input().split()))\nprint(*[2 * x for x in xs], sep='\\n')\n"
        "print()\nprint('done')\n"
    )
    executor = create_executor("sandbox", workers=1)
    try:
        got = {
            compat: DiffBleuEvaluator(EditOptions(runs=0, compat=compat), executor).evaluate(
                [_candidate(extra)]
            )[0]
            for compat in (None, "nofuneval")
        }
    finally:
        executor.close()
    assert got[None].status == "failed" and got[None].metrics["runtime_correct"] == 0
    assert got["nofuneval"].status == "passed" and got["nofuneval"].metrics["runtime_correct"] == 1
    assert got["nofuneval"].details["timing"]["method"] == "wall"
    assert got[None].details["timing"]["method"] == "cpu"


def test_edit_evaluator_without_executor_is_a_one_line_error():
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval.edit.evaluator import DiffBleuEvaluator, EditOptions

    right = "xs = list(map(int, input().split()))\nprint(*[2 * x for x in xs], sep='\\n')\n"
    with pytest.raises(ConfigError, match="no executor was given") as caught:
        DiffBleuEvaluator(EditOptions(runs=0)).evaluate([_candidate(right)])
    assert "\n" not in str(caught.value)


def test_edit_evaluator_built_by_the_setup_runs_in_the_executor_chosen():
    from beyondpass.evaluators.setup import EvaluationSetup
    from beyondpass.execution import ExecutorChoice

    right = "xs = list(map(int, input().split()))\nprint(*[2 * x for x in xs], sep='\\n')\n"
    with EvaluationSetup(ExecutorChoice("subprocess", "process"), workers=1) as setup:
        evaluator = setup.evaluator("nofuneval-edit", {"runs": 0})
        (ok,) = evaluator.evaluate([_candidate(right)])
        meta = evaluator.metadata()
    assert ok.status == "passed" and ok.metrics["runtime_correct"] == 1
    assert ok.details["timing"]["executor"] == "subprocess"
    assert ok.details["timing"]["isolation"] == "process"
    assert meta["executor"]["executor"] == "subprocess"
    assert meta["executor"]["isolation"] == "process"
    assert not setup.executor_started  # closed with the setup


def test_an_evaluator_that_runs_no_code_starts_no_executor():
    from beyondpass.evaluators.setup import EvaluationSetup, build_evaluators
    from beyondpass.execution import ExecutorChoice

    # a Ray address no cluster answers: building this executor would fail
    with EvaluationSetup(ExecutorChoice("ray", ray_address="127.0.0.1:9")) as setup:
        (classify,) = build_evaluators(setup, [("nofuneval-classify", {})])
        assert not setup.executor_started
    assert classify.name == "nofuneval-classify"


def test_edit_evaluator_runs_option_is_checked():
    from beyondpass.errors import ConfigError
    from beyondpass.evaluators.select import build_evaluator
    from beyondpass.registry import EvaluatorContext

    assert build_evaluator("nofuneval-edit", {}, EvaluatorContext()).options.runs == 25
    for bad in ({"runs": -1}, {"runs": "3"}, {"repeats": 3}):
        with pytest.raises(ConfigError):
            build_evaluator("nofuneval-edit", bad, EvaluatorContext())
