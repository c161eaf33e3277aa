"""A study with ``[evaluation] nfr = true``: replayed answers, NFR metrics stored with every
result, and the evaluator's configuration and tool versions in the run metadata."""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError
from beyondpass.methods.robunfr.evaluators.code_metrics import count_code
from beyondpass.methods.robunfr.evaluators.nfr import NFR_METRICS
from beyondpass.store.run_store import RunStore
from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner

DEMO = load_benchmark("demo")

STUDY = """
name = "nfr-replayed"
seed = 3
[[benchmarks]]
name = "demo"
[[models]]
spec = "replay:answers.jsonl"
label = "recorded"
[[prompts.conditions]]
id = "function-only"
user = "Complete the following code.\\n{prompt}"
[[prompts.conditions]]
id = "reliability"
user = "Given the problem description, generate code by considering error handling.\\n{prompt}"
[evaluation]
nfr = true
"""

GUARDED_ADD = (
    "```python\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Sum of two integers."""\n'
    "    if not isinstance(a, int) or not isinstance(b, int):\n"
    '        raise TypeError("integers only")\n'
    "    return a + b\n"
    "```"
)


def write_answers(path: Path) -> None:
    rows = []
    for tid, task in DEMO.tasks.items():
        rows.append(
            {
                "task_id": tid,
                "condition": "function-only",
                "response": f"```python\n{task.reference_solution}```",
            }
        )
        answer = f"```python\n{task.reference_solution}```"
        if tid == "demo/add":
            answer = GUARDED_ADD
        elif tid == "demo/fizzbuzz":
            answer = "To solve this, loop from 1 to n and pick the right word."
        elif tid == "demo/flatten":
            answer = "```python\ndef flatten(items):\n    return items\n```"
        rows.append({"task_id": tid, "condition": "reliability", "response": answer})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_study_with_nfr_stores_metrics_and_configuration(tmp_path: Path) -> None:
    write_answers(tmp_path / "answers.jsonl")
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    config = load_study(tmp_path / "study.toml")
    assert (config.uses("nfr"), config.timing_repeats) == (True, 5)
    outcome = StudyRunner(config, tmp_path / "run", workers=2).run()
    assert outcome.complete and outcome.scored == outcome.expected == 16

    with RunStore(tmp_path / "run", create=False) as store:
        rows = {(r.sample.condition, r.sample.task_id): r for r in store.rows()}
        evaluators = store.get_meta("evaluators")
        executor = store.get_meta("executor")
        packages = store.get_meta("environment")["packages"]

    no_code = rows[("reliability", "demo/fizzbuzz")]
    assert no_code.result.status == "no_code"
    assert not set(NFR_METRICS) & set(no_code.result.metrics)
    assert "exec_time_ms" not in no_code.result.metrics

    wrong = rows[("reliability", "demo/flatten")]
    assert wrong.result.status == "failed"
    assert "exec_time_ms" not in wrong.result.metrics  # time is only meaningful when passing
    assert set(NFR_METRICS) <= set(wrong.result.metrics)

    for (_condition, _tid), row in rows.items():
        if row.sample.extraction["status"] != "ok":
            continue
        metrics = row.result.metrics
        counts = count_code(row.sample.program)
        assert (metrics["loc"], metrics["exception_handling"]) == (
            counts.loc,
            counts.exception_handling,
        )
        assert metrics["smell_density"] == pytest.approx(
            metrics["pylint_refactor"] * 10 / metrics["loc"]
        )
        assert len(row.result.details["nfr"]["pylint_messages"]) >= (
            metrics["pylint_refactor"] + metrics["pylint_convention"]
        )
        if row.result.passed:
            assert metrics["exec_time_ms"] > 0
            assert all(len(t["times_ns"]) == 5 for t in row.result.details["tests"])

    guarded = rows[("reliability", "demo/add")].result.metrics
    plain = rows[("function-only", "demo/add")].result.metrics
    assert guarded["exception_handling"] == 1 and plain["exception_handling"] == 0
    assert guarded["exception_density"] == pytest.approx(10 / guarded["loc"])

    assert executor["timing_repeats"] == 5
    nfr_meta = next(e for e in evaluators if e["evaluator"] == "nfr")
    assert nfr_meta["pylint"]["pylint"] == version("pylint")
    assert nfr_meta["pylint"]["astroid"] == version("astroid")
    assert "[MESSAGES CONTROL]" in nfr_meta["pylint"]["pylintrc"]
    assert (packages["pylint"], packages["astroid"]) == (version("pylint"), version("astroid"))


def test_study_without_evaluation_table_has_no_nfr(tmp_path: Path) -> None:
    body = STUDY.replace("[evaluation]\nnfr = true\n", "")
    (tmp_path / "study.toml").write_text(body, encoding="utf-8")
    config = load_study(tmp_path / "study.toml")
    assert (config.uses("nfr"), config.timing_repeats) == (False, 0)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("nfr = true\npylint = true\n", "unknown key 'pylint' in [evaluation]"),
        ('nfr = "yes"\n', "evaluation.nfr: expected bool"),
        ("nfr = true\ntiming_repeats = -1\n", "timing_repeats must be an integer >= 0"),
    ],
)
def test_bad_evaluation_table_is_a_config_error(tmp_path: Path, table: str, message: str) -> None:
    body = STUDY.replace("[evaluation]\nnfr = true\n", "[evaluation]\n" + table)
    (tmp_path / "study.toml").write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_study(tmp_path / "study.toml")


def test_timing_repeats_can_be_chosen(tmp_path: Path) -> None:
    body = STUDY.replace("nfr = true\n", "nfr = true\ntiming_repeats = 3\n")
    (tmp_path / "study.toml").write_text(body, encoding="utf-8")
    assert load_study(tmp_path / "study.toml").timing_repeats == 3
