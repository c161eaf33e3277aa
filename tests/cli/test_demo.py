"""``beyondpass demo``, the README's first command: two pretend models' whole profile across
the five methods, offline (no data directory, no download, no key), one run scored by the
same evaluators as any run. The report opens on the profile (rendered in Debian's chromium
too, its links landing on each method's section); ``--gate`` fails the sloppy model against
the careful one and names the rules; a part whose tools or modules are missing is left out
in one line, never a traceback.

The expected numbers are counted from the hand-written answers (what each model gets wrong
is listed in src/beyondpass/demo/data/README.md), not read back from the code under test.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from beyondpass.store.run_store import RunStore
from hidden_modules import hiding

CAREFUL, SLOPPY = "demo-careful", "demo-sloppy"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
#: no key; the demo brings its own tasks and answers, and reads only RobustAPI's usage rules
#: from the data directory (the dataset's own file, never shipped)
NO_DATA = ("BEYONDPASS_DATA", *KEYS)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

# (method, metric label, benchmark, condition) -> (careful, sloppy), counted from the answers
EXPECTED = {
    # RobustAPI, 4 questions: sloppy misuses Iterator.next, Map.get and PrintWriter.write and
    # answers StringTokenizer without code (zero-shot: 3 of the 3 with code); the irrelevant
    # shot brings the tokenizer code (3 of 4); the relevant one fixes next() and get() (1 of 4)
    ("robustapi", "API misuse rate (%)", "robustapi-demo", "zero-shot"): (0, 100),
    ("robustapi", "API misuse rate (%)", "robustapi-demo", "one-shot-irrelevant"): (0, 75),
    ("robustapi", "API misuse rate (%)", "robustapi-demo", "one-shot-relevant"): (0, 25),
    ("robustapi", "executable answers (%)", "robustapi-demo", "zero-shot"): (100, 75),
    ("robustapi", "executable answers (%)", "robustapi-demo", "one-shot-relevant"): (100, 100),
    # PSB2, dice-game (5 cases) and snow-day (4): C++ integer division gets only (1, 2) right
    # (1/5 and 4/4: mean 60); Java adds the snow before melting (5/5 and 2/4: mean 75)
    ("psb2", "edge cases passed (%)", "psb2-demo-cpp-edge", "function"): (100, 60),
    ("psb2", "edge cases passed (%)", "psb2-demo-java-edge", "function"): (100, 75),
    ("psb2", "edge cases passed (%)", "psb2-demo-python-edge", "function"): (100, 100),
    ("core", "Pass@1 (%)", "psb2-demo-cpp-edge", "function"): (100, 50),
    ("core", "Pass@1 (%)", "psb2-demo-java-edge", "function"): (100, 50),
    ("core", "Pass@1 (%)", "psb2-demo-python-edge", "function"): (100, 100),
    # RobuNFR, 4 tasks: mean_of is wrong in every condition, grade too under the 2nd phrasing
    ("core", "Pass@1 (%)", "demo-nfr", "function-only"): (100, 75),
    ("core", "Pass@1 (%)", "demo-nfr", "integrated.readability.p01"): (100, 75),
    ("core", "Pass@1 (%)", "demo-nfr", "integrated.readability.p02"): (100, 50),
    # ObfusEval, 4 renamed tasks: the fizzbuzz answer defines the original name
    ("obfuseval", "robust pass@1 (%)", "demo", "obfuscated"): (100, 75),
    ("core", "Pass@1 (%)", "demo", "obfuscated"): (100, 75),
}
CELL = re.compile(r"^(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]$")


def _hidden_tools(tmp: Path, hide: set[str]) -> str:
    """A PATH that has every command of this one but ``hide`` (links in one directory)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            target = bin_dir / entry.name
            if entry.name not in hide and not target.exists() and os.access(entry.path, os.X_OK):
                target.symlink_to(entry.path)
    return str(bin_dir)


@pytest.fixture(scope="module")
def demo(tmp_path_factory, run_cli, data_dir):
    """One real ``beyondpass demo --json`` for the whole module: (out, payload)."""
    out = tmp_path_factory.mktemp("demo")
    proc = run_cli(["demo", "--out", out / "demo", "--json"], cwd=out, unset=KEYS,
                   env={"BEYONDPASS_DATA": str(data_dir)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    payload = json.loads(proc.stdout)
    if payload["left_out"]:  # a machine without the compilers and analysers CI has
        message = "; ".join(p["what"] + ": " + ", ".join(p["missing"]) for p in payload["left_out"])
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the demo left parts out on CI: {message}")
        pytest.skip(f"the demo left parts out here: {message}")
    return out / "demo" / "run", payload


def profile(md: str) -> dict[tuple[str, str, str, str], tuple[str, str]]:
    """The report's profile table: (method, metric, benchmark, condition) -> each model's
    cell as written."""
    start = md.index("### Profile: every method's headline metrics")
    lines = md[start:].splitlines()
    header = next(line for line in lines if line.startswith("| Method"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    out = {}
    for line in lines[lines.index(header) + 2 :]:
        if not line.startswith("|"):
            break
        cells = dict(zip(cols, (c.strip() for c in line.strip("|").split("|")), strict=True))
        key = (cells["Method"], cells["Metric"], cells["Benchmark"], cells["Condition"])
        out[key] = (cells[CAREFUL], cells[SLOPPY])
    return out


def value(cell: str) -> float:
    return float(cell.split()[0])


def test_the_demo_profiles_both_models_on_every_method(demo) -> None:
    run, payload = demo
    assert payload["complete"] and payload["samples_scored"] == payload["samples_expected"] == 76
    assert payload["next"][0] == (
        "beyondpass run studies/profile.toml --model openai:gpt-4o-mini --dry-run"
    )
    assert payload["next"][1].startswith("beyondpass compare runs/old runs/new --fail-on ")
    md = (run / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# demo")
    assert re.findall(r"^## (.+)$", md, re.M)[0] == "Profile"  # the report opens on it
    rows = profile(md)
    assert {key[0] for key in rows} == {"core", "robunfr", "robustapi", "psb2", "nofuneval",
                                        "obfuseval"}  # fmt: skip
    for key, (careful, sloppy) in EXPECTED.items():
        assert (value(rows[key][0]), value(rows[key][1])) == (careful, sloppy), key
    for key, cells in rows.items():  # every headline value comes with its 95% CI
        for cell in cells:
            match = CELL.match(cell)
            assert match, (key, cell)
            low, v, high = float(match[2]), float(match[1]), float(match[3])
            assert low <= v <= high, (key, cell)
    # RobuNFR's metrics are its arm's: the other arms' tests are timed too, not RobuNFR's
    assert {key[2] for key in rows if key[0] == "robunfr"} == {"demo-nfr"}
    robunfr = md[md.index("## RobuNFR analysis") :]
    robunfr = robunfr[: robunfr.index("\n## ", 1)]
    assert re.findall(r"### Failure analysis: (\S+)", robunfr) == ["demo-nfr"]
    # a verdict without tests has no pass@1: misuse checks and DiffBLEU-scored edits
    benches_with_pass = {key[2] for key in rows if key[0] == "core"}
    assert benches_with_pass == {"demo", "demo-nfr", "psb2-demo-cpp-edge", "psb2-demo-java-edge",
                                 "psb2-demo-python-edge"}  # fmt: skip


def test_each_failure_written_into_the_answers_is_measured(demo) -> None:
    run, _ = demo
    rows = profile((run / "report.md").read_text(encoding="utf-8"))
    nfr = ("robunfr", "{}", "demo-nfr", "{}")

    def cell(metric: str, condition: str) -> tuple[float, float]:
        careful, sloppy = rows[(nfr[0], metric, nfr[2], condition)]
        return value(careful), value(sloppy)

    # `elif` after `return` (pylint's no-else-return): sloppy only, gone when it follows
    # the first readability phrasing
    assert cell("code smell (per 10 LOC)", "function-only")[0] == 0
    assert cell("code smell (per 10 LOC)", "function-only")[1] > 0
    assert cell("code smell (per 10 LOC)", "integrated.readability.p01") == (0, 0)
    # terse names and no docstrings: less readable, except under the phrasing it follows
    careful, sloppy = cell("unreadability (per 10 LOC)", "function-only")
    assert sloppy > careful
    assert cell("unreadability (per 10 LOC)", "integrated.readability.p01")[1] < sloppy
    assert cell("unreadability (per 10 LOC)", "integrated.readability.p02")[1] == sloppy
    # careful raises ValueError where asked; sloppy only once
    careful, sloppy = cell("exception-handling (per 10 LOC)", "function-only")
    assert careful > sloppy > 0
    # NoFunEval: careful makes the commits' edits, sloppy one no-op and one slow scan
    careful, sloppy = rows[("nofuneval", "DiffBLEU", "nofuneval-demo", "base_prompt")]
    assert value(careful) == 1.0 and 0.5 <= value(sloppy) < 0.75
    with RunStore(run, create=False) as store:
        results = {(r.sample.benchmark, r.sample.model, r.sample.task_id,
                    r.sample.condition): r.result for r in store.rows()}  # fmt: skip
    noop = results[("nofuneval-demo", SLOPPY, "0", "base_prompt")]
    assert (noop.status, noop.metrics["edited"], noop.metrics["diffbleu"]) == ("scored", 0, 0)
    edits = [r for (b, *_), r in results.items() if b == "nofuneval-demo"]
    assert {r.status for r in edits} == {"scored"} and not any(r.checked for r in edits)
    leak = results[("demo", SLOPPY, "demo/fizzbuzz", "obfuscated")]
    assert leak.status == "error" and "NameError" in leak.details["message"]
    no_code = results[("robustapi-demo", SLOPPY, "q4", "zero-shot")]
    assert no_code.status == "no_code" and not no_code.checked


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_the_profile_renders_and_links_to_each_method_in_chromium(demo) -> None:
    from playwright.sync_api import sync_playwright

    run, _ = demo
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto((run / "report.html").as_uri())
            first = page.locator("main section, body section").first
            assert first.get_attribute("id") == "profile"
            section = page.locator("section#profile")
            assert section.locator("h2").inner_text() == "Profile"
            assert section.locator("table tbody tr").count() == 30
            plot = section.locator("figure svg")
            assert plot.is_visible() and plot.bounding_box()["height"] > 300
            links = section.locator("p a[href^='#']")
            names = [links.nth(i).inner_text() for i in range(links.count())]
            assert names == ["robunfr", "robustapi", "psb2", "nofuneval", "obfuseval"]
            for i, name in enumerate(names):
                target = links.nth(i).get_attribute("href")
                assert page.locator(f"section{target}").count() == 1, (name, target)
                links.nth(i).click()
                assert page.evaluate("location.hash") == target
                assert page.locator(f"section{target}").is_visible()
        finally:
            browser.close()


def test_the_gate_fails_the_sloppy_model_and_names_its_rules(demo, run_cli, data_dir) -> None:
    run, _ = demo
    proc = run_cli(["demo", "--out", run.parent, "--gate"], cwd=run.parent, unset=KEYS,
                   env={"BEYONDPASS_DATA": str(data_dir)})  # fmt: skip
    assert proc.returncode == 4, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    failed = re.search(r"^gate failed \(demo-sloppy against demo-careful; exit 4\): (.+)$", out,
                       re.M)  # fmt: skip
    assert failed is not None, out[-3000:]
    assert failed[1].split(", ") == [
        "pass@1:-5pp",
        "unreadability_density:+10%",
        "misuse_rate:+10pp",
        "edge_pass_ratio:-10pp",
        "robust_pass@1[method=obfuseval]:-10pp",
        "diffbleu:-10%",
    ]
    # executable answers fall 25 points (one answer without code): within its 30
    assert "rules that held: executable_rate:-30pp" in out
    # each method's table holds its own benchmarks, and no row of a group another
    # benchmark has (the obfuscated condition is the demo benchmark's, not PSB2's)
    tables = re.split(r"^(\w+) · demo-careful vs demo-sloppy", out, flags=re.M)
    by_method = dict(zip(tables[1::2], tables[2::2], strict=True))
    assert "demo-nfr" in by_method["robunfr"] and "psb2" not in by_method["robunfr"]
    assert "robustapi-demo" not in by_method["robunfr"]
    assert not re.search(r"psb2-demo-\w+-edge\s+│ obfuscated", by_method["core"])
    assert "—" not in by_method["core"]
    assert "FAIL misuse_rate:+10pp: demo-careful vs demo-sloppy · robustapi-demo · zero-shot" in out
    assert out.rstrip().endswith(
        "beyondpass compare runs/old runs/new --fail-on 'misuse_rate:+2pp' --fail-on 'diffbleu:-5%'"
    )


def test_missing_tools_and_modules_leave_their_parts_out_in_one_line(tmp_path, run_cli) -> None:
    """No data directory, git off the PATH, radon and libcst hidden from the interpreter: the
    RobustAPI (its usage rules are the dataset's), NoFunEval, PSB2 and ObfusEval arms are
    left out, one line each saying what to install; the rest runs."""
    hide = hiding(tmp_path / "hide", "radon", "libcst")
    path = _hidden_tools(tmp_path, {"git"})
    (tmp_path / "empty-cache").mkdir()
    proc = run_cli(["demo", "--out", tmp_path / "demo", "--json"], cwd=tmp_path, unset=NO_DATA,
                   env={"PATH": path, "BEYONDPASS_CACHE_DIR": str(tmp_path / "empty-cache")},
                   pythonpath_first=[hide])  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("demo: left out")]
    every_part = "or pip install 'beyondpass[demo]' for every part"
    assert lines == [
        "demo: left out the robustapi arm (RobustAPI's usage rules, the dataset's own): data "
        "file robustapi/pat_list.txt is missing — set BEYONDPASS_DATA to a folder holding it, "
        "or download it once with beyondpass robustapi check (docs/robustapi.md)",
        "demo: left out the psb2 arm (PSB2's quality metrics and Python smells): module radon "
        f"is missing — pip install 'beyondpass[psb2]', {every_part}",
        "demo: left out the obfuseval arm (method obfuseval): module libcst is missing — "
        f"pip install 'beyondpass[obfuseval]', {every_part}",
        "demo: left out the nofuneval arm (NoFunEval's DiffBLEU (on git diff)): command git is "
        "missing — apt-get install git",
    ]
    payload = json.loads(proc.stdout)
    assert payload["complete"] and payload["samples_scored"] == 2 * 12
    assert {g["benchmark"] for g in payload["groups"]} == {"demo-nfr"}
    assert [p["arm"] for p in payload["left_out"]] == [
        "robustapi",
        "psb2",
        "obfuseval",
        "nofuneval",
    ]


def test_a_missing_compiler_leaves_out_its_language_only(tmp_path, monkeypatch) -> None:
    """No g++ and no javac on the PATH: PSB2 keeps its Python benchmark."""
    from beyondpass.demo import study_file
    from beyondpass.demo.parts import runnable_study

    monkeypatch.setenv("PATH", _hidden_tools(tmp_path, {"g++", "javac"}))
    raw, left_out = runnable_study(study_file())
    assert [p.line() for p in left_out] == [
        "demo: left out psb2-demo-cpp-edge (PSB2 in C++): command g++ is missing — "
        "apt-get install g++ cppcheck clang-tidy",
        "demo: left out psb2-demo-java-edge (PSB2 in Java): command javac is missing — "
        "apt-get install openjdk-17-jdk-headless checkstyle",
    ]
    arms = {arm["name"]: [b["name"] for b in arm["benchmarks"]] for arm in raw["arms"]}
    assert arms["psb2"] == ["psb2-demo-python-edge"]
    assert list(arms) == ["robunfr", "robustapi", "psb2", "obfuseval", "nofuneval"]


def test_help_for_every_command(run_cli, tmp_path) -> None:
    for args in (["--help"], ["demo", "--help"], ["run", "--help"], ["evaluate", "--help"],
                 ["report", "--help"], ["benchmarks", "list", "--help"]):  # fmt: skip
        proc = run_cli(args, cwd=tmp_path)
        assert proc.returncode == 0 and "Usage:" in proc.stdout, args
