"""Turn a run directory into a paper-ready Markdown report and a self-contained HTML report.

Both formats are rendered from one report model (:mod:`beyondpass.report.model`), so their
numbers cannot drift apart. Report core renders what every run has, then every report
section a method registers (:func:`beyondpass.report.sections.section_providers`). Everything
that comes from samples (answers, code, messages, test output) is treated as hostile text:
the HTML template autoescapes it, the Markdown filter escapes table syntax and HTML, and
every table renders through :mod:`beyondpass.report.table`, which escapes each text for its
target (filters ``md_table`` and ``html_table``).
Rendering is deterministic (no clock, stable ordering, deterministic SVG) so re-rendering an
unchanged run gives byte-identical files, and the HTML drill-down is bounded
(:mod:`beyondpass.report.details`) so large runs stay a few MB.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from beyondpass.analysis.meta import as_dict, study_seed
from beyondpass.analysis.summary import GroupSummary, summarize
from beyondpass.errors import DataError
from beyondpass.report.details import select_details
from beyondpass.report.facts import (
    benchmarks_table,
    condition_steps,
    conditions_table,
    environment_facts,
    execution_facts,
    method_lines,
    models_table,
    run_facts,
)
from beyondpass.report.model import Report, ReportPaths
from beyondpass.report.plots import OTHER_COLOR, STATUS_COLORS, css_class
from beyondpass.report.results import benchmark_results
from beyondpass.report.sections import (
    ReportContext,
    SectionOutput,
    run_order,
    section_providers,
)
from beyondpass.report.table import Table, to_html, to_markdown
from beyondpass.report.text import as_text, fmt, md_escape
from beyondpass.store.run_store import Row, RunStore

__all__ = [
    "ReportPaths",
    "build_report",
    "md_escape",
    "render_html",
    "render_markdown",
    "render_report",
    "template_environment",
]

_TEMPLATES = Path(__file__).parent / "templates"


def render_report(
    run_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    seed: int | None = None,
    plots: bool = True,
    **options: Any,
) -> ReportPaths:
    """Write ``report.md`` and ``report.html`` for a run into ``out_dir`` (default: the run),
    plus the artifacts of the report sections (e.g. ``robunfr-tables.tex``).

    ``seed`` drives the bootstrap CI; by default the study's seed, so the report's intervals
    are reproducible from the run alone. ``plots`` and any other keyword ``options`` reach
    every report section as :attr:`ReportContext.options` (a method may read its own, e.g.
    to leave its slow plots out).
    """
    run_dir = Path(run_dir)
    with RunStore(run_dir, create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    if not rows:
        raise DataError(f"{run_dir} holds no samples yet — nothing to report")
    if seed is None:
        seed = study_seed(meta)
    out = Path(out_dir) if out_dir is not None else run_dir
    summaries = summarize(rows, seed=seed)
    report = build_report(meta, rows, summaries, seed=seed, fallback_title=run_dir.name)
    ctx = ReportContext(meta, rows, seed, out, {"plots": plots, **options}, run_dir=run_dir)
    _add_sections(report, [s for p in section_providers() if (s := p.build(ctx)) is not None])

    out.mkdir(parents=True, exist_ok=True)
    artifacts: dict[str, Path] = {}
    for section in report.extras:
        for name, content in section.artifacts.items():
            path = out / name
            path.write_text(content, encoding="utf-8", newline="\n")
            artifacts[name] = path
    paths = ReportPaths(
        markdown=out / "report.md",
        html=out / "report.html",
        latex=next((p for p in artifacts.values() if p.suffix == ".tex"), None),
        tables_json=next((p for p in artifacts.values() if p.suffix == ".json"), None),
        artifacts=artifacts,
    )
    env = template_environment()
    markdown = env.get_template("report.md.j2").render(r=report)
    html = env.get_template("report.html.j2").render(r=report)
    paths.markdown.write_text(_tidy(markdown), encoding="utf-8", newline="\n")
    paths.html.write_text(html, encoding="utf-8", newline="\n")
    return paths


def _add_sections(report: Report, outputs: Sequence[SectionOutput]) -> None:
    """Sections' own parts go under their headings; benchmark parts into those results."""
    report.extras = list(outputs)
    for sec in report.sections:
        sec.parts = [o.benchmark_parts[sec.name] for o in outputs if sec.name in o.benchmark_parts]


def build_report(
    meta: dict[str, Any],
    rows: Sequence[Row],
    summaries: Sequence[GroupSummary],
    *,
    seed: int,
    fallback_title: str = "run",
) -> Report:
    """The format-independent report model that both templates render (without sections)."""
    study = as_dict(meta.get("study"))
    bench_meta = as_dict(meta.get("benchmarks"))
    model_meta = as_dict(meta.get("models"))
    cond_meta = as_dict(meta.get("conditions"))

    model_rank = _ranks(run_order(meta, rows, "models"))
    cond_rank = _ranks(run_order(meta, rows, "conditions"))
    bench_rank = _ranks(run_order(meta, rows, "benchmarks"))
    ordered = sorted(
        summaries,
        key=lambda s: (bench_rank[s.benchmark], model_rank[s.model], cond_rank[s.condition]),
    )

    evaluated = sum(r.result is not None for r in rows)
    sections = [
        benchmark_results(
            name,
            as_dict(bench_meta.get(name)),
            [s for s in ordered if s.benchmark == name],
            [r for r in rows if r.sample.benchmark == name],
            index,
        )
        for index, name in enumerate(sorted(bench_rank, key=bench_rank.__getitem__), start=1)
    ]
    details_note = select_details(sections, rows_total=len(rows))

    return Report(
        title=as_text(study.get("name")) or fallback_title,
        description=as_text(study.get("description")),
        run_facts=run_facts(meta, study, len(rows), evaluated, seed),
        models=models_table(model_meta, model_rank, ordered),
        benchmarks=benchmarks_table(bench_meta, bench_rank, rows),
        conditions=conditions_table(cond_meta, cond_rank),
        condition_steps=condition_steps(cond_meta),
        sampling=[(k, fmt(v)) for k, v in as_dict(meta.get("sampling")).items()],
        execution=execution_facts(meta),
        environment=environment_facts(as_dict(meta.get("environment"))),
        method=method_lines(seed),
        sections=sections,
        status_colors=[(st, css_class(st), c) for st, c in STATUS_COLORS.items()]
        + [("other", "s-other", OTHER_COLOR)],
        details_note=details_note,
    )


def _ranks(names: list[str]) -> dict[str, int]:
    return {n: i for i, n in enumerate(names)}


def template_environment(*extra: jinja2.BaseLoader) -> jinja2.Environment:
    """The report's Jinja environment: HTML autoescaped, the filters (``md``, and the
    tables' ``md_table`` and ``html_table``), and the report's macros (``macros.html.j2``:
    ``facts``, ``clipped``) for sections that render their fragments with it (``extra``
    loaders come first)."""
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([*extra, jinja2.FileSystemLoader(_TEMPLATES)]),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["md_table"] = _md_table
    env.filters["html_table"] = to_html
    return env


#: a section's notes as bullets, then its paper tables (values ``notes``, ``tables``)
TABLES_MARKDOWN = """\
{% for note in notes %}
- {{ note|md }}
{% endfor %}

{% for t in tables %}
{{ t|md_table }}

{% endfor %}
"""


def render_markdown(source: str, **values: Any) -> str:
    """Render a Markdown fragment template (filters ``md``, ``md_table``)."""
    return template_environment().from_string(source).render(**values)


def render_html(source: str, **values: Any) -> str:
    """Render an HTML fragment template (autoescaped; the report macros importable)."""
    template = template_environment().from_string(
        "{% autoescape true %}" + source + "{% endautoescape %}"
    )
    return template.render(**values)


def _md_table(table: Table) -> str:
    """A table in Markdown, without the trailing newline (templates place their own)."""
    return to_markdown(table).rstrip("\n")


def _tidy(markdown: str) -> str:
    """Collapse runs of blank lines the template's conditionals leave behind."""
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
