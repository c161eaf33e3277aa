"""``beyondpass robustapi check``: the command's contract (options, files, field names) and
its handling of bad input (one-line errors, exit 2, earlier outputs untouched)."""

from __future__ import annotations

import json

import pytest

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
def test_bad_answer_lines_are_reported_and_nothing_is_lost(check, tmp_path, line, message):
    out = tmp_path / "out"
    good = write_answers(tmp_path / "good.jsonl", [{"id": 0, "response": GUARDED}])
    first = check(good, "--out", out)
    assert first.returncode == 0, first.stderr
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
