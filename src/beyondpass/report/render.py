"""Turn a run directory into a paper-ready Markdown report and a self-contained HTML report.

Both formats are rendered from one report model built here, so their numbers cannot drift
apart. Everything that comes from samples (answers, code, messages, test output) is treated
as hostile text: the HTML template autoescapes it and the Markdown filter escapes table
syntax and HTML. Rendering is deterministic (no clock, stable ordering, deterministic SVG)
so re-rendering an unchanged run gives byte-identical files, and the HTML drill-down is
bounded (non-passing samples first, long texts clipped) so large runs stay a few MB.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from beyondpass.analysis.robustapi import summarize_rows as summarize_misuse
from beyondpass.analysis.summary import BOOTSTRAP_RESAMPLES, GroupSummary, summarize
from beyondpass.errors import DataError
from beyondpass.report.paper_tables import flat_header, md_cell, to_markdown
from beyondpass.report.plots import (
    NOT_EVALUATED,
    OTHER_COLOR,
    STATUS_COLORS,
    misuse_svg,
    pass1_svg,
    status_order,
    status_svg,
)
from beyondpass.report.robunfr_section import RobunfrSection, build_section, write_artifacts
from beyondpass.store.run_store import Row, RunStore

__all__ = ["ReportPaths", "build_report", "md_escape", "render_report"]

# Always shown in the main table, even at zero, so tables of different runs line up.
BASE_STATUSES = ("passed", "failed", "error", "timeout", "no_code", "syntax_error")
BROKEN_MARK = "†"

# Drill-down bounds: a run with up to FULL_DETAILS_UP_TO samples gets every sample's details;
# larger runs get every non-passing sample plus the first few passing ones per group, within
# a count and a text budget. Texts are clipped per field.
FULL_DETAILS_UP_TO = 400
PASSING_DETAILS_PER_GROUP = 2
MAX_DETAILS = 1500
DETAIL_CHAR_BUDGET = 2_000_000
CLIP_CHARS = 4000
TAIL_CHARS = 1500
TEST_MESSAGE_CHARS = 500
MAX_FAILING_TESTS = 10
MAX_SQUARES = 10  # matrix cells with more samples show "passed/total" instead of one mark each
# One bar per (model, condition) stops being readable (and costs seconds of SVG layout) beyond
# this; designs that large (RobuNFR: 81 conditions) get their own aggregated plots instead.
MAX_PLOTTED_GROUPS = 40

_TEMPLATES = Path(__file__).parent / "templates"
_LETTERS = {
    "passed": "P",
    "failed": "F",
    "error": "E",
    "timeout": "T",
    "no_code": "N",
    "syntax_error": "S",
    "memory": "M",
    "output_limit": "O",
    "killed": "K",
    NOT_EVALUATED: "·",
}


@dataclass(frozen=True)
class ReportPaths:
    """Where the report files were written (LaTeX/JSON tables only for RobuNFR designs)."""

    markdown: Path
    html: Path
    latex: Path | None = None
    tables_json: Path | None = None


# -- report model ----------------------------------------------------------------------------
@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    align: list[str]  # "l" or "r" per column


@dataclass
class Clip:
    """A possibly clipped text; ``omitted`` characters were dropped (from the end, or from the
    start when ``tail``)."""

    text: str
    omitted: int = 0
    tail: bool = False


@dataclass
class Mark:
    cls: str
    letter: str
    title: str
    href: str


@dataclass
class Cell:
    marks: list[Mark]
    summary: str  # "passed/evaluated", shown instead of marks for many samples
    style: str
    href: str
    title: str
    compact: bool  # too many samples for one mark each


@dataclass
class MatrixRow:
    task: str
    broken: bool
    reason: str
    disagree: bool
    cells: list[Cell]


@dataclass
class Step:
    title: str
    continued: bool
    messages: list[tuple[str, Clip]]
    answer: Clip | None


@dataclass
class Detail:
    anchor: str
    key: str
    task: str
    broken: bool
    group: str
    index: int
    status: str
    cls: str
    message: str
    facts: list[tuple[str, str]]
    steps: list[Step]
    raw: Clip
    code: Clip
    extraction: list[tuple[str, str]]
    extraction_error: Clip
    extraction_notes: list[str]
    tests: list[dict[str, str]]
    tests_omitted: int
    stdout: Clip
    stderr: Clip
    cost: int = 0


@dataclass
class Section:
    name: str
    anchor: str
    facts: list[tuple[str, str]]
    main: Table
    failures: Table
    comparison: Table | None
    comparison_note: str
    broken: list[tuple[str, str]]
    groups: list[tuple[str, str]]  # (model, condition) per matrix column
    matrix: list[MatrixRow] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    details_note: str = ""
    pass1_svg: str = ""
    status_svg: str = ""
    misuse: Table | None = None  # RobustAPI: misuse metrics per group, both semantics
    misuse_domains: Table | None = None
    misuse_apis: Table | None = None
    misuse_svg: str = ""
    misuse_note: str = ""


@dataclass
class Report:
    title: str
    description: str
    run_facts: list[tuple[str, str]]
    models: Table
    benchmarks: Table
    conditions: Table
    condition_steps: list[tuple[str, list[tuple[str, str]]]]
    sampling: list[tuple[str, str]]
    execution: list[tuple[str, str]]
    environment: list[tuple[str, str]]
    method: list[str]
    sections: list[Section]
    status_colors: list[tuple[str, str, str]]  # status, css class, colour
    details_note: str
    robunfr: RobunfrSection | None = None


# -- entry point -----------------------------------------------------------------------------
def render_report(
    run_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    seed: int | None = None,
    robunfr_plots: bool = True,
) -> ReportPaths:
    """Write ``report.md`` and ``report.html`` for a run into ``out_dir`` (default: the run).

    ``seed`` drives the bootstrap CI; by default the study's seed, so the report's intervals
    are reproducible from the run alone. ``robunfr_plots=False`` leaves the RobuNFR plots out
    (they are the slow part of large designs); their tables are always there.
    """
    run_dir = Path(run_dir)
    with RunStore(run_dir, create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    if not rows:
        raise DataError(f"{run_dir} holds no samples yet — nothing to report")
    if seed is None:
        seed = _study_seed(meta)
    summaries = summarize(rows, seed=seed)
    report = build_report(meta, rows, summaries, seed=seed, fallback_title=run_dir.name)
    report.robunfr = build_section(meta, rows, seed=seed, plots=robunfr_plots)

    out = Path(out_dir) if out_dir is not None else run_dir
    out.mkdir(parents=True, exist_ok=True)
    env = _environment()
    latex = tables_json = None
    if report.robunfr is not None:
        latex, tables_json = write_artifacts(report.robunfr, out)
    paths = ReportPaths(
        markdown=out / "report.md", html=out / "report.html", latex=latex, tables_json=tables_json
    )
    markdown = env.get_template("report.md.j2").render(r=report)
    html = env.get_template("report.html.j2").render(r=report)
    paths.markdown.write_text(_tidy(markdown), encoding="utf-8", newline="\n")
    paths.html.write_text(html, encoding="utf-8", newline="\n")
    return paths


def build_report(
    meta: dict[str, Any],
    rows: Sequence[Row],
    summaries: Sequence[GroupSummary],
    *,
    seed: int,
    fallback_title: str = "run",
) -> Report:
    """The format-independent report model that both templates render."""
    study = _dict(meta.get("study"))
    bench_meta = _dict(meta.get("benchmarks"))
    model_meta = _dict(meta.get("models"))
    cond_meta = _dict(meta.get("conditions"))

    model_rank = _ranker(list(model_meta), {r.sample.model for r in rows})
    cond_rank = _ranker(list(cond_meta), {r.sample.condition for r in rows})
    bench_rank = _ranker(list(bench_meta), {r.sample.benchmark for r in rows})
    ordered = sorted(
        summaries,
        key=lambda s: (bench_rank[s.benchmark], model_rank[s.model], cond_rank[s.condition]),
    )

    evaluated = sum(r.result is not None for r in rows)
    run_facts = _run_facts(meta, study, len(rows), evaluated, seed)
    sections = [
        _section(
            name,
            _dict(bench_meta.get(name)),
            [s for s in ordered if s.benchmark == name],
            [r for r in rows if r.sample.benchmark == name],
            index,
        )
        for index, name in enumerate(sorted(bench_rank, key=bench_rank.__getitem__), start=1)
    ]
    details_note = _select_details(sections, rows_total=len(rows))

    return Report(
        title=_text(study.get("name")) or fallback_title,
        description=_text(study.get("description")),
        run_facts=run_facts,
        models=_models_table(model_meta, model_rank, ordered),
        benchmarks=_benchmarks_table(bench_meta, bench_rank, rows),
        conditions=_conditions_table(cond_meta, cond_rank),
        condition_steps=_condition_steps(cond_meta),
        sampling=[(k, _fmt(v)) for k, v in _dict(meta.get("sampling")).items()],
        execution=_execution(meta),
        environment=_environment_facts(_dict(meta.get("environment"))),
        method=_method(seed),
        sections=sections,
        status_colors=[(st, _css_class(st), c) for st, c in STATUS_COLORS.items()]
        + [("other", "s-other", OTHER_COLOR)],
        details_note=details_note,
    )


# -- provenance ------------------------------------------------------------------------------
def _run_facts(
    meta: dict[str, Any], study: dict[str, Any], total: int, evaluated: int, seed: int
) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    status = _text(meta.get("status")) or "unknown"
    counts = f"{evaluated} of {total} samples evaluated"
    if evaluated < total:
        counts += f" ({total - evaluated} not evaluated)"
    facts.append(("Status", f"{status} — {counts}"))
    if "kind" in meta:
        facts.append(("Kind", _fmt(meta["kind"])))
    for key, label in (("study_file", "Study file"), ("config_hash", "Config hash")):
        if key in study:
            facts.append((label, _fmt(study[key])))
    seeds = f"bootstrap CI seed {seed}"
    if "seed" in study:
        seeds = f"study seed {_fmt(study['seed'])}; " + seeds
    facts.append(("Seeds", seeds))
    for key, label in (("created_at", "Created"), ("updated_at", "Updated")):
        if key in meta:
            facts.append((label, _fmt(meta[key])))
    return facts


def _models_table(
    model_meta: dict[str, Any], rank: dict[str, int], summaries: Sequence[GroupSummary]
) -> Table:
    versions: dict[str, set[str]] = defaultdict(set)
    for s in summaries:
        versions[s.model].update(s.model_versions)
    rows = []
    for label in sorted(rank, key=rank.__getitem__):
        info = _dict(model_meta.get(label))
        rows.append(
            [
                label,
                _fmt(info.get("spec")),
                ", ".join(sorted(versions.get(label, ()))) or "—",
                _fmt(info.get("identity")),
            ]
        )
    return Table(["Model", "Spec", "Versions reported", "Identity"], rows, ["l"] * 4)


def _benchmarks_table(
    bench_meta: dict[str, Any], rank: dict[str, int], rows: Sequence[Row]
) -> Table:
    tasks_in_run: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        tasks_in_run[r.sample.benchmark].add(r.sample.task_id)
    out = []
    for name in sorted(rank, key=rank.__getitem__):
        info = _dict(bench_meta.get(name))
        broken = _known_broken(info)
        out.append(
            [
                name,
                _fmt(info.get("version")),
                _fmt(info.get("source")),
                _fmt(info.get("n_tasks")),
                str(len(tasks_in_run.get(name, ()))),
                _fmt(info.get("coverage")),
                str(len(broken)) if broken or "known_broken" in info else "—",
            ]
        )
    header = ["Benchmark", "Version", "Source", "Tasks", "Tasks in run", "Coverage"]
    return Table([*header, "Known broken"], out, ["l", "l", "l", "r", "r", "l", "r"])


def _conditions_table(cond_meta: dict[str, Any], rank: dict[str, int]) -> Table:
    rows = []
    for cid in sorted(rank, key=rank.__getitem__):
        info = _dict(cond_meta.get(cid))
        steps = info.get("steps")
        rows.append(
            [
                cid,
                _fmt(info.get("workflow")),
                str(len(steps)) if isinstance(steps, list) else "—",
                _fmt(info.get("description")),
            ]
        )
    return Table(["Condition", "Workflow", "Steps", "Description"], rows, ["l", "l", "r", "l"])


def _condition_steps(cond_meta: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    out = []
    for cid, info in cond_meta.items():
        steps = _dict(info).get("steps")
        if not isinstance(steps, list):
            continue
        texts: list[tuple[str, str]] = []
        for i, step in enumerate(steps, start=1):
            step = _dict(step)
            for part in ("system", "user"):
                if step.get(part):
                    texts.append((f"Step {i} · {part}", _text(step[part])))
        out.append((str(cid), texts))
    return out


def _execution(meta: dict[str, Any]) -> list[tuple[str, str]]:
    facts = []
    if "executor" in meta:
        facts.append(("Executor", _fmt(meta["executor"])))
    evaluators = meta.get("evaluators")
    if isinstance(evaluators, list):
        for ev in evaluators:
            ev = _dict(ev)
            name = _text(ev.get("evaluator")) or "evaluator"
            rest = {k: v for k, v in ev.items() if k != "evaluator"}
            facts.append((f"Evaluator {name}", _fmt(rest) if rest else "—"))
    elif evaluators is not None:
        facts.append(("Evaluators", _fmt(evaluators)))
    return facts


def _environment_facts(env: dict[str, Any]) -> list[tuple[str, str]]:
    facts = []
    for key, label in (
        ("beyondpass", "beyondpass"),
        ("python", "Python"),
        ("platform", "Platform"),
    ):
        if key in env:
            facts.append((label, _fmt(env[key])))
    packages = env.get("packages")
    if isinstance(packages, dict) and packages:
        facts.append(("Packages", ", ".join(f"{k} {v}" for k, v in sorted(packages.items()))))
    for key, value in env.items():
        if key not in ("beyondpass", "python", "platform", "packages"):
            facts.append((str(key), _fmt(value)))
    return facts


def _method(seed: int) -> list[str]:
    return [
        "pass@k is the unbiased estimator of Chen et al. (2021), computed per task and "
        "averaged over tasks (each task weighs the same); only evaluated samples count.",
        f"95% CI: percentile bootstrap of mean per-task pass@1 over tasks "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {seed}).",
        "Status percentages are shares of a group's evaluated samples.",
    ]


# -- per-benchmark tables --------------------------------------------------------------------
def _section(
    name: str, info: dict[str, Any], groups: list[GroupSummary], rows: list[Row], index: int
) -> Section:
    broken = _known_broken(info)
    tasks_in_run = {r.sample.task_id for r in rows}
    broken_here = [(t, broken[t]) for t in sorted(broken, key=_natural) if t in tasks_in_run]

    present = status_order({k for g in groups for k in g.status_counts} | set(BASE_STATUSES))
    ks = sorted({k for g in groups for k in g.pass_at if k != 1})
    header = ["Model", "Condition", "Tasks", "Samples", "pass@1 (%)", "95% CI"]
    header += [f"pass@{k} (%)" for k in ks] + present
    main_rows = []
    for g in groups:
        lo, hi = g.pass1_ci
        ci = "—" if math.isnan(lo) or math.isnan(hi) else f"[{_pct(lo)}, {_pct(hi)}]"
        cells = [g.model, g.condition, str(g.n_tasks), str(g.n_samples)]
        cells += [_pct(g.pass_at[1]) if 1 in g.pass_at else "—", ci]
        cells += [_pct(g.pass_at[k]) if k in g.pass_at else "—" for k in ks]
        cells += [str(g.status_counts.get(s, 0)) for s in present]
        main_rows.append(cells)
    main = Table(header, main_rows, ["l", "l"] + ["r"] * (len(header) - 2))

    failing = [s for s in present if s not in ("passed", NOT_EVALUATED)]
    fail_rows = []
    for g in groups:
        not_passing = g.n_evaluated - g.status_counts.get("passed", 0)
        cells = [g.model, g.condition, str(g.n_evaluated), _count_pct(not_passing, g.n_evaluated)]
        cells += [_count_pct(g.status_counts.get(s, 0), g.n_evaluated) for s in failing]
        fail_rows.append(cells)
    failures = Table(
        ["Model", "Condition", "Evaluated", "Not passing", *failing],
        fail_rows,
        ["l", "l"] + ["r"] * (len(failing) + 2),
    )

    group_keys = [(g.model, g.condition) for g in groups]
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]] = defaultdict(list)
    for r in rows:
        per_cell[(r.sample.task_id, (r.sample.model, r.sample.condition))].append(r)
    tasks = sorted(tasks_in_run, key=_natural)
    comparison, note, disagree = _comparison(tasks, group_keys, per_cell, broken)

    facts = []
    for key, label in (("version", "Version"), ("source", "Source"), ("coverage", "Coverage")):
        if key in info:
            facts.append((label, _fmt(info[key])))
    section = Section(
        name=name,
        anchor=f"b{index}",
        facts=facts,
        main=main,
        failures=failures,
        comparison=comparison,
        comparison_note=note,
        broken=broken_here,
        groups=group_keys,
    )
    section.matrix = [
        MatrixRow(
            task=t,
            broken=t in broken,
            reason=broken.get(t, ""),
            disagree=t in disagree,
            cells=[_cell(per_cell.get((t, gk), [])) for gk in group_keys],
        )
        for t in tasks
    ]
    anchor = f"{section.anchor}-s"
    section.details = [
        _detail(r, f"{anchor}{i}", broken)
        for i, r in enumerate(_display_order(tasks, group_keys, per_cell))
    ]
    _misuse(section, rows)
    if len(groups) <= MAX_PLOTTED_GROUPS:
        section.pass1_svg = pass1_svg(groups, plot_id=f"{section.anchor}-p1")
        section.status_svg = status_svg(groups, plot_id=f"{section.anchor}-st")
    return section


def _misuse(section: Section, rows: list[Row]) -> None:
    """RobustAPI's metrics (seed: API misuse rate, executable %, overall misuse %)."""
    order = {key: i for i, key in enumerate(section.groups)}
    groups = sorted(
        summarize_misuse(rows), key=lambda g: order.get((g.model, g.condition), len(order))
    )
    if not groups:
        return

    def rate(value: float | None) -> str:
        return "—" if value is None else _pct(value)

    header = ["Model", "Setting", "Answers", "Misuse", "Pass", "Unparsable", "No code"]
    header += [
        "Misuse rate (%)",
        "Executable (%)",
        "Overall misuse (%)",
        "Misuse rate, original (%)",
    ]
    header += ["Executable, original (%)"]
    rows_out = []
    for g in groups:
        c, o = g.correct.total, g.original.total
        rows_out.append(
            [g.model, g.condition, str(c.n), str(c.n_misuse), str(c.n_pass)]
            + [str(c.n_unparsable), str(c.n_no_code), rate(c.misuse_rate)]
            + [rate(c.executable_rate), rate(c.overall_misuse_rate), rate(o.misuse_rate)]
            + [rate(o.executable_rate)]
        )
    section.misuse = Table(header, rows_out, ["l", "l"] + ["r"] * (len(header) - 2))
    section.misuse_note = (
        "Misuse rate = misuse / (misuse + pass), over answers with executable code; executable "
        "= (misuse + pass) / answers; overall misuse = misuse / answers. The verdict is "
        "beyondpass's checker (a usage that satisfies the rules passes); 'original' reads the "
        "same answers with the published checker's semantics (every call a rule covers counts "
        "as misuse, empty code is unparsable). See docs/robustapi.md."
    )

    def breakdown(key: str) -> Table:
        names = sorted({n for g in groups for n in getattr(g.correct, key)})
        head = ["Model", "Setting", "Group", "Answers", "Misuse", "Pass", "Not executable"]
        head += ["Misuse rate (%)", "Misuse rate, original (%)"]
        out = []
        for g in groups:
            for name in names:
                c = getattr(g.correct, key).get(name)
                o = getattr(g.original, key).get(name)
                if c is None:
                    continue
                out.append(
                    [g.model, g.condition, name, str(c.n), str(c.n_misuse), str(c.n_pass)]
                    + [str(c.n_unparsable + c.n_no_code), rate(c.misuse_rate)]
                    + [rate(o.misuse_rate if o is not None else None)]
                )
        return Table(head, out, ["l", "l", "l"] + ["r"] * (len(head) - 3))

    section.misuse_domains = breakdown("by_domain")
    section.misuse_apis = breakdown("by_api")
    section.misuse_svg = misuse_svg(groups, plot_id=f"{section.anchor}-mu")


def _comparison(
    tasks: list[str],
    group_keys: list[tuple[str, str]],
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]],
    broken: dict[str, str],
) -> tuple[Table | None, str, set[str]]:
    if len(group_keys) < 2:
        return None, "", set()
    disagree: set[str] = set()
    all_pass = all_fail = 0
    table_rows = []
    for t in tasks:
        counts = [_passed_of(per_cell.get((t, gk), [])) for gk in group_keys]
        rates = {c / n for c, n in counts if n}
        if len(rates) > 1:
            disagree.add(t)
            label = t + (f" {BROKEN_MARK}" if t in broken else "")
            table_rows.append([label] + [f"{c}/{n}" if n else "—" for c, n in counts])
        elif rates == {1.0}:
            all_pass += 1
        elif rates == {0.0}:
            all_fail += 1
    agree = f"{all_pass} pass in every group, {all_fail} fail in every group."
    if disagree:
        note = (
            f"{len(disagree)} of {len(tasks)} tasks get different pass rates across groups "
            f"(listed below as passed/evaluated); {agree}"
        )
    else:
        note = f"All {len(tasks)} tasks get the same pass rate in every group; {agree}"
    header = ["Task"] + [f"{m} / {c}" for m, c in group_keys]
    table = Table(header, table_rows, ["l"] + ["r"] * len(group_keys)) if table_rows else None
    return table, note, disagree


def _passed_of(rows: list[Row]) -> tuple[int, int]:
    evaluated = [r for r in rows if r.result is not None]
    return sum(bool(r.result and r.result.passed) for r in evaluated), len(evaluated)


def _display_order(
    tasks: list[str],
    group_keys: list[tuple[str, str]],
    per_cell: dict[tuple[str, tuple[str, str]], list[Row]],
) -> Iterable[Row]:
    for t in tasks:
        for gk in group_keys:
            yield from sorted(per_cell.get((t, gk), []), key=lambda r: r.sample.sample_index)


# -- drill-down ------------------------------------------------------------------------------
def _cell(rows: list[Row]) -> Cell:
    rows = sorted(rows, key=lambda r: r.sample.sample_index)
    marks = []
    for r in rows:
        status = _status(r)
        marks.append(
            Mark(
                cls=_css_class(status),
                letter=_LETTERS.get(status, "?"),
                title=f"sample {r.sample.sample_index}: {status}",
                href=f"key:{r.sample.key}",  # resolved to an anchor once details are chosen
            )
        )
    passed, evaluated = _passed_of(rows)
    rate = passed / evaluated if evaluated else None
    style = "" if rate is None else f"background:hsl({round(120 * rate)},55%,82%)"
    counts = Counter(_status(r) for r in rows)
    title = ", ".join(f"{counts[s]} {s}" for s in status_order(counts))
    summary = f"{passed}/{evaluated}" if rows else ""
    return Cell(marks, summary, style, "", title, compact=len(rows) > MAX_SQUARES)


def _detail(row: Row, anchor: str, broken: dict[str, str]) -> Detail:
    s, res = row.sample, row.result
    status = _status(row)
    details = _dict(res.details) if res else {}
    metrics = _dict(res.metrics) if res else {}
    gen = _dict(s.generation)
    facts = []
    for key in ("model_version", "finish_reason", "cached"):
        if key in gen:
            facts.append((key.replace("_", " "), _fmt(gen[key])))
    if gen.get("usage"):
        facts.append(("usage", _fmt(gen["usage"])))
    if "tests_run" in metrics:
        facts.append(
            ("tests passed", f"{_fmt(metrics.get('tests_passed'))}/{_fmt(metrics['tests_run'])}")
        )
    for key, value in metrics.items():
        if key not in ("tests_passed", "tests_run"):
            facts.append((key, _fmt(value)))
    if "wall_s" in details:
        facts.append(("wall time (s)", _fmt(details["wall_s"])))

    ext = _dict(s.extraction)
    extraction = [(k, _fmt(ext[k])) for k in ("status", "kind") if k in ext]
    notes = ext.get("notes")
    notes_list = (
        [_text(n) for n in notes] if isinstance(notes, list) else ([_text(notes)] if notes else [])
    )

    tests = details.get("tests")
    failing = (
        [_dict(t) for t in tests if _dict(t).get("status") != "passed"]
        if isinstance(tests, list)
        else []
    )
    shown_tests = [
        {
            "name": _text(t.get("name")),
            "status": _text(t.get("status")),
            "error_type": _text(t.get("error_type")),
            "message": _clip(_text(t.get("message")), TEST_MESSAGE_CHARS).text,
        }
        for t in failing[:MAX_FAILING_TESTS]
    ]
    message = _text(details.get("message"))
    if not message and status == NOT_EVALUATED:
        message = "not evaluated yet"
    detail = Detail(
        anchor=anchor,
        key=s.key,
        task=s.task_id,
        broken=s.task_id in broken,
        group=f"{s.model} / {s.condition}",
        index=s.sample_index,
        status=status,
        cls=_css_class(status),
        message=_clip(" ".join(message.split()), 300).text,
        facts=facts,
        steps=_steps(s.transcript, s.raw),
        raw=_clip(s.raw, CLIP_CHARS),
        code=_clip(s.code, CLIP_CHARS),
        extraction=extraction,
        extraction_error=_clip(_text(ext.get("error")), CLIP_CHARS),
        extraction_notes=[_clip(n, TEST_MESSAGE_CHARS).text for n in notes_list[:20]],
        tests=shown_tests,
        tests_omitted=max(len(failing) - MAX_FAILING_TESTS, 0),
        stdout=_clip(_text(details.get("stdout")), TAIL_CHARS, tail=True),
        stderr=_clip(_text(details.get("stderr")), TAIL_CHARS, tail=True),
    )
    detail.cost = 400 + sum(
        len(c.text)
        for c in (detail.raw, detail.code, detail.extraction_error, detail.stdout, detail.stderr)
    )
    detail.cost += sum(len(c.text) for st in detail.steps for _, c in st.messages)
    detail.cost += sum(len(st.answer.text) for st in detail.steps if st.answer)
    detail.cost += sum(len(t["message"]) + len(t["name"]) for t in shown_tests)
    return detail


def _steps(transcript: Any, raw: str) -> list[Step]:
    """Every step's messages; a step that continues the previous conversation shows only what
    it adds, and the final answer is shown once (as the raw answer)."""
    if not isinstance(transcript, list):
        return []
    steps: list[Step] = []
    previous: list[tuple[str, str]] = []
    for i, step in enumerate(transcript):
        step = _dict(step)
        messages = [
            (_text(m.get("role")) or "?", _text(m.get("content")))
            for m in (step.get("messages") or [])
            if isinstance(m, dict)
        ]
        continued = bool(previous) and messages[: len(previous)] == previous
        shown = messages[len(previous) :] if continued else messages
        answer = step.get("answer")
        answer_text = _text(answer) if answer is not None else None
        is_last = i == len(transcript) - 1
        steps.append(
            Step(
                title=f"{i + 1}: {name}" if (name := _text(step.get("step"))) else str(i + 1),
                continued=continued,
                messages=[(role, _clip(content, CLIP_CHARS)) for role, content in shown],
                answer=(
                    _clip(answer_text, CLIP_CHARS)
                    if answer_text is not None and not (is_last and answer_text == raw)
                    else None
                ),
            )
        )
        previous = messages + ([("assistant", answer_text)] if answer_text is not None else [])
    return steps


def _select_details(sections: list[Section], rows_total: int) -> str:
    """Keep the drill-down bounded: non-passing samples plus a few passing ones per group (all
    of them for small runs), within a count and a text budget."""
    everything = rows_total <= FULL_DETAILS_UP_TO
    failing = [d for sec in sections for d in sec.details if d.status != "passed"]
    passing: list[Detail] = []
    per_group: Counter[tuple[str, str]] = Counter()
    for sec in sections:
        for d in sec.details:
            if d.status == "passed":
                per_group[(sec.name, d.group)] += 1
                if everything or per_group[(sec.name, d.group)] <= PASSING_DETAILS_PER_GROUP:
                    passing.append(d)
    chosen: set[int] = set()
    spent = 0
    # small runs: failures first; large runs: the few passing examples first, as they are cheap
    for d in failing + passing if everything else passing + failing:
        if len(chosen) >= MAX_DETAILS or spent + d.cost > DETAIL_CHAR_BUDGET:
            continue
        chosen.add(id(d))
        spent += d.cost

    total_failing = len(failing)
    total_passing = sum(1 for sec in sections for d in sec.details if d.status == "passed")
    kept_failing = sum(id(d) in chosen for d in failing)
    kept_passing = sum(id(d) in chosen for d in passing)
    for sec in sections:
        kept = [d for d in sec.details if id(d) in chosen]
        by_key = {d.key: d.anchor for d in kept}
        sec.details = kept
        for mrow in sec.matrix:
            for cell in mrow.cells:
                for mark in cell.marks:
                    mark.href = by_key.get(mark.href.removeprefix("key:"), "")
                cell.href = next((m.href for m in cell.marks if m.href and m.cls != "s-passed"), "")
                cell.href = cell.href or next((m.href for m in cell.marks if m.href), "")
        n_fail = sum(d.status != "passed" for d in kept)
        sec.details_note = f"{len(kept)} samples shown ({n_fail} not passing)."

    parts = [
        f"Details are shown for {kept_failing} of {total_failing} non-passing samples and "
        f"{kept_passing} of {total_passing} passing samples"
    ]
    if not everything:
        parts.append(f"(passing samples: at most the first {PASSING_DETAILS_PER_GROUP} per group)")
    omitted = total_failing - kept_failing + total_passing - kept_passing
    note = " ".join(parts) + "."
    if omitted:
        note += (
            f" {omitted} samples are omitted to keep this page small; their verdicts are in the "
            "matrix and all data is in the run database."
        )
    note += (
        f" Long texts are clipped to {CLIP_CHARS} characters "
        f"(stdout/stderr: the last {TAIL_CHARS})."
    )
    return note


# -- helpers ---------------------------------------------------------------------------------
def _status(row: Row) -> str:
    return row.result.status if row.result is not None else NOT_EVALUATED


def _css_class(status: str) -> str:
    if status in STATUS_COLORS:
        return "s-" + re.sub(r"[^a-z0-9]+", "-", status)
    return "s-other"


def _known_broken(info: dict[str, Any]) -> dict[str, str]:
    kb = info.get("known_broken")
    if isinstance(kb, dict):
        return {str(k): _text(v) for k, v in kb.items()}
    if isinstance(kb, list):
        return {str(k): "" for k in kb}
    return {}


def _ranker(preferred: list[str], seen: set[str]) -> dict[str, int]:
    """Order names as the study lists them, then any others alphabetically."""
    names = [n for n in preferred if n in seen] + sorted(seen - set(preferred))
    return {n: i for i, n in enumerate(names)}


def _natural(text: str) -> list[tuple[int, int | str]]:
    """Sort key putting 'HumanEval/2' before 'HumanEval/10'."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text)]


def _study_seed(meta: dict[str, Any]) -> int:
    seed = _dict(meta.get("study")).get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _fmt(value: Any) -> str:
    """A meta value in one line: dicts as key=value pairs, lists comma-separated."""
    if value is None or value == "" or value == {} or value == []:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return ", ".join(
            f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
            for k, v in value.items()
        )
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.2f}"


def _count_pct(count: int, total: int) -> str:
    return f"{count} ({_pct(count / total)}%)" if total else str(count)


def _clip(text: str, limit: int, *, tail: bool = False) -> Clip:
    if len(text) <= limit:
        return Clip(text)
    if tail:
        return Clip(text[-limit:], len(text) - limit, True)
    return Clip(text[:limit], len(text) - limit, False)


def md_escape(value: Any) -> str:
    """Make text safe for one Markdown table cell or line: no newlines, pipes or raw HTML."""
    return md_cell(_text(value))


def _md_table(table: Table) -> str:
    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    out = [line(md_escape(h) for h in table.header)]
    out.append("|" + "|".join("---:" if a == "r" else ":---" for a in table.align) + "|")
    out += [line(md_escape(c) for c in row) for row in table.rows]
    return "\n".join(out)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["md_table"] = _md_table
    env.filters["paper_md"] = to_markdown
    env.filters["flat_header"] = flat_header
    return env


def _tidy(markdown: str) -> str:
    """Collapse runs of blank lines the template's conditionals leave behind."""
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
