"""``beyondpass robustapi check``: the command's contract (options, files, field names) and
its handling of bad input (one-line errors, exit 2, earlier outputs untouched)."""

from __future__ import annotations

import json
import shutil

import pytest

from beyondpass.store.run_store import RunStore
from pause_points import run_until_paused

SUMMARY_FIELDS = {
    "n",
    "n_misuse",
    "n_pass",
    "n_unparsable",
    "n_no_code",
    "misuse_rate",
    "executable_rate",
    "overall_misuse_rate",
}

GUARDED = (
    "<<<api>>>: Iterator.next\n<<<code>>>: ```java\nwhile (it.hasNext()) {\n"
    "    use(it.next());\n}\n```\n<<<explanation>>>: ok"
)
UNGUARDED = (
    "<<<api>>>: Iterator.next\n<<<code>>>: ```java\nIterator<String> it = l.iterator();\n"
    "use(it.next());\n```"
)
BROKEN = "<<<api>>>: Map.get\n<<<code>>>: ```java\nint x = ;\n```"
PROSE = "Map.get does not apply to your code."


def write_answers(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def check(run_cli, tmp_path, data_dir):
    """``beyondpass robustapi check --answers ANSWERS OPTIONS... --data-dir DATA`` in tmp_path."""

    def run(answers, *options):
        args = ["robustapi", "check", "--answers", answers, *options, "--data-dir", data_dir]
        return run_cli(args, cwd=tmp_path)

    return run


@pytest.fixture
def answers(tmp_path, data_dir):
    questions = [json.loads(x) for x in (data_dir / "robustapi" / "question.jsonl").open()]
    it_ids = [q["id"] for q in questions if q["api"] == "Iterator.next"][:2]
    map_ids = [q["id"] for q in questions if q["api"] == "Map.get"][:2]
    return write_answers(
        tmp_path / "answers.jsonl",
        [
            {"id": it_ids[0], "response": GUARDED},
            {"id": it_ids[1], "response": UNGUARDED},
            {"id": map_ids[0], "response": BROKEN},
            {"id": str(map_ids[1]), "response": PROSE, "api": "Map.get"},
        ],
    )


def test_check_json_summary_and_verdict_lines(check, tmp_path, answers):
    out = tmp_path / "out"
    proc = check(answers, "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert set(summary) >= SUMMARY_FIELDS
    assert (summary["n"], summary["n_misuse"], summary["n_pass"]) == (4, 1, 1)
    assert (summary["n_unparsable"], summary["n_no_code"]) == (1, 1)
    assert summary["misuse_rate"] == 0.5
    assert summary["executable_rate"] == 0.5
    assert summary["overall_misuse_rate"] == 0.25
    assert summary["semantics"] == "correct"
    assert summary["by_api"]["Iterator.next"]["n_misuse"] == 1
    lines = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    assert [x["verdict"] for x in lines] == ["pass", "violation", "unparsable", "no_code"]
    for line in lines:
        assert {"id", "api", "verdict", "violations"} <= set(line)
    # ids keep the JSON type the input gave them (three ints, then a string)
    assert [type(x["id"]) for x in lines] == [int, int, int, str]
    (violation,) = lines[1]["violations"]
    assert violation["api"] == "Iterator.next"
    assert violation["line"] == 4  # line of it.next() in the answer
    assert violation["rule"].startswith("pat_list.txt:")
    assert violation["pattern"] == "Iterator#next#next()@rcv.hasNext()"
    assert json.loads((out / "summary.json").read_text())["n"] == 4


def test_check_original_semantics(check, tmp_path, answers):
    out = tmp_path / "orig"
    proc = check(answers, "--out", out, "--semantics", "original", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    # an undeclared receiver has no type for the original checker (pass); the declared
    # iterator's next() is misuse; prose answers are unparsable (there is no no_code)
    assert summary["semantics"] == "original"
    assert (summary["n_misuse"], summary["n_pass"], summary["n_no_code"]) == (1, 1, 0)
    verdicts = [json.loads(x)["verdict"] for x in (out / "verdicts.jsonl").read_text().splitlines()]
    assert verdicts == ["pass", "violation", "unparsable", "unparsable"]


def test_check_human_output(check, tmp_path, answers):
    proc = check(answers)
    assert proc.returncode == 0, proc.stderr
    assert "misuse rate 50.0%, executable 50.0%" in proc.stdout
    default = tmp_path / "beyondpass-robustapi" / "answers-correct" / "verdicts.jsonl"
    assert default.is_file()


@pytest.fixture(scope="module")
def checked_once(run_cli, data_dir, tmp_path_factory):
    """A run of one good answer, checked once for every bad-line case below (each works on
    its own copy)."""
    folder = tmp_path_factory.mktemp("checked-once")
    good = write_answers(folder / "good.jsonl", [{"id": 0, "response": GUARDED}])
    args = ["robustapi", "check", "--answers", good, "--out", folder / "out"]
    first = run_cli([*args, "--data-dir", data_dir], cwd=folder)
    assert first.returncode == 0, first.stderr
    return folder / "out"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "answers.jsonl:2: invalid JSON (Expecting property name"),
        ('["a list"]', "answers.jsonl:2: expected a JSON object"),
        ('{"response": "x"}', "answers.jsonl:2: no usable id"),
        (
            '{"id": 999999, "response": "x"}',
            "answers.jsonl:2: id 999999 is not a RobustAPI question",
        ),
        ('{"id": 1}', "answers.jsonl:2: no answer text"),
        ('{"id": 1, "response": 5}', "answers.jsonl:2: no answer text"),
    ],
)
def test_bad_answer_lines_are_reported_and_nothing_is_lost(
    checked_once, check, tmp_path, line, message
):
    out = tmp_path / "out"
    shutil.copytree(checked_once, out)  # a copy: every case starts from the same run
    before = (out / "verdicts.jsonl").read_bytes()
    bad = tmp_path / "answers.jsonl"
    bad.write_text(json.dumps({"id": 0, "response": GUARDED}) + "\n" + line + "\n")
    proc = check(bad, "--out", out)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert (out / "verdicts.jsonl").read_bytes() == before


def test_bad_rule_file_and_missing_answers(check, tmp_path, answers):
    rules = tmp_path / "rules.txt"
    rules.write_text("Iterator#next#next()@rcv.hasNext(\n")
    proc = check(answers, "--rules", rules)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: rules.txt:1: column")
    missing = check(tmp_path / "nope.jsonl")
    assert missing.returncode == 2 and "nope.jsonl does not exist" in missing.stderr


def test_custom_rules_are_used(check, tmp_path, answers):
    rules = tmp_path / "rules.txt"
    rules.write_text("Map#get#get(String)@true, IF, END_BLOCK\n")
    proc = check(answers, "--rules", rules, "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["n_misuse"] == 0  # the Iterator rule is gone
    assert summary["checker"]["rules"] == "rules.txt"


# -- one path: the check is an evaluation in a run store -------------------------------------
def test_check_is_a_run_that_report_and_rescore_read(check, run_cli, tmp_path, answers, data_dir):
    out = tmp_path / "out"
    proc = check(answers, "--out", out, "--semantics", "original", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["run_dir"] == str(out)
    exported = (out / "verdicts.jsonl").read_bytes()
    with RunStore(out, create=False) as store:
        rows = list(store.rows())
        assert store.get_meta("samples")["reader"]["options"]["semantics"] == "original"
    assert len(rows) == 4
    by_id = {int(r.sample.task_id): r.result for r in rows}
    for line in map(json.loads, exported.decode().splitlines()):  # the export is the store's
        stored = by_id[int(line["id"])]
        assert line["verdict"] == stored.details["original"]["verdict"]
        assert line["violations"] == stored.details["original"]["violations"]

    report = run_cli(["report", out], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "API misuse" in (out / "report.md").read_text()
    (out / "verdicts.jsonl").write_text("")  # rescore writes the export again
    again = run_cli(["rescore", out, "--data-dir", data_dir], cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (out / "verdicts.jsonl").read_bytes() == exported


def test_check_killed_mid_run_resumes_without_rescoring(check, run_cli, tmp_path, data_dir):
    questions = [json.loads(x) for x in (data_dir / "robustapi" / "question.jsonl").open()]
    rows = [{"id": q["id"], "response": GUARDED if i % 2 else UNGUARDED}
            for i, q in enumerate(questions[:40])]  # fmt: skip
    answers = write_answers(tmp_path / "answers.jsonl", rows)
    out = tmp_path / "out"
    args = ["robustapi", "check", "--answers", answers, "--out", out, "--data-dir", data_dir]
    stored = run_until_paused(args, tmp_path, "robustapi", after=5)
    with RunStore(out, create=False) as store:
        before = {e.key: e.created_at for e in store.evaluations("robustapi")}
        assert len(store.sample_keys()) == 40  # every answer stored before scoring began
    assert sorted(before) == sorted(stored) and len(before) == 5

    proc = check(answers, "--out", out)
    assert proc.returncode == 0, proc.stderr
    with RunStore(out, create=False) as store:
        after = store.evaluations("robustapi")
    assert sorted(e.key for e in after) == sorted(set(e.key for e in after))  # each once
    assert len(after) == 40
    assert all(e.created_at == before[e.key] for e in after if e.key in before)  # kept
    verdicts = (out / "verdicts.jsonl").read_text().splitlines()
    assert [json.loads(v)["id"] for v in verdicts] == [r["id"] for r in rows]


def test_an_api_that_is_not_the_questions_is_refused(check, tmp_path):
    bad = write_answers(
        tmp_path / "answers.jsonl", [{"id": 0, "response": GUARDED, "api": "Map.get"}]
    )
    proc = check(bad)
    assert proc.returncode == 2
    assert "answers.jsonl:1: api 'Map.get' is not question 0's API" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_folder_holding_answers_checked_with_other_rules_is_refused(check, tmp_path, answers):
    out = tmp_path / "out"
    assert check(answers, "--out", out).returncode == 0
    before = (out / "verdicts.jsonl").read_bytes()
    rules = tmp_path / "rules.txt"
    rules.write_text("Map#get#get(String)@true, IF, END_BLOCK\n")
    proc = check(answers, "--out", out, "--rules", rules)
    assert proc.returncode == 2
    assert "read as robustapi-answers" in proc.stderr and "choose another --out" in proc.stderr
    assert (out / "verdicts.jsonl").read_bytes() == before
    other = check(answers, "--out", out, "--semantics", "original")  # the store holds both
    assert other.returncode == 0, other.stderr
