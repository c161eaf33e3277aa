"""The run report: numbers match an independent computation, hostile text stays inert, the
HTML is self-contained, and rendering is robust (missing meta) and reproducible."""

from __future__ import annotations

import math
import re
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from beyondpass.analysis.stats import bootstrap_ci
from beyondpass.analysis.summary import summarize
from beyondpass.errors import DataError
from beyondpass.report import ReportPaths, render_report
from beyondpass.report import details as render_mod
from beyondpass.report import render as render_module
from beyondpass.report.plots import pass1_svg, status_svg
from beyondpass.report.sections import (
    Fragment,
    ReportContext,
    SectionOutput,
    section_providers,
)
from beyondpass.store.run_store import ResultRecord, RunStore, SampleRecord, sample_key

BENCH = "demo"
TASKS = ["demo/1", "demo/2", "demo/3", "demo/4", "demo/5", "demo/10"]
BROKEN = {"demo/4": "reference solution disagrees with the docstring"}
HOSTILE_ANSWER = "Here you go <script>alert(1)</script></details><b>bold</b>"
HOSTILE_MESSAGE = "AssertionError: <b>bad</b> & </details>"
SEED = 7

# Verdict per sample; None = generated but not evaluated yet. (alpha, plain) has n=3.
PLAN: dict[tuple[str, str], dict[str, list[str | None]]] = {
    ("alpha", "plain"): {
        "demo/1": ["passed", "passed", "failed"],
        "demo/2": ["passed", "passed", "passed"],
        "demo/3": ["failed", "error", "timeout"],
        "demo/4": ["no_code", "syntax_error", "passed"],
        "demo/5": ["passed", "passed", "passed"],
        "demo/10": ["passed", "memory", "passed"],
    },
    ("alpha", "steps"): {
        "demo/1": ["passed"],
        "demo/2": ["passed"],
        "demo/3": ["output_limit"],
        "demo/4": ["failed"],
        "demo/5": ["passed"],
        "demo/10": ["passed"],
    },
    ("beta", "plain"): {
        "demo/1": ["failed"],  # the hostile sample
        "demo/2": ["passed"],
        "demo/3": ["killed"],
        "demo/4": ["error"],
        "demo/5": ["passed"],
        "demo/10": ["passed"],
    },
    ("beta", "steps"): {
        "demo/1": ["passed"],
        "demo/2": ["no_code"],
        "demo/3": ["syntax_error"],
        "demo/4": ["timeout"],
        "demo/5": ["passed"],
        "demo/10": [None],
    },
}

FULL_META = {
    "kind": "study",
    "study": {
        "name": "Prompting study",
        "description": "Does a second step help?",
        "seed": SEED,
        "config_hash": "cafe1234",
        "study_file": "studies/demo.toml",
    },
    "benchmarks": {
        BENCH: {
            "name": BENCH,
            "version": "sha256:abc123",
            "source": "builtin",
            "n_tasks": len(TASKS),
            "coverage": "6/6",
            "known_broken": BROKEN,
        }
    },
    "models": {
        "alpha": {"spec": "openai:alpha-1", "identity": {"provider": "openai"}},
        "beta": {"spec": "anthropic:beta-2", "identity": {"provider": "anthropic"}},
    },
    "conditions": {
        "plain": {"workflow": "single", "description": "one shot", "steps": [{"user": "{p}"}]},
        "steps": {
            "workflow": "refine",
            "description": "draft then improve",
            "steps": [{"system": "Be careful.", "user": "{p}"}, {"user": "Improve it."}],
        },
    },
    "sampling": {"n": 1, "temperature": 0.2, "max_tokens": 512},
    "environment": {
        "beyondpass": "0.1.0",
        "python": "3.11.9",
        "platform": "Linux-x86_64",
        "packages": {"numpy": "2.0.0", "jinja2": "3.1.4"},
    },
    "executor": {"executor": "subprocess", "workers": 4},
    "evaluators": [{"evaluator": "functional", "timing_repeats": 0}],
    "created_at": "2025-01-02T03:04:05+00:00",
    "updated_at": "2025-01-02T04:05:06+00:00",
    "status": "complete",
}


def _transcript(condition: str, raw: str) -> list[dict]:
    first = [{"role": "user", "content": "Write f()."}]
    if condition == "plain":
        return [{"step": "answer", "messages": first, "answer": raw}]
    system = [{"role": "system", "content": "Be careful."}]
    draft = "def f(): pass"
    second = [
        *system,
        *first,
        {"role": "assistant", "content": draft},
        {"role": "user", "content": "Improve it."},
    ]
    return [
        {"step": "draft", "messages": system + first, "answer": draft},
        {"step": "improve", "messages": second, "answer": raw},
    ]


def _fill(store: RunStore, plan: dict = PLAN) -> None:
    for (model, condition), tasks in plan.items():
        for task_id, verdicts in tasks.items():
            for index, status in enumerate(verdicts):
                key = sample_key(BENCH, task_id, model, condition, index)
                hostile = (model, condition, task_id) == ("beta", "plain", "demo/1")
                raw = HOSTILE_ANSWER if hostile else f"```python\ndef f():\n    return {index}\n```"
                if (model, condition, task_id, index) == ("alpha", "plain", "demo/3", 0):
                    raw = "x" * 9000  # long answer: clipped in the drill-down
                code = "" if status == "no_code" else "def f():\n    return 0\n"
                syntax_message = "SyntaxError: bad (line 1)"
                store.put_sample(
                    SampleRecord(
                        key=key,
                        benchmark=BENCH,
                        task_id=task_id,
                        model=model,
                        condition=condition,
                        sample_index=index,
                        raw=raw,
                        code=code,
                        program=code,
                        extraction={
                            "status": status if status in ("no_code", "syntax_error") else "ok",
                            "kind": "none" if status == "no_code" else "full",
                            "error": syntax_message if status == "syntax_error" else "",
                            "notes": ["fenced block"],
                        },
                        transcript=_transcript(condition, raw),
                        generation={"model_version": f"{model}-2025", "finish_reason": "stop"},
                    )
                )
                if status is None:
                    continue
                passed = status == "passed"
                message = HOSTILE_MESSAGE if hostile else ("" if passed else f"{status} here")
                tests = [{"name": "test_1", "status": "passed"}]
                if not passed:
                    tests.append(
                        {
                            "name": "test_2",
                            "status": status,
                            "error_type": "AssertionError",
                            "message": message,
                        }
                    )
                store.put_result(
                    ResultRecord(
                        key=key,
                        status=status,
                        passed=passed,
                        metrics={"tests_passed": 1 + passed, "tests_run": 2},
                        details={
                            "message": message,
                            "tests": tests,
                            "stdout": "out " * 10,
                            "stderr": "" if passed else "Traceback <stderr>",
                            "wall_s": 0.01,
                        },
                    )
                )


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    with RunStore(run) as store:
        for key, value in FULL_META.items():
            store.set_meta(key, value)
        _fill(store)
    return run


@pytest.fixture
def rendered(run_dir: Path) -> ReportPaths:
    return render_report(run_dir)


# -- helpers -----------------------------------------------------------------------------------
def _section(markdown: str, heading: str) -> str:
    start = markdown.index(heading)
    rest = markdown[start + len(heading) :]
    end = rest.find("\n## ")
    body = rest if end < 0 else rest[:end]
    return body


def _tables(text: str) -> list[list[dict[str, str]]]:
    """Every GFM table in ``text`` as a list of row dicts keyed by header."""
    tables, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if (
            lines[i].startswith("|")
            and i + 1 < len(lines)
            and lines[i + 1].startswith(("|-", "|:"))
        ):
            header = _cells(lines[i])
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(dict(zip(header, _cells(lines[i]), strict=True)))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _evaluated(model: str, condition: str) -> dict[str, list[str]]:
    return {
        t: [v for v in vs if v is not None]
        for t, vs in PLAN[(model, condition)].items()
        if any(v is not None for v in vs)
    }


def _pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


# -- tests -------------------------------------------------------------------------------------
def test_writes_both_files_into_the_run_by_default(run_dir: Path, rendered: ReportPaths) -> None:
    assert rendered.markdown == run_dir / "report.md"
    assert rendered.html == run_dir / "report.html"
    assert rendered.markdown.read_text(encoding="utf-8").startswith("# Prompting study")


def test_main_table_matches_independent_computation(rendered: ReportPaths) -> None:
    md = rendered.markdown.read_text(encoding="utf-8")
    main = _tables(_section(md, f"## Results: {BENCH}"))[0]
    assert [(r["Model"], r["Condition"]) for r in main] == list(PLAN)
    for row in main:
        group = (row["Model"], row["Condition"])
        evaluated = _evaluated(*group)
        # summarize() sees tasks in the store's order (task id, binary collation)
        rates = [evaluated[t].count("passed") / len(evaluated[t]) for t in sorted(evaluated)]
        assert row["Tasks"] == str(len(evaluated))
        assert row["Samples"] == str(sum(len(v) for v in PLAN[group].values()))
        assert row["pass@1 (%)"] == f"{100 * sum(rates) / len(rates):.2f}"
        lo, hi = bootstrap_ci(rates, seed=SEED)
        assert row["95% CI"] == f"[{100 * lo:.2f}, {100 * hi:.2f}]"
        statuses = [v for vs in PLAN[group].values() for v in vs]
        for status in ("passed", "failed", "error", "timeout", "no_code", "syntax_error"):
            assert row[status] == str(statuses.count(status)), (group, status)
        for status in ("memory", "output_limit", "killed"):  # extra columns that occur
            assert row[status] == str(statuses.count(status)), (group, status)
        assert row["not evaluated"] == str(statuses.count(None))
    # n=3 is below the smallest reported k > 1 (pass@5), so no pass@k column beyond pass@1
    assert [h for h in main[0] if h.startswith("pass@")] == ["pass@1 (%)"]


def test_pass_at_k_columns_appear_when_groups_have_enough_samples(tmp_path: Path) -> None:
    plan = {
        ("alpha", "plain"): {
            "demo/1": ["passed"] * 2 + ["failed"] * 3,
            "demo/2": ["failed"] * 5,
            "demo/3": ["passed"] + ["error"] * 4,
        }
    }
    with RunStore(tmp_path / "k") as store:
        _fill(store, plan)
    md = render_report(tmp_path / "k").markdown.read_text(encoding="utf-8")
    (row,) = _tables(_section(md, f"## Results: {BENCH}"))[0]
    expected = sum(_pass_at_k(5, c, 5) for c in (2, 0, 1)) / 3
    assert row["pass@5 (%)"] == f"{100 * expected:.2f}"
    assert row["pass@1 (%)"] == f"{100 * (2 / 5 + 0 + 1 / 5) / 3:.2f}"
    lo, hi = bootstrap_ci([2 / 5, 0.0, 1 / 5], seed=0)  # no study meta: seed 0
    assert row["95% CI"] == f"[{100 * lo:.2f}, {100 * hi:.2f}]"


def test_failure_analysis_counts_and_shares(rendered: ReportPaths) -> None:
    md = rendered.markdown.read_text(encoding="utf-8")
    failures = _tables(_section(md, f"### Failure analysis: {BENCH}"))[0]
    for row in failures:
        group = (row["Model"], row["Condition"])
        verdicts = [v for vs in _evaluated(*group).values() for v in vs]
        n = len(verdicts)
        assert row["Evaluated"] == str(n)
        not_passing = n - verdicts.count("passed")
        assert row["Not passing"] == f"{not_passing} ({100 * not_passing / n:.2f}%)"
        for status in ("failed", "error", "timeout", "no_code", "syntax_error", "killed"):
            count = verdicts.count(status)
            assert row[status] == f"{count} ({100 * count / n:.2f}%)", (group, status)
        assert "passed" not in row


def test_per_task_comparison_lists_disagreements_and_marks_broken(rendered: ReportPaths) -> None:
    md = rendered.markdown.read_text(encoding="utf-8")
    section = _section(md, f"### Per-task comparison: {BENCH}")
    table = _tables(section)[0]
    expected = {}
    for task in TASKS:
        cells, rates = [], set()
        for group in PLAN:
            verdicts = [v for v in PLAN[group][task] if v is not None]
            cells.append(f"{verdicts.count('passed')}/{len(verdicts)}" if verdicts else "—")
            if verdicts:
                rates.add(verdicts.count("passed") / len(verdicts))
        if len(rates) > 1:
            expected[task + (" †" if task in BROKEN else "")] = cells
    got = {r["Task"]: [r[f"{m} / {c}"] for m, c in PLAN] for r in table}
    assert got == expected
    assert list(got) == ["demo/1", "demo/2", "demo/4 †", "demo/10"]  # natural task order
    assert "1 pass in every group, 1 fail in every group" in section
    assert "demo/4 — reference solution disagrees with the docstring" in section


def test_provenance_block(rendered: ReportPaths) -> None:
    md = rendered.markdown.read_text(encoding="utf-8")
    prov = _section(md, "## Provenance")
    total = sum(len(v) for g in PLAN.values() for v in g.values())
    assert f"complete — {total - 1} of {total} samples evaluated (1 not evaluated)" in prov
    assert "study seed 7; bootstrap CI seed 7" in prov
    models = {r["Model"]: r for r in _tables(prov)[0]}
    assert models["alpha"]["Spec"] == "openai:alpha-1"
    assert models["beta"]["Versions reported"] == "beta-2025"
    (bench,) = _tables(prov)[1]
    assert bench["Version"] == "sha256:abc123"
    assert bench["Coverage"] == "6/6"
    assert bench["Known broken"] == "1"
    for needle in ("temperature:** 0.2", "jinja2 3.1.4, numpy 2.0.0", "executor=subprocess",
                   "2025-01-02T03:04:05+00:00", "Python:** 3.11.9", "cafe1234"):  # fmt: skip
        assert needle in prov, needle


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.details_ids: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
        if tag == "details":
            self.details_ids.append(dict(attrs).get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def test_html_escapes_hostile_text_and_is_self_contained(rendered: ReportPaths) -> None:
    html = rendered.html.read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/details&gt;" in html
    assert "<b>bad</b>" not in html and "<b>bold</b>" not in html
    assert html.count("<details") == html.count("</details>")
    assert "http://" not in html and "https://" not in html
    assert "<link" not in html and "src=" not in html
    parser = _Scripts()
    parser.feed(html)
    assert len(parser.scripts) == 1 and "alert" not in parser.scripts[0]
    assert "<svg" in html


def test_html_drill_down_links_to_failing_sample_details(rendered: ReportPaths) -> None:
    html = rendered.html.read_text(encoding="utf-8")
    escaped = "AssertionError: &lt;b&gt;bad&lt;/b&gt; &amp; &lt;/details&gt;"
    blocks = re.findall(r'<details class="sample" id="([^"]+)">(.*?)\n</details>', html, re.S)
    hostile = [(anchor, body) for anchor, body in blocks if escaped in body]
    assert len(hostile) == 1
    anchor, body = hostile[0]
    assert "beta / plain" in body and "demo/1" in body
    assert "Failing tests" in body and "test_2" in body
    assert "Traceback &lt;stderr&gt;" in body
    assert "Write f()." in body  # the prompt transcript
    assert f'href="#{anchor}"' in html  # the matrix cell links to it
    # small run: every sample has details; the long answer is clipped with a note
    assert len(blocks) == sum(len(v) for g in PLAN.values() for v in g.values())
    assert "more characters omitted" in html
    # the two-step transcript shows both steps, the second as a continuation
    assert (
        "Step 1: draft" in html
        and "Step 2: improve" in html
        and "(continues the conversation above)" in html
    )


def test_large_runs_cap_the_drill_down(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_mod, "FULL_DETAILS_UP_TO", 5)
    monkeypatch.setattr(render_mod, "PASSING_DETAILS_PER_GROUP", 1)
    html = render_report(run_dir, run_dir / "capped").html.read_text(encoding="utf-8")
    shown = re.findall(r'<details class="sample" id="[^"]+">\s*<summary><span class="badge s-(\w+)',
                       html)  # fmt: skip
    n_failing = sum(v != "passed" for g in PLAN.values() for vs in g.values() for v in vs)
    n_passing = sum(v == "passed" for g in PLAN.values() for vs in g.values() for v in vs)
    assert sum(s != "passed" for s in shown) == n_failing
    assert sum(s == "passed" for s in shown) == len(PLAN)  # one per group
    assert f"{len(PLAN)} of {n_passing} passing samples" in html
    assert f"{n_passing - len(PLAN)} samples are omitted" in html
    assert "(details omitted)" in html  # matrix marks without a details entry


def test_plots_are_deterministic_inline_svg(tmp_path: Path) -> None:
    with RunStore(tmp_path / "p") as store:
        _fill(store)
        rows = list(store.rows())
    summaries = summarize(rows, seed=1)
    for summary in summaries:
        summary.model = "<script>x</script> $a$"  # hostile label, mathtext-like
    first = pass1_svg(summaries, plot_id="a")
    assert first == pass1_svg(summaries, plot_id="a")
    assert first.startswith("<svg") and "<script>" not in first
    assert "xmlns" not in first and "http" not in first
    stacked = status_svg(summaries, plot_id="b")
    assert stacked.startswith("<svg") and 'id="b-' in stacked and "<script>" not in stacked
    assert pass1_svg([], plot_id="c") == ""


def test_renders_without_meta_and_with_malformed_meta(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    with RunStore(bare) as store:
        _fill(store)
    paths = render_report(bare, tmp_path / "out")
    md = paths.markdown.read_text(encoding="utf-8")
    assert md.startswith("# bare")
    total = sum(len(v) for g in PLAN.values() for v in g.values())
    assert f"unknown — {total - 1} of {total} samples evaluated" in md
    assert "<svg" in paths.html.read_text(encoding="utf-8")

    odd = tmp_path / "odd"
    with RunStore(odd) as store:
        _fill(store)
        store.set_meta("study", ["not", "a", "dict"])
        store.set_meta("benchmarks", {BENCH: {"known_broken": ["demo/3"]}})
        store.set_meta("models", "alpha")
        store.set_meta("conditions", {"plain": None})
        store.set_meta("evaluators", "functional")
        store.set_meta("environment", {"packages": []})
    md = render_report(odd).markdown.read_text(encoding="utf-8")
    assert "Known-broken tasks in demo:**\n\n- demo/3\n" in md


def test_not_a_run_or_empty_run_raises_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not a beyondpass run"):
        render_report(tmp_path / "missing")
    with RunStore(tmp_path / "empty"):
        pass
    with pytest.raises(DataError, match="no samples") as info:
        render_report(tmp_path / "empty")
    assert "\n" not in str(info.value)


def test_rendering_is_byte_identical(run_dir: Path, tmp_path: Path) -> None:
    a = render_report(run_dir, tmp_path / "a")
    b = render_report(run_dir, tmp_path / "b")
    assert a.markdown.read_bytes() == b.markdown.read_bytes()
    assert a.html.read_bytes() == b.html.read_bytes()


def test_seed_override_drives_the_ci(run_dir: Path, tmp_path: Path) -> None:
    md = render_report(run_dir, tmp_path, seed=123).markdown.read_text(encoding="utf-8")
    row = _tables(_section(md, f"## Results: {BENCH}"))[0][1]  # alpha / steps
    evaluated = _evaluated("alpha", "steps")
    rates = [evaluated[t].count("passed") / len(evaluated[t]) for t in sorted(evaluated)]
    lo, hi = bootstrap_ci(rates, seed=123)
    assert row["95% CI"] == f"[{100 * lo:.2f}, {100 * hi:.2f}]"
    assert "bootstrap CI seed 123" in md


# -- report sections (beyondpass.report.sections) ------------------------------------------------
class _ExampleSection:
    """A section as a method writes one: its own heading, a part inside each benchmark's
    results, an artifact, and hostile text it must escape itself."""

    key = "example"

    def __init__(self) -> None:
        self.contexts: list[ReportContext] = []

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        self.contexts.append(ctx)
        passed = sum(r.result is not None and r.result.passed for r in ctx.rows)
        return SectionOutput(
            key=self.key,
            title="Example analysis",
            markdown=f"{passed} samples passed.\n",
            html=f"<p>{passed} passed; {html_escape(HOSTILE_ANSWER)}</p>\n",
            artifacts={"example.json": f'{{"passed": {passed}}}\n'},
            benchmark_parts={
                b: Fragment(f"### Example part: {b}\n\nper benchmark\n", f"<h3>Part {b}</h3>\n")
                for b in ctx.order("benchmarks")
            },
        )


class _NothingToShow:
    key = "nothing"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        return None


def test_report_sections_plug_in(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = _ExampleSection()
    monkeypatch.setattr(render_module, "section_providers", lambda: [_NothingToShow(), example])
    out = tmp_path / "out"
    paths = render_report(run_dir, out, plots=False, flavour="x")

    (ctx,) = example.contexts
    assert (ctx.seed, ctx.out_dir, dict(ctx.options)) == (
        SEED,
        out,
        {"plots": False, "flavour": "x"},
    )
    assert ctx.order("benchmarks") == [BENCH] and ctx.benchmark_anchor(BENCH) == "b1"
    assert ctx.order("models") == ["alpha", "beta"]
    passed = sum(
        v == "passed" for per_task in PLAN.values() for vs in per_task.values() for v in vs
    )

    markdown = paths.markdown.read_text(encoding="utf-8")
    assert f"## Example analysis\n\n{passed} samples passed.\n" in markdown
    assert markdown.index("## Example analysis") < markdown.index(f"## Results: {BENCH}")
    results = _section(markdown, f"## Results: {BENCH}")
    part = results.index(f"### Example part: {BENCH}")
    assert results.index("| Model |") < part < results.index("### Failure analysis")

    html = paths.html.read_text(encoding="utf-8")
    assert '<li><a href="#example">Example analysis</a></li>' in html
    assert f'<section id="example">\n<h2>Example analysis</h2>\n<p>{passed} passed; ' in html
    assert "<script>alert" not in html
    assert html.index(f"<h3>Part {BENCH}</h3>") > html.index('<section id="b1">')

    assert paths.artifacts == {"example.json": out / "example.json"}
    assert paths.tables_json == out / "example.json" and paths.latex is None
    assert (out / "example.json").read_text(encoding="utf-8") == f'{{"passed": {passed}}}\n'


def test_method_sections_stay_out_of_other_runs(run_dir: Path, tmp_path: Path) -> None:
    """Neither RobuNFR's tables nor RobustAPI's misuse tables apply to this run."""
    providers = section_providers()
    assert {"robunfr", "robustapi-misuse"} <= {p.key for p in providers}
    with RunStore(run_dir, create=False) as store:
        ctx = ReportContext(store.all_meta(), list(store.rows()), SEED, tmp_path)
    assert [p.build(ctx) for p in providers] == [None] * len(providers)
    paths = render_report(run_dir, tmp_path / "out")
    assert paths.artifacts == {} and paths.latex is None
    assert "RobuNFR" not in paths.markdown.read_text(encoding="utf-8")


def test_every_execution_status_has_a_mark_and_a_colour() -> None:
    """A status the executor can give (compile_error included) is drawn like the others,
    not as an unknown "?" in the matrix or the "other" colour in the plots."""
    from beyondpass.execution.base import Status
    from beyondpass.report.plots import STATUS_COLORS, STATUS_ORDER
    from beyondpass.report.results import _LETTERS

    for status in Status:
        assert status in STATUS_ORDER and status in STATUS_COLORS and status in _LETTERS, status
    assert len(set(_LETTERS.values())) == len(_LETTERS)
