"""A study with one arm per method, end to end over a real local HTTP model server.

Model ``a`` and model ``b`` answer every prompt alike except RobustAPI's questions, which
``b`` answers without code. The profile run of ``a`` is killed with SIGKILL while it scores
and resumed: the server receives exactly the requests the dry run counted, once each. Then
``compare`` gates every method's headline metrics: ``a`` against ``b`` exits 4 and flags
RobustAPI's executable share alone; ``a`` against a copy of ``a`` whose verdicts (every
arm's) and PSB2 quality ``rescore`` computed again exits 0: every delta is zero.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from fake_endpoints import FakeEndpoint
from pause_points import run_until_paused

JAVA = '```java\nString greeting = "hello";\n```'


def answer(worse_on_robustapi: bool):
    def respond(prompt: str) -> str:
        if "Please using this api" in prompt:
            return "Sorry, I cannot answer that." if worse_on_robustapi else JAVA
        return prompt  # an echo: the same, imperfect answer for every other method

    return respond


def study(url: str) -> str:
    return f"""
name = "profile-small"
# the obfuscated benchmark is the demo's: obfuscating all of MBPP (every task is verified
# before a limit applies) would cost each command of this test half a minute
seed = 0
[[models]]
spec = "openai:coder@{url}"
label = "coder"
[sampling]
temperature = 0.0
max_tokens = 256
[execution]
timeout_s = 30

[[arms]]
name = "robunfr"
[[arms.benchmarks]]
name = "humaneval"
limit = 2
[arms.prompts]
plan = "robunfr"
nfrs = ["readability"]
workflows = ["integrated"]
variants = 1
function_only_repeats = 1
[arms.evaluation]
nfr = true

[[arms]]
name = "robustapi"
[[arms.benchmarks]]
name = "robustapi"
limit = 8
[arms.prompts]
plan = "robustapi"

[[arms]]
name = "psb2"
[[arms.benchmarks]]
name = "psb2-edge"
limit = 2
[arms.prompts]
plan = "psb2-program"
[arms.evaluation]
evaluators = ["psb2-quality"]

[[arms]]
name = "obfuseval"
[[arms.benchmarks]]
name = "demo"
transform = {{ name = "obfuscate", levels = ["symbol"], variants = 1 }}
limit = 2
[[arms.prompts.conditions]]
id = "obfuscated"
user = "Complete the following code.\\n{{prompt}}"

[[arms]]
name = "nofuneval-edit"
[[arms.benchmarks]]
name = "nofuneval-latency"
limit = 2
[arms.prompts]
plan = "nofuneval-edit"

[[arms]]
name = "nofuneval-classify"
[[arms.benchmarks]]
name = "nofuneval-classify-latency"
limit = 2
[arms.prompts]
plan = "nofuneval-classify"
"""


RULES = [
    "executable_rate:-5pp",
    "classify_accuracy:-5pp",
    "diffbleu:-5%",
    "robust_pass@1[method=obfuseval]:-2pp",
    "edge_pass_ratio:-2pp",
    "smell_density:+10%",
]


def run(run_cli, tmp_path: Path, url: str, out: str, *extra: str):
    path = tmp_path / f"{out}.toml"
    path.write_text(study(url), encoding="utf-8")
    args = ["run", path, "--out", tmp_path / out, "--no-cache", "--no-report", *extra]
    return run_cli(args, cwd=tmp_path, timeout=900)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, run_cli, data_dir):
    """Two runs, ``a`` (killed mid-scoring, resumed) and ``b``, and ``a-rescored``: a copy of
    ``a`` whose verdicts and PSB2 quality ``rescore`` computed again."""
    tmp = tmp_path_factory.mktemp("profile")
    out = {}
    with FakeEndpoint(responder=answer(False)) as server:
        planned = run(run_cli, tmp, server.openai_base_url, "a", "--dry-run", "--json")
        assert planned.returncode == 0, planned.stderr
        toml = tmp / "a.toml"
        stored = run_until_paused(
            ["run", toml, "--out", tmp / "a", "--no-cache", "--no-report"], tmp, "nfr", 1
        )
        resumed = run(run_cli, tmp, server.openai_base_url, "a")
        out["a"] = (json.loads(planned.stdout), stored, resumed, list(server.requests))
    with FakeEndpoint(responder=answer(True)) as server:
        out["b"] = run(run_cli, tmp, server.openai_base_url, "b")
    shutil.copytree(tmp / "a", tmp / "a-rescored")
    args = ["rescore", tmp / "a-rescored", "--evaluator", "dispatch", "--evaluator"]
    out["rescored"] = run_cli([*args, "psb2-quality", "--json"], cwd=tmp)
    out["dir"] = tmp
    return out


def test_every_arm_is_asked_once_and_scored_after_a_kill(runs) -> None:
    planned, stored, resumed, requests = runs["a"]
    assert resumed.returncode in (0, 1), resumed.stderr  # echoed answers fail their tests
    assert stored  # the kill came while scoring, after something was stored
    arms = {line["arm"] for line in planned["lines"]}
    assert arms == {"robunfr", "robustapi", "psb2", "obfuseval", "nofuneval-edit",
                    "nofuneval-classify"}  # fmt: skip
    assert planned["totals"]["requests"] == 2 * 2 + 8 * 3 + 2 + 2 + 2 * 4 + 2 * 2
    assert planned["totals"]["requests"] == len(requests)
    prompts = Counter(json.dumps(r.body["messages"]) for r in requests)
    assert max(prompts.values()) == 1  # nothing was asked twice, kill or not
    from beyondpass.store.run_store import RunStore

    with RunStore(runs["dir"] / "a", create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
        scored_by = {e.name for e in store.evaluators()}
    assert meta["status"] == "complete", resumed.stdout[-3000:] + resumed.stderr[-2000:]
    assert len(rows) == planned["totals"]["samples"]
    assert all(r.result is not None for r in rows)
    assert set(meta["arms"]) == arms
    assert {"nfr", "psb2-quality"} <= scored_by
    # an arm's add-on evaluators score that arm's samples only
    nfr_rows = [r for r in rows if "smell_density" in r.result.metrics]
    assert nfr_rows and {r.sample.benchmark for r in nfr_rows} == {"humaneval"}


def compare(run_cli, runs, new: str):
    d = runs["dir"]
    args = ["compare", d / "a", d / new, "--json"]
    for rule in RULES:
        args += ["--fail-on", rule]
    return run_cli(args, cwd=d)


def test_compare_flags_only_the_method_that_got_worse(run_cli, runs) -> None:
    assert runs["b"].returncode in (0, 1), runs["b"].stderr
    proc = compare(run_cli, runs, "b")
    assert proc.returncode == 4, proc.stderr
    gate = json.loads(proc.stdout)["gate"]
    assert not gate["passed"]
    assert {v["metric"] for v in gate["violations"]} == {"executable_rate"}
    assert {v["benchmark"] for v in gate["violations"]} == {"robustapi"}


def test_compare_of_a_run_and_its_rescoring_passes_every_gate(run_cli, runs) -> None:
    assert runs["rescored"].returncode == 0, runs["rescored"].stderr
    proc = compare(run_cli, runs, "a-rescored")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["gate"]["passed"]
    compared = {(r["method"], r["metric"]) for r in payload["comparisons"]}
    for metric in ("executable_rate", "diffbleu", "robust_pass@1", "edge_pass_ratio"):
        assert any(m == metric for _, m in compared), metric
    # RobuNFR's section compares its own arm only: the PSB2 arm's smells (its quality
    # evaluator's) and the other arms' pass@1 are not RobuNFR's numbers
    robunfr = {r["benchmark"] for r in payload["comparisons"] if r["method"] == "robunfr"}
    assert robunfr == {"humaneval"}, robunfr
    core = {r["benchmark"] for r in payload["comparisons"] if r["metric"] == "pass@1"}
    assert core == {"humaneval", "psb2-edge", "demo"}, core
    assert all(r["delta"] in (0, None) for r in payload["comparisons"])


def test_the_report_shows_the_profile_first(run_cli, runs) -> None:
    d = runs["dir"]
    proc = run_cli(["report", d / "a", "--out", d / "report-a"], cwd=d)
    assert proc.returncode == 0, proc.stderr
    html = (d / "report-a" / "report.html").read_text(encoding="utf-8")
    md = (d / "report-a" / "report.md").read_text(encoding="utf-8")
    assert md.index("Profile") < md.index("RobustAPI")
    for label in ("executable answers", "DiffBLEU", "robust pass@1", "edge cases passed"):
        assert label in md
    # RobustAPI's tables sit inside its benchmark's results: the link goes there
    anchor = re.search(r'<a href="#(b\d+)">robustapi</a>', html)
    assert anchor is not None
    start = html.index(f'<section id="{anchor[1]}">')
    assert "API misuse" in html[start : html.index("</section>", start)]
    for key in ("robunfr", "psb2", "obfuseval", "nofuneval"):
        assert f'href="#{key}"' in html and f'id="{key}"' in html, key
    assert html.count('id="profile"') == 1
    assert 'id="profile-plot"' in html


def test_rescore_rebuilds_every_arms_verdict_and_keeps_add_ons_in_their_arm(run_cli, runs) -> None:
    """The verdict of a run whose arms ask for different evaluators is a dispatch over them,
    and its obfuscated benchmark is transformed again: both are rebuilt as the run built
    them; an arm's add-on rescores that arm's samples only."""
    d, proc = runs["dir"], runs["rescored"]
    assert proc.returncode == 0, proc.stderr
    counts = {r["evaluator"]: r["samples_scored"] for r in json.loads(proc.stdout)["evaluators"]}
    planned = runs["a"][0]["totals"]["samples"]
    assert counts == {"dispatch": planned, "psb2-quality": 2}
    from beyondpass.store.run_store import RunStore

    def verdicts(run: Path) -> dict[str, str]:
        with RunStore(run, create=False) as store:
            return {r.sample.key: r.result.status for r in store.rows() if r.result}

    assert verdicts(d / "a-rescored") == verdicts(d / "a")


def test_no_arm_without_tests_gets_a_pass_verdict_or_a_pass_at_1(runs) -> None:
    """The echoed answers are nonsense. NoFunEval's latency rows have no tests, so their
    edits are ``scored``, never ``passed``; core pass@1 is a headline only of the arms
    whose verdict is a test run (not RobustAPI's misuse check, not a classification)."""
    from beyondpass.analysis.headline import headline_cells
    from beyondpass.store.run_store import RunStore

    with RunStore(runs["dir"] / "a", create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    statuses = Counter(r.result.status for r in rows if r.sample.benchmark == "nofuneval-latency")
    assert statuses and set(statuses) <= {"scored", "no_code"}, statuses
    assert not any(r.result.passed for r in rows if r.sample.benchmark == "nofuneval-latency")
    cells = headline_cells(rows, meta)
    with_pass = {c.benchmark for c in cells if (c.method, c.metric) == ("core", "pass@1")}
    assert with_pass == {"humaneval", "psb2-edge", "demo"}, with_pass
    # each method's own headline still stands for the arms without tests
    own = {(c.method, c.benchmark) for c in cells if c.method != "core"}
    assert {("nofuneval", "nofuneval-latency"), ("robustapi", "robustapi")} <= own, own
