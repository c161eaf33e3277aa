"""The obfuscate transform inside a study and through the CLI, end to end.

The models are real OpenAI-compatible HTTP servers on 127.0.0.1 (tests/fake_endpoints.py)
that answer from the prompt they receive: a "memoriser" answers every task it recognises
with the original benchmark's reference (original names), a "solver" with the obfuscated
reference. On obfuscated tasks only the solver passes — the effect the method measures.
"""

from __future__ import annotations

import functools
import json
import re

import pytest

pytest.importorskip("libcst")

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.methods.obfuseval.transform import ObfuscateOptions, obfuscate_benchmark  # noqa: E402
from beyondpass.store.run_store import RunStore  # noqa: E402
from beyondpass.study.builtin import study_files  # noqa: E402
from beyondpass.study.config import load_study  # noqa: E402
from beyondpass.study.runner import StudyRunner  # noqa: E402
from fake_endpoints import FakeEndpoint  # noqa: E402

DEMO = load_benchmark("demo")
SEED = 11


@functools.cache
def by_name() -> dict[str, tuple[str, str]]:
    """Obfuscated entry point -> (original reference, obfuscated reference); obfuscated
    (and verified in the sandbox) when first asked, not at collection."""
    obfuscated, _ = obfuscate_benchmark(DEMO, ObfuscateOptions(), SEED)
    return {
        t.entry_point: (DEMO.tasks[t.task_id].reference_solution, t.reference_solution)
        for t in obfuscated.tasks.values()
    }


@pytest.fixture(autouse=True, scope="module")
def _obfuscated_before_any_server() -> None:
    """The model server's answers read ``by_name()``: made before a request waits for it."""
    by_name()


def _references(text: str) -> tuple[str, str]:
    names = by_name()
    return names[next(n for n in re.findall(r"def (\w+)\(", text) if n in names)]


def memoriser(text: str) -> str:
    return f"```python\n{_references(text)[0]}```"


def solver(text: str) -> str:
    return f"```python\n{_references(text)[1]}```"


def test_study_with_the_obfuscate_transform_scores_and_records_it(tmp_path) -> None:
    with FakeEndpoint(responder=memoriser) as mem, FakeEndpoint(responder=solver) as sol:
        path = tmp_path / "study.toml"
        path.write_text(
            f"""
name = "obfuscated-demo"
seed = {SEED}
[[benchmarks]]
name = "demo"
transform = {{ name = "obfuscate", levels = ["symbol"] }}
[[models]]
spec = "openai:memoriser@{mem.openai_base_url}"
label = "memoriser"
[[models]]
spec = "openai:solver@{sol.openai_base_url}"
label = "solver"
[[prompts.conditions]]
id = "plain"
user = "Complete the following code.\\n{{prompt}}"
""",
            encoding="utf-8",
        )
        config = load_study(path)
        outcome = StudyRunner(config, tmp_path / "run").run()
        assert outcome.complete
        # every prompt sent was the obfuscated one: no original entry point reached a model
        originals = {t.entry_point for t in DEMO.tasks.values()}
        for server in (mem, sol):
            for request in server.requests:
                sent = request.body["messages"][-1]["content"]
                assert not originals & set(re.findall(r"\w+", sent)), sent
    rates = {s.model: s.pass_at[1] for s in outcome.summaries}
    assert rates == {"memoriser": 0.0, "solver": 1.0}
    with RunStore(tmp_path / "run", create=False) as store:
        meta = store.get_meta("benchmarks")["demo"]
    assert meta["transform"] == {
        "name": "obfuscate",
        "version": "1",
        "options": {
            "levels": ["symbol"],
            "variants": 1,
            "verify": True,
            "scenario": None,
            "context": False,
        },
        "seed": SEED,
        "input_version": DEMO.version,
    }
    assert meta["version"] != DEMO.version


def test_cli_writes_a_loadable_task_file_and_a_report(tmp_path, run_cli) -> None:
    out = tmp_path / "demo-obf.jsonl"
    done = run_cli(
        ["obfuscate", "--benchmark", "demo", "--variants", "2", "--seed", "4", "--out", out],
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "16 of 16 variants verified" in done.stdout
    loaded = load_benchmark(f"file:{out}")
    assert len(loaded) == 16
    report = json.loads((tmp_path / "demo-obf.jsonl.report.json").read_text())
    assert report["n_verified"] == 16 and report["excluded"] == []
    assert report["input"]["version"] == DEMO.version
    # the file's tasks are exactly the transform's (same seed, same variants)
    again, _ = obfuscate_benchmark(DEMO, ObfuscateOptions(variants=2), 4)
    for tid, task in again.tasks.items():
        assert loaded.tasks[tid].prompt == task.prompt
        assert loaded.tasks[tid].tests == task.tests
        assert (
            loaded.tasks[tid].metadata["obfuscation"]["mapping"]
            == (task.metadata["obfuscation"]["mapping"])
        )


@pytest.mark.parametrize(
    ("level", "message"),
    [
        (
            "symbol,shuffle",
            "error: --level: unknown level 'shuffle' — choose from symbol, structure, semantic",
        ),
        ("symbol,symbol", "error: --level: 'symbol,symbol' names a level twice"),
    ],
)
def test_cli_rejects_levels_in_one_line(tmp_path, run_cli, level: str, message: str) -> None:
    out = tmp_path / "x.jsonl"
    done = run_cli(
        ["obfuscate", "--benchmark", "demo", "--level", level, "--out", out], cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert not out.exists()


def test_builtin_study_declares_the_transform_on_both_benchmarks() -> None:

    config = load_study(study_files()["obfuseval"], ["openai:any-model"])
    assert [b.name for b in config.benchmarks] == ["humaneval", "mbpp"]
    for choice in config.benchmarks:
        assert choice.transform is not None
        assert choice.transform.name == "obfuscate"
        assert choice.transform.options == {
            "levels": ["symbol"],
            "variants": 3,
            "verify": True,
            "scenario": None,
            "context": False,
        }
