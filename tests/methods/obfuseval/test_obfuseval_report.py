"""ObfusEval's report section and `beyondpass obfuseval decrease`, on two real runs of the demo
benchmark (original, and obfuscated in two verified variants) by three models served over
HTTP on 127.0.0.1 (tests/fake_endpoints.py), whose behaviour the test fixes:

- "memoriser" always answers the original reference (original names): right on the original
  tasks, wrong on every obfuscated one;
- "adapter" answers the reference in whatever names the prompt uses: right everywhere;
- "half" does that for the tasks of a fixed half only, and answers wrongly on the rest.

Every expected number is computed here from those rules, not by the code under test.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
from scipy.stats import kendalltau

pytest.importorskip("libcst")

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.methods.obfuseval.transform import ObfuscateOptions, obfuscate_benchmark  # noqa: E402
from beyondpass.report.render import render_report  # noqa: E402
from beyondpass.study.config import load_study  # noqa: E402
from beyondpass.study.runner import StudyRunner  # noqa: E402
from fake_endpoints import FakeEndpoint  # noqa: E402

DEMO = load_benchmark("demo")
SEED = 5
TASKS = sorted(DEMO.tasks)
HALF = set(TASKS[::2])


@functools.cache
def by_name() -> dict[str, tuple[str, str]]:
    """Entry point (original or obfuscated) -> (original task id, reference in those
    names); obfuscated (and verified in the sandbox) when first asked, not at collection."""
    obf, _ = obfuscate_benchmark(DEMO, ObfuscateOptions(variants=2), SEED)
    found = {t.entry_point: (tid, t.reference_solution) for tid, t in DEMO.tasks.items()}
    return found | {
        t.entry_point: (t.metadata["obfuscation"]["original_task_id"], t.reference_solution)
        for t in obf.tasks.values()
    }


@pytest.fixture(autouse=True, scope="module")
def _obfuscated_before_any_server() -> None:
    """The model server's answers read ``by_name()``: made before a request waits for it."""
    by_name()


def _task(text: str) -> tuple[str, str]:
    names = by_name()
    return names[next(n for n in re.findall(r"def (\w+)\(", text) if n in names)]


def memoriser(text: str) -> str:
    tid, _ = _task(text)
    return f"```python\n{DEMO.tasks[tid].reference_solution}```"


def adapter(text: str) -> str:
    return f"```python\n{_task(text)[1]}```"


def half(text: str) -> str:
    tid, ref = _task(text)
    if tid in HALF:
        return f"```python\n{ref}```"
    name = re.search(r"def (\w+)\(", ref)[1]
    return f"```python\ndef {name}(*args, **kwargs):\n    return None\n```"


def _study(tmp_path, name: str, servers: dict, transform: bool) -> str:
    models = "".join(
        f'[[models]]\nspec = "openai:{label}@{s.openai_base_url}"\nlabel = "{label}"\n'
        for label, s in servers.items()
    )
    line = 'transform = { name = "obfuscate", levels = ["symbol"], variants = 2 }\n'
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\nseed = {SEED}\n[[benchmarks]]\nname = "demo"\n'
        + (line if transform else "")
        + models
        + '[[prompts.conditions]]\nid = "plain"\n'
        + 'user = "Complete the following code.\\n{prompt}"\n',
        encoding="utf-8",
    )
    outcome = StudyRunner(load_study(path), tmp_path / name).run()
    assert outcome.complete
    return str(tmp_path / name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("obf-runs")
    with (
        FakeEndpoint(responder=memoriser) as m,
        FakeEndpoint(responder=adapter) as a,
        FakeEndpoint(responder=half) as h,
    ):
        servers = {"memoriser": m, "adapter": a, "half": h}
        return _study(root, "original", servers, False), _study(root, "obfuscated", servers, True)


def test_decrease_gives_decrease_ratios_robust_scores_and_ranking_stability(
    runs, tmp_path, run_cli
):
    original, obfuscated = runs
    out = tmp_path / "cmp"
    done = run_cli(["obfuseval", "decrease", original, obfuscated, "--out", out], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    numbers = json.loads((out / "obfuseval-compare.json").read_text())
    share = len(HALF) / len(TASKS)
    want = {  # model -> (original, obfuscated, decrease ratio)
        "memoriser": (1.0, 0.0, 1.0),
        "adapter": (1.0, 1.0, 0.0),
        "half": (share, share, 0.0),
    }
    for model, (before, after, ratio) in want.items():
        got = numbers[f"demo / {model} / plain"]
        assert got["tasks"] == len(TASKS)
        assert got["original_pass1"] == pytest.approx(before)
        assert got["obfuscated_pass1"] == pytest.approx(after)
        assert got["decrease_ratio"] == pytest.approx(ratio)
        assert got["robust_pass1"] == pytest.approx(after)  # deterministic answers
    n = len(TASKS)
    tau = kendalltau([n, n, len(HALF)], [n, 0, len(HALF)]).statistic  # adapter, memoriser, half
    stability = numbers["demo / plain / kendall_tau"]
    assert stability["tau"] == pytest.approx(tau)
    assert stability["n_tasks"] == n
    md = (out / "obfuseval-compare.md").read_text()
    assert "| memoriser | 8 | 100.00 | 0.00 | 100.00 | 0.00 |" in md
    assert "<svg" in (out / "obfuseval-compare.html").read_text()
    assert r"\toprule" in (out / "obfuseval-compare.tex").read_text()
    assert done.stdout.startswith(md.rstrip("\n")[:40])


def test_the_report_of_an_obfuscated_run_shows_scores_over_variants(runs):
    original, obfuscated = runs
    render_report(obfuscated, plots=False)
    md = (Path(obfuscated) / "report.md").read_text()
    share = 100 * len(HALF) / len(TASKS)
    assert "demo: scores over obfuscated variants" in md
    assert "| memoriser | 8 | 2 | 0.00 | 0.00 | 0.00 |" in md
    assert "| adapter | 8 | 2 | 100.00 | 100.00 | 100.00 |" in md
    assert f"| half | 8 | 2 | {share:.2f} | {share:.2f} | {share:.2f} |" in md
    render_report(original, plots=False)
    assert "scores over obfuscated variants" not in (Path(original) / "report.md").read_text()


def test_the_former_name_compare_refuses_runs_that_share_nothing_in_one_line(
    runs, tmp_path, run_cli
):
    # ``obfuseval compare`` is the hidden former name of ``obfuseval decrease``
    original, _ = runs
    done = run_cli(["obfuseval", "compare", original, str(tmp_path / "nothing")], cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip().startswith("error: ") and "\n" not in done.stderr.strip()
    listed = run_cli(["obfuseval", "--help"], cwd=tmp_path).stdout
    assert "decrease" in listed and "compare" not in listed
