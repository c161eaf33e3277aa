"""The PSB2 method end to end against a real HTTP model server on 127.0.0.1 (the
scripted OpenAI-compatible endpoint): the prompt the model gets, the answers it returns
run in the sandbox, the report's Tables; and the built-in study is listed."""

from __future__ import annotations

import textwrap
from pathlib import Path

from beyondpass.store.run_store import RunStore
from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner
from fake_endpoints import FakeEndpoint

GCD = "a = int(input())\nb = int(input())\nwhile b:\n    a, b = b, a % b\nprint(a)\n"


def _answer(prompt: str) -> str:
    """A pretend model: right for gcd, prints nothing for anything else."""
    if "largest integer that divides" in prompt:
        return f"Here you go:\n```python\n{GCD}```\n"
    return "```python\nprint()\n```"


def test_psb2_study_against_an_http_model(tmp_path: Path, data_dir: Path) -> None:
    with FakeEndpoint(responder=_answer) as server:
        study = tmp_path / "s.toml"
        study.write_text(
            textwrap.dedent(
                f"""
                name = "http"
                seed = 0
                [[benchmarks]]
                name = "psb2-edge"
                tasks = ["gcd", "basement"]
                [[models]]
                spec = "openai:pretend@{server.openai_base_url}"
                label = "pretend"
                [prompts]
                plan = "psb2-program"
                """
            )
        )
        outcome = StudyRunner(load_study(study), tmp_path / "run").run()
        assert outcome.complete
        assert server.request_count == 2
    with RunStore(tmp_path / "run", create=False) as store:
        rows = {r.sample.task_id: r for r in store.rows()}
    prompt = rows["gcd"].sample.transcript[0]["messages"][0]["content"]
    assert prompt.startswith("Generate a Python code to solve the problem!\nGiven two integers")
    assert "- line 1: a, an integer\n- line 2: b, an integer" in prompt
    assert "Output, one value per line:\n- line 1: gcd, an integer" in prompt
    assert rows["gcd"].result.status == "passed"
    assert rows["basement"].result.status == "failed"
    from beyondpass.report import render_report

    render_report(tmp_path / "run")
    report = (tmp_path / "run" / "report.md").read_text()
    section = report.split("## PSB2 pass ratios")[1]
    gcd = next(ln for ln in section.splitlines() if ln.startswith("| gcd"))
    assert gcd.split("|")[2].strip() == "100.00"


def test_builtin_study_is_listed_and_loads(run_cli, tmp_path: Path) -> None:
    proc = run_cli(["studies", "list"], cwd=tmp_path)
    assert proc.returncode == 0 and "psb2" in proc.stdout
    shown = run_cli(["studies", "show", "psb2"], cwd=tmp_path)
    assert shown.returncode == 0
    models = '\n[[models]]\nspec = "replay:none.jsonl"\n'
    (tmp_path / "psb2.toml").write_text(shown.stdout + models)
    config = load_study(tmp_path / "psb2.toml")
    assert [b.name for b in config.benchmarks] == ["psb2"]
    assert config.plan.name == "psb2-program"


def test_a_wrong_cpp_answer_never_passes(run_cli, tmp_path: Path) -> None:
    """A C++ answer that prints the wrong value is compiled and run by the C++ runner and
    does not pass: a wrong output, or the sample's time limit running out on the 10,010
    cases (2 s here: the verdict is the same, and the test does not wait out 10 s)."""
    import json

    wrong = '```cpp\n#include <iostream>\nint main() { std::cout << 0 << "\\n"; }\n```'
    (tmp_path / "a.jsonl").write_text(json.dumps({"task_id": "gcd", "response": wrong}) + "\n")
    (tmp_path / "s.toml").write_text(
        textwrap.dedent(
            """
            name = "cpp"
            seed = 0
            [[benchmarks]]
            name = "psb2-cpp"
            tasks = ["gcd"]
            [[models]]
            spec = "replay:a.jsonl"
            [prompts]
            plan = "psb2-program"
            [execution]
            timeout_s = 2
            """
        )
    )
    proc = run_cli(["run", "s.toml"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with RunStore(tmp_path / "runs" / "cpp", create=False) as store:
        (row,) = list(store.rows())
    prompt = row.sample.transcript[0]["messages"][0]["content"]
    assert prompt.startswith("Generate a C++ code to solve the problem!\n")
    assert row.result.status in ("failed", "timeout")
    first = row.result.details["tests"][0]
    assert first["status"] == "failed" and first["exit_code"] == 0, first
