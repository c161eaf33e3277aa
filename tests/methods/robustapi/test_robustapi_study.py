"""RobustAPI through ``beyondpass run``: the three prompt settings, replayed answers, the
misuse checker deciding the verdict, both semantics stored and reported."""

from __future__ import annotations

import json
from pathlib import Path

from beyondpass.benchmarks import load_benchmark
from beyondpass.methods.robustapi.prompts import shots
from beyondpass.store.run_store import RunStore
from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner

GOOD = (
    "<<<api>>>: Iterator.next\n<<<code>>>: ```java\nIterator<String> it = l.iterator();\n"
    "while (it.hasNext()) {\n    use(it.next());\n}\n```\n<<<explanation>>>: guarded"
)
BAD = (
    "<<<api>>>: Iterator.next\n<<<code>>>: ```java\nIterator<String> it = l.iterator();\n"
    "use(it.next());\n```\n<<<explanation>>>: unguarded"
)


def test_builtin_study_resolves_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_study("studies/robustapi.toml", ["replay:answers.jsonl"])
    assert config.name == "robustapi"
    assert [c.id for c in config.plan.conditions] == [
        "zero-shot",
        "one-shot-irrelevant",
        "one-shot-relevant",
    ]
    assert config.benchmarks[0].name == "robustapi"
    assert (config.sampling.temperature, config.sampling.top_p) == (0.2, 0.9)


def test_replayed_study_scores_misuse_in_three_settings(tmp_path, data_dir):
    bench = load_benchmark("robustapi", data_dir)
    ids = [t for t, task in bench.tasks.items() if task.metadata["api"] == "Iterator.next"][:3]
    recorded = {
        str(json.loads(line)["id"]): json.loads(line)["response"]
        for line in (data_dir / "recorded" / "robustapi-gpt-4-0613-zero_shot.jsonl").open()
    }
    rows = []
    for tid in ids:
        rows.append({"id": tid, "condition": "zero-shot", "response": recorded[tid]})
        rows.append({"id": tid, "condition": "one-shot-irrelevant", "response": BAD})
        rows.append({"id": tid, "condition": "one-shot-relevant", "response": GOOD})
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    study = tmp_path / "study.toml"
    study.write_text(
        f'name = "ra"\n[[benchmarks]]\nname = "robustapi"\ntasks = {json.dumps(ids)}\n'
        '[prompts]\nplan = "robustapi"\n[[models]]\nspec = "replay:answers.jsonl"\nlabel = "m"\n'
    )
    outcome = StudyRunner(load_study(study), tmp_path / "run", data_dir=str(data_dir)).run()
    assert outcome.complete, outcome.failures

    with RunStore(tmp_path / "run", create=False) as store:
        rows_out = list(store.rows())
        evaluators = store.get_meta("evaluators")
    assert evaluators[0]["evaluator"] == "robustapi"
    assert evaluators[0]["rules"] == "pat_list.txt"
    assert "tree-sitter-java" in evaluators[0]
    by = {(r.sample.task_id, r.sample.condition): r for r in rows_out}
    for tid in ids:
        bad = by[(tid, "one-shot-irrelevant")].result
        good = by[(tid, "one-shot-relevant")].result
        assert (bad.status, bad.metrics["misuse"]) == ("violation", True)
        assert (good.status, good.metrics["misuse"]) == ("pass", False)
        # a misuse check is no test run: neither verdict is a pass/fail pass@1 counts
        assert not bad.checked and not good.checked
        assert good.metrics["verdict_original"] == "violation"  # the published semantics
        assert bad.details["violations"][0]["api"] == "Iterator.next"
        # what was asked: the seed's prompt, with the right demonstration
        zero = by[(tid, "zero-shot")].sample.transcript[0]["messages"][0]["content"]
        irrelevant = by[(tid, "one-shot-irrelevant")].sample.transcript[0]["messages"][0]["content"]
        relevant = by[(tid, "one-shot-relevant")].sample.transcript[0]["messages"][0]["content"]
        assert zero.startswith("Please answer my code questions using the given API")
        assert zero.endswith("Please using this api: Iterator.next.\nAnswer:")
        assert bench.tasks[tid].prompt in zero
        assert "Arrays.stream" in irrelevant and "Arrays.stream" not in zero
        assert shots()["Iterator.next"]["question"] in relevant
        assert by[(tid, "zero-shot")].sample.extraction["status"] in (
            "ok",
            "no_code",
            "syntax_error",
        )

    from beyondpass.report import render_report

    paths = render_report(tmp_path / "run")
    markdown = paths.markdown.read_text()
    assert "### API misuse: robustapi" in markdown
    html = paths.html.read_text()
    assert "API misuse (RobustAPI)" in html and 'id="b1-mu"' in html


def test_run_command_with_replay(run_cli, tmp_path, data_dir):
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": 300, "response": BAD}) + "\n")
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "one"\n[[benchmarks]]\nname = "robustapi"\ntasks = ["300"]\n'
        '[prompts]\nplan = "robustapi"\n'
    )
    proc = run_cli(
        [
            "run",
            study,
            "--model",
            f"replay:{answers}",
            "--out",
            tmp_path / "run",
            "--json",
            "--data-dir",
            data_dir,
            "--no-cache",
            "--no-report",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["complete"] and payload["samples_scored"] == 3
    assert {g["status_counts"].get("violation") for g in payload["groups"]} == {1}
    assert Path(payload["run_dir"]).is_dir()
