"""The functional verdict of a multi-block answer also runs the other reading's program and
records whether it would change the verdict, on real gpt-5.4 answers to HumanEval; an
answer with one candidate block costs nothing more. The record reaches the report and
``evaluate``'s summary."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from beyondpass.benchmarks.humaneval import load_humaneval
from beyondpass.evaluators.base import Candidate, Evaluation
from beyondpass.evaluators.functional import BLOCK_CHOICE, FunctionalEvaluator, block_choice_summary
from beyondpass.execution import ExecutionLimits, create_executor
from beyondpass.extraction import extract
from beyondpass.report.block_choice import block_choice_counts
from shared_data import require

# (task, prompt style): the answer read passes or fails as the authors recorded, and the other
# reading's verdict, established by running both blocks on HumanEval's tests
SAMPLES = [
    # "### Completed code" with round(); the offered integer version rounds .5 up: fails
    ("HumanEval/103", "codesmell-prompt0"),
    # a float cube root that fails; the "Alternative cleaner version" with abs() passes
    ("HumanEval/77", "codesmell-prompt0"),
    # the same function with its parameter renamed: both pass
    ("HumanEval/5", "codesmell-prompt0"),
    # one definition and a usage block: a single candidate
    ("HumanEval/10", "codesmell-prompt0"),
]
OTHER_PASSES = {"HumanEval/103": False, "HumanEval/77": True, "HumanEval/5": True}


class CountingExecutor:
    """The sandbox executor, counting the programs it is asked to run."""

    def __init__(self) -> None:
        self.inner = create_executor("sandbox", workers=1)
        self.requests = 0

    def run_many(self, requests: Any, on_result: Any = None) -> Any:
        self.requests += len(requests)
        return self.inner.run_many(requests, on_result=on_result)

    def metadata(self) -> dict[str, Any]:
        return self.inner.metadata()

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(scope="module")
def judged(data_dir: Path) -> tuple[list[dict[str, Any]], list[Evaluation], int]:
    path = require(data_dir / "recorded" / "multi-block-answers.jsonl", "multi-block answers")
    rows = {
        (r["task_id"], r["prompt_style"]): r
        for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
    tasks = load_humaneval(data_dir).tasks
    picked = [rows[key] for key in SAMPLES]
    candidates = [
        Candidate(tasks[r["task_id"]], extract(r["response"], tasks[r["task_id"]])) for r in picked
    ]
    executor = CountingExecutor()
    try:
        evaluator = FunctionalEvaluator(executor, ExecutionLimits(timeout_s=10))  # type: ignore[arg-type]
        evaluations = evaluator.evaluate(candidates)
    finally:
        executor.close()
    return picked, evaluations, executor.requests


def test_the_other_reading_is_run_and_its_verdict_recorded(judged) -> None:
    rows, evaluations, _ = judged
    for row, ev in zip(rows, evaluations, strict=True):
        assert ev.passed == row["authors_passed"], row["task_id"]  # the block read, as theirs
        if row["task_id"] not in OTHER_PASSES:
            assert BLOCK_CHOICE not in ev.details
            continue
        record = ev.details[BLOCK_CHOICE]
        assert record["candidates"] == 2
        assert record["alternative_passed"] is OTHER_PASSES[row["task_id"]]
        assert record["changes_verdict"] is (OTHER_PASSES[row["task_id"]] != row["authors_passed"])


def test_only_multi_block_answers_run_a_second_program(judged) -> None:
    rows, _, requests = judged
    assert requests == len(rows) + len(OTHER_PASSES)


def test_report_and_summary_count_the_records(judged) -> None:
    rows, evaluations, _ = judged
    authors = {r["task_id"]: r["authors_passed"] for r in rows}
    changed = [t for t, passes in OTHER_PASSES.items() if passes != authors[t]]
    report_rows = [
        SimpleNamespace(sample=SimpleNamespace(benchmark="humaneval", model="gpt-5.4"), result=ev)
        for ev in evaluations
    ]
    counts = block_choice_counts(report_rows)
    assert counts[("humaneval", "gpt-5.4")] == Counter(
        samples=len(rows), multi_block=len(OTHER_PASSES), changes_verdict=len(changed),
        alternative_passes=sum(OTHER_PASSES[t] for t in changed),
    )  # fmt: skip
    records = [ev.details[BLOCK_CHOICE] for ev in evaluations if BLOCK_CHOICE in ev.details]
    summary = block_choice_summary({BLOCK_CHOICE: records}, Counter())
    assert (summary["multi_block"], summary["changes_verdict"]) == (3, len(changed))
    assert summary["means"]["other_block_changes_verdict"] == len(changed) / 3


def test_evaluate_summary_counts_the_records(judged, data_dir: Path) -> None:
    from beyondpass.study.evaluate_samples import evaluation_plan, summarize_lines

    rows, evaluations, _ = judged
    lines = [
        {"task_id": r["task_id"], "status": ev.status, "passed": ev.passed}
        | ({BLOCK_CHOICE: ev.details[BLOCK_CHOICE]} if BLOCK_CHOICE in ev.details else {})
        for r, ev in zip(rows, evaluations, strict=True)
    ]
    bench = load_humaneval(data_dir)
    summary = summarize_lines(bench, lines, len(lines), len(lines), evaluation_plan(()))
    authors = {r["task_id"]: r["authors_passed"] for r in rows}
    changed = sum(passes != authors[t] for t, passes in OTHER_PASSES.items())
    assert summary["functional"]["multi_block"] == 3
    assert summary["functional"]["changes_verdict"] == changed
    single = summarize_lines(bench, lines[3:], 1, 1, evaluation_plan(()))
    assert "functional" not in single  # nothing to say when no answer had several blocks


def test_the_report_shows_the_counts(judged, tmp_path: Path) -> None:
    from beyondpass.report.block_choice import BlockChoiceSection
    from beyondpass.report.sections import ReportContext, section_providers

    rows, evaluations, _ = judged
    authors = {r["task_id"]: r["authors_passed"] for r in rows}
    changed = [t for t, passes in OTHER_PASSES.items() if passes != authors[t]]
    report_rows = [
        SimpleNamespace(sample=SimpleNamespace(benchmark="humaneval", model="m<1>"), result=ev)
        for ev in evaluations
    ]
    assert "block-choice" in {s.key for s in section_providers()}
    out = BlockChoiceSection().build(ReportContext({}, report_rows, 0, tmp_path))  # type: ignore[arg-type]
    assert out is not None
    cells = [len(rows), len(OTHER_PASSES), len(changed), sum(OTHER_PASSES[t] for t in changed)]
    assert "| humaneval | m&lt;1&gt; | " + " | ".join(map(str, cells)) + " |" in out.markdown
    assert "m&lt;1&gt;" in out.html and "m<1>" not in out.html
    single = BlockChoiceSection().build(ReportContext({}, report_rows[3:], 0, tmp_path))  # type: ignore[arg-type]
    assert single is None


def test_a_stored_sample_keeps_the_other_reading_for_scoring_and_rescoring(
    judged, data_dir: Path
) -> None:
    """``run`` and ``evaluate`` store each sample once and score what they stored: the other
    reading survives the round trip through the sample record, the single one stays one."""
    from beyondpass.study.scoring import extraction_of, make_sample

    rows, _, _ = judged
    tasks = load_humaneval(data_dir).tasks
    for row in rows:
        task = tasks[row["task_id"]]
        fresh = extract(row["response"], task)
        sample = make_sample("k", task, "m", "c", 0, row["response"])
        stored = json.loads(json.dumps(sample.extraction))  # as the store keeps it
        back = extraction_of(type(sample)(**{**sample.__dict__, "extraction": stored}), task)
        assert back.candidates == fresh.candidates
        assert back.program == fresh.program
        if row["task_id"] in OTHER_PASSES:
            assert back.alternative is not None and fresh.alternative is not None
            assert back.alternative.program == fresh.alternative.program
            assert back.alternative.status == fresh.alternative.status
        else:
            assert back.alternative is None
