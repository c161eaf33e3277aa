"""A method from outside beyondpass plugs in through the entry point group alone.

tests/example_method/beyondpass_example is a tiny method (one evaluator, one report section,
one command). Each test puts a copy of it, plus a ``.dist-info`` declaring the
``beyondpass.methods`` entry point, in a temporary directory on the path: beyondpass finds it
exactly as it finds an installed distribution, with no edit anywhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from beyondpass import registry
from beyondpass.report.sections import section_providers

EXAMPLE = Path(__file__).parents[1] / "example_method" / "beyondpass_example"


def install(site: Path, dist: str = "beyondpass_example") -> Path:
    """A copy of the example package and a dist-info naming its entry point, in ``site``."""
    if not (site / "beyondpass_example").exists():
        shutil.copytree(EXAMPLE, site / "beyondpass_example")
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[beyondpass.methods]\nexample = beyondpass_example:METHOD\n", encoding="utf-8"
    )
    return site


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    registry.reset()
    yield site
    registry.reset()
    for name in [m for m in sys.modules if m.startswith("beyondpass_example")]:
        del sys.modules[name]


def test_entry_point_registers_the_method(on_path: Path) -> None:
    builtins = [m.rsplit(".", 1)[1] for m in registry.BUILTIN_METHODS]
    assert list(registry.methods()) == [*builtins, "example"]
    spec, owner = registry.lookup("evaluators", "answer_lines")
    assert owner.name == "example" and spec.metrics[0].name == "code_lines"
    assert "example" in [registry.resolve(r, m).name for r, m in registry.specs("commands")]


def test_same_distribution_twice_registers_once(on_path: Path, monkeypatch) -> None:
    """An editable install can expose a method twice (here: under two distribution names)."""
    second = install(on_path.parent / "again", dist="example_copy")
    monkeypatch.syspath_prepend(str(second))
    registry.reset()
    assert list(registry.methods()).count("example") == 1  # and no error about a duplicate
    assert registry.names("evaluators", former=True).count("answer_lines") == 1


def test_report_section_follows_the_contract(on_path: Path, tmp_path: Path) -> None:
    sections = [s for s in section_providers() if s.key == "example"]
    assert len(sections) == 1
    rows = [SimpleNamespace(result=SimpleNamespace(metrics={"code_lines": n})) for n in (2, 4, 9)]
    rows.append(SimpleNamespace(result=SimpleNamespace(metrics={})))  # no code: not counted
    ctx = SimpleNamespace(meta={}, rows=rows, seed=0, out_dir=tmp_path, options={})
    out = sections[0].build(ctx)
    assert out.key == "example" and "5.00 over 3 answers" in out.markdown
    assert out.artifacts == {"example-lines.txt": "2\n4\n9\n"}
    assert sections[0].build(SimpleNamespace(**{**vars(ctx), "rows": rows[3:]})) is None


def test_evaluator_command_and_study_options_end_to_end(run_cli, tmp_path: Path) -> None:
    site = install(tmp_path / "site")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"task_id": "demo/add", "completion": "def add(a, b):\n\n    return a + b\n"},
        {"task_id": "demo/add", "completion": "I cannot help with that."},
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc = run_cli(
        [
            "evaluate",
            "--benchmark",
            "demo",
            "--samples",
            answers,
            "--evaluator",
            "answer_lines",
            "--out",
            tmp_path / "out",
            "--json",
        ],
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    lines = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [line["code_lines"] for line in lines] == [2, None]
    assert summary["answer_lines"]["means"] == {"code_lines": 2.0}

    proc = run_cli(["example", "count", answers], cwd=tmp_path, env=env)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"{answers}: 2 non-blank lines")

    study = tmp_path / "study.toml"
    study.write_text(
        '[[benchmarks]]\nname = "demo"\n[[models]]\nspec = "replay:answers.jsonl"\n'
        "[evaluation.answer_lines]\ncount_blanks = true\n",
        encoding="utf-8",
    )
    proc = run_cli(["run", study, "--out", tmp_path / "run"], cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: {study}: evaluation.answer_lines: unknown key 'count_blanks' — valid: count_blank"
    ]
