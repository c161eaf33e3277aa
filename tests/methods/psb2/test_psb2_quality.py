"""Static quality metrics of the PSB2 method on hand-counted snippets, and the
evaluator in a real run."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

from beyondpass.methods.psb2.quality import python_quality
from psb2_study import run_gcd_study

# statements: def, if, for, if, pass, elif(if), while, break, return = 9
# decisions: if, for, if, elif, while, and (boolean op) = 6 -> McCabe 7
# nesting: if > for > if = 3; the elif stays on level 1, its while is level 2
SNIPPET = textwrap.dedent(
    """
    def f(a, b):
        if a:
            for i in a:
                if i and b:
                    pass
        elif a is None:
            while True:
                break
        return a
    """
)


def test_metrics_match_the_hand_counts() -> None:
    assert python_quality(SNIPPET) == {"lloc": 9, "nos": 9, "mccabe": 7, "nesting": 3}


def test_an_elif_chain_is_one_level_and_a_function_body_starts_again() -> None:
    chain = "if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    x = 3\nelse:\n    x = 4\n"
    assert python_quality(chain)["nesting"] == 1
    nested_else = "if a:\n    x = 1\nelse:\n    x = 2\n    if b:\n        x = 3\n"
    assert python_quality(nested_else)["nesting"] == 2
    inner = "for i in x:\n    def g():\n        if y:\n            pass\n"
    assert python_quality(inner)["nesting"] == 1


def test_comments_and_blank_lines_are_not_logical_lines_a_docstring_is_one() -> None:
    code = '"""doc"""\n# note\n\nx = 1\ny = 2  # tail\n'
    assert python_quality(code)["lloc"] == 3
    with pytest.raises(SyntaxError):
        python_quality("def (:\n")


def test_the_evaluator_adds_the_metrics_in_a_run(run_cli, tmp_path: Path) -> None:
    run = run_gcd_study(run_cli, tmp_path, "q", '[evaluation]\nevaluators = ["psb2-quality"]\n')
    db = sqlite3.connect(run / "run.sqlite3")
    (metrics,) = db.execute(
        "select metrics from evaluations where evaluator = 'psb2-quality'"
    ).fetchone()
    # 5 statements, one per logical line; one loop -> McCabe 2; one block level
    assert json.loads(metrics) == {"lloc": 5, "nos": 5, "mccabe": 2, "nesting": 1}


def test_smells_are_counted_per_rule_and_severity(tmp_path: Path) -> None:
    from beyondpass.methods.psb2.findings import tally
    from beyondpass.methods.psb2.smells_python import pylint_findings

    path = tmp_path / "a.py"
    path.write_text('"""Doc."""\nimport os\n\n\ndef f(x):\n    """Doc."""\n    return nope + x\n')
    metrics, rules = tally(pylint_findings([path], 300)["a.py"])
    assert rules == {"undefined-variable (E0602)": 1, "unused-import (W0611)": 1}
    assert metrics["smells"] == 2
    assert (metrics["smells_error"], metrics["smells_warning"], metrics["smells_convention"]) == (
        1,
        1,
        0,
    )


def test_smell_evaluator_in_a_run_keeps_answers_apart(run_cli, tmp_path: Path) -> None:
    clean = '```python\n"""Gcd."""\nimport math\n\nprint(math.gcd(int(input()), int(input())))\n```'
    dirty = "```python\nimport os\nx = int(input())\nprint('Fizz' if x % 3 == 0 else x)\n```"
    rows = [{"task_id": "gcd", "response": clean}, {"task_id": "fizz-buzz", "response": dirty}]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "s.toml").write_text(
        textwrap.dedent(
            """
            name = "sm"
            seed = 0
            [[benchmarks]]
            name = "psb2-edge"
            tasks = ["gcd", "fizz-buzz"]
            [[models]]
            spec = "replay:a.jsonl"
            [prompts]
            plan = "psb2-program"
            [evaluation]
            evaluators = ["psb2-smells"]
            """
        )
    )
    proc = run_cli(["run", "s.toml"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    db = sqlite3.connect(tmp_path / "runs" / "sm" / "run.sqlite3")
    got = {
        task: json.loads(details)["smell_rules"]
        for task, details in db.execute(
            "select s.task_id, e.details from evaluations e join samples s on s.key = e.key "
            "where e.evaluator = 'psb2-smells'"
        )
    }
    assert got["gcd"] == {}
    assert got["fizz-buzz"] == {
        "missing-module-docstring (C0114)": 1,
        "unused-import (W0611)": 1,
    }
