"""The rule language: the real rule file parses; malformed lines fail with file:line."""

from __future__ import annotations

import pytest

from beyondpass.methods.robustapi.checker.checker import ERRATA, build_ruleset, load_ruleset
from beyondpass.methods.robustapi.checker.rule_grammar import RuleError, parse_rule, parse_rules
from beyondpass.methods.robustapi.checker.rules import (
    BoolOp,
    Call,
    Compare,
    Lit,
    Not,
    Ref,
    guard_text,
)


def test_real_rule_file_parses(data_dir):
    rules = load_ruleset(data_dir=data_dir, semantics="original").rules
    assert len(rules) == len((data_dir / "robustapi" / "pat_list.txt").read_text().splitlines())
    apis = {r.api for r in rules}
    assert {"Iterator.next", "Map.get", "BufferedReader.readLine", "File.mkdir"} <= apis
    readline = [r for r in rules if r.api == "BufferedReader.readLine"]
    assert len(readline) == 4
    assert readline[-1].structure[0].handlers[0].catch_type == "IOException"


def test_guards_become_expressions():
    rule = parse_rule("List#get#LOOP, get(int)@arg0<rcv.size(), END_BLOCK", source="r", line=7)
    loop = rule.structure[0]
    focal = loop.body[0]
    assert isinstance(focal, Call) and focal is rule.focal
    assert focal.guard == Compare("<", Ref("arg0"), Ref("rcv", (("size", ()),)))
    rule = parse_rule("A#m#m(int)@!(rcv==null) && rcv.has(arg0, 1) || ret>=2")
    assert isinstance(rule.focal.guard, BoolOp) and rule.focal.guard.op == "||"
    left = rule.focal.guard.operands[0]
    assert isinstance(left.operands[0], Not)
    assert left.operands[1] == Ref("rcv", (("has", (Ref("arg0"), Lit(1))),))
    assert guard_text(rule.focal.guard) == "!rcv==null && rcv.has(arg0,1) || ret>=2"
    assert rule.id == "<rules>:1"


def test_constructor_and_array_params():
    rule = parse_rule(
        "FileInputStream#FileInputStream#TRY, new FileInputStream(File)@true, END_BLOCK, "
        "CATCH(Exception), END_BLOCK"
    )
    assert rule.focal.is_new and rule.focal.key == "new FileInputStream"
    rule = parse_rule("RandomAccessFile#write#write(byte[], int)@true")
    assert rule.focal.params == ("byte[]", "int")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("File#createNewFile", "column 19: unexpected end of line, expected '#'"),
        ("File#x#x(", "column 10: unexpected end of line"),
        ("File#x#x()@rcv!=", "unexpected end of line, expected"),
        ("File#x#TRY, x()@true, END_BLOCK", "TRY block has neither CATCH nor FINALLY"),
        (
            "A#b#CATCH(Exception), b()",
            "item 1 (CATCH(Exception)) must follow the END_BLOCK of a TRY",
        ),
        ("A#b#IF, b(), END_BLOCK, END_BLOCK", "item 4 (END_BLOCK) closes no open block"),
        ("A#b#LOOP, b()", "LOOP block is never closed"),
        ("A#b#ELSE, b(), END_BLOCK", "item 1 (ELSE) must follow the END_BLOCK of an IF"),
        ("A#b#b()@arg2<rcv.size()", "uses arg2, but the call has 0 parameter(s)"),
        ("A#b#b()@rcv.size(", "column"),
        ("A#b#b()%", "unexpected character '%'"),
    ],
)
def test_malformed_lines_name_file_line_and_problem(line, message):
    text = "Iterator#next#next()@rcv.hasNext()\n\n" + line + "\n"
    with pytest.raises(RuleError) as info:
        parse_rules(text, source="mine.txt")
    assert str(info.value).startswith("mine.txt:3: ")
    assert message in str(info.value)


def test_empty_rule_file_is_an_error():
    with pytest.raises(RuleError, match="no rules"):
        parse_rules("\n\n", source="empty.txt")


def test_errata_apply_only_in_correct_semantics():
    line = next(iter(ERRATA))
    correct = build_ruleset(line + "\n", "p.txt", "correct")
    original = build_ruleset(line + "\n", "p.txt", "original")
    assert [r.api for r in correct.rules] == ["File.mkdirs"]
    assert correct.rules[0].sequence == "exists()@true, mkdirs()@true"
    assert correct.replaced[0][0].text == line
    assert [r.api for r in original.rules] == ["File.mkdir"] and not original.replaced
    assert original.rules[0].focal is None  # as written, the rule never applies to mkdirs()


def test_rules_cli_reports_a_bad_line(run_cli, tmp_path, data_dir):
    bad = tmp_path / "rules.txt"
    bad.write_text("Iterator#next#next()@rcv.hasNext()\nMap#get#get(String)@true, IF\n")
    proc = run_cli(["robustapi", "rules", "--rules", bad], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: rules.txt:2: IF block is never closed (add END_BLOCK)"
    good = run_cli(["robustapi", "rules", "--data-dir", data_dir, "--json"], cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    import json

    listing = json.loads(good.stdout)
    by_api = {r["api"]: r for r in listing["rules"]}
    assert by_api["File.mkdirs"]["replaces"] == "File#mkdir#mkdirs()@true"
    assert by_api["Activity.super"]["applies"] is False
