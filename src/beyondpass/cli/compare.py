"""``beyondpass compare RUN_OLD RUN_NEW``: regression testing of a model update, CI-ready.

Prints the Δ table (old vs new on the same tasks and prompts, with paired tests) of every
method's headline metrics (:mod:`beyondpass.analysis.headline_compare`: pass@1, RobustAPI's
misuse rate, NoFunEval's DiffBLEU and speed-up, ObfusEval's robust pass@1, ...), each read in
the reading its run was made with, plus what installed methods add
(:mod:`beyondpass.analysis.compare_section`), names the trade-offs and the inconsistencies
across benchmarks, and exits with :data:`EXIT_GATE_FAILED` when a ``--fail-on`` rule is
breached (syntax in :mod:`beyondpass.analysis.regression`). ``--out DIR`` also writes the
comparison as Markdown, LaTeX, JSON and a self-contained HTML page with Δ plots. No method
is named here: the core alone compares pass@1.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click

from beyondpass.analysis.meta import as_dict
from beyondpass.cli.base import emit_json
from beyondpass.cli.options import json_option

#: Exit code when a --fail-on rule is breached (distinct from 1 incomplete, 2 bad input).
EXIT_GATE_FAILED = 4


def _load(run_dir: str, seed: int | None, alpha: float) -> tuple[Any, Any]:
    """A run as ``compare`` reads it, and its headline cells."""
    from beyondpass.analysis.compare_section import ComparedRun
    from beyondpass.analysis.headline_compare import RunHeadlines
    from beyondpass.analysis.meta import study_seed
    from beyondpass.errors import DataError
    from beyondpass.store.run_store import RunStore

    path = Path(run_dir)
    if not path.is_dir():
        raise DataError(f"run directory {run_dir} does not exist")
    with RunStore(path, create=False) as store:
        meta = store.all_meta()
        rows = list(store.rows())
    if not any(r.result is not None for r in rows):
        raise DataError(f"{run_dir} has no evaluated samples — run or evaluate it before comparing")
    run_seed = seed if seed is not None else study_seed(meta)
    run = ComparedRun(str(path), meta, rows, run_seed, alpha)
    headlines = RunHeadlines.of(str(path), meta, rows, seed=run_seed, alpha=alpha)
    return run, headlines


def _pairs(old: Any, new: Any, given: tuple[str, ...]) -> list[Any]:
    from beyondpass.analysis.regression import VersionPair
    from beyondpass.errors import ConfigError

    old_models, new_models = old.models, new.models
    if given:
        pairs = []
        for text in given:
            a, sep, b = text.partition("=")
            if not sep or not a.strip() or not b.strip():
                raise ConfigError(f"--pair {text!r}: write OLD_MODEL=NEW_MODEL")
            a, b = a.strip(), b.strip()
            if a not in old_models:
                raise ConfigError(
                    f"--pair {text!r}: {a!r} is not a model of {old.name} "
                    f"(models: {', '.join(old_models)})"
                )
            if b not in new_models:
                raise ConfigError(
                    f"--pair {text!r}: {b!r} is not a model of {new.name} "
                    f"(models: {', '.join(new_models)})"
                )
            pairs.append(VersionPair(a, b))
        return pairs
    if len(old_models) == 1 and len(new_models) == 1:
        return [VersionPair(old_models[0], new_models[0])]
    shared = [m for m in old_models if m in new_models]
    if shared:
        return [VersionPair(m, m) for m in shared]
    raise ConfigError(
        f"cannot tell which models to compare ({', '.join(old_models)} vs "
        f"{', '.join(new_models)}) — give --pair OLD_MODEL=NEW_MODEL"
    )


def _design_notes(old: Any, new: Any) -> list[str]:
    """What differs between the runs besides the model (reported, not fatal)."""
    notes = []
    om, nm = old.meta, new.meta
    ob = as_dict(om.get("benchmarks"))
    nb = as_dict(nm.get("benchmarks"))
    for b in sorted(set(ob) & set(nb)):
        ov = as_dict(ob[b]).get("version")
        nv = as_dict(nb[b]).get("version")
        if ov != nv:
            notes.append(f"benchmark {b} differs between the runs (version {ov} vs {nv})")
    only_old = sorted(set(old.benchmarks) - set(new.benchmarks))
    only_new = sorted(set(new.benchmarks) - set(old.benchmarks))
    if only_old or only_new:
        notes.append(
            "benchmarks in one run only are not compared: " + ", ".join(only_old + only_new)
        )
    oc = as_dict(om.get("conditions"))
    nc = as_dict(nm.get("conditions"))
    changed = sorted(c for c in set(oc) & set(nc) if _steps(oc[c]) != _steps(nc[c]))
    if changed:
        notes.append(
            f"{len(changed)} condition(s) have different prompt text in the two runs "
            f"(e.g. {changed[0]}): their differences are not the model's alone"
        )
    missing = sorted(set(oc) ^ set(nc))
    if missing:
        notes.append(f"{len(missing)} condition(s) are in one run only and not compared")
    notes.extend(_timing_notes(om, nm))
    for label, an in (("old", old), ("new", new)):
        if an.meta.get("status") not in (None, "complete"):
            notes.append(
                f"the {label} run is {an.meta.get('status')}: unscored samples are left out"
            )
    return notes


def _timing_notes(old_meta: dict, new_meta: dict) -> list[str]:
    """Execution times compare only between runs timed the same way (call_timing.py)."""
    methods = []
    for meta in (old_meta, new_meta):
        executor = as_dict(meta.get("executor"))
        if not executor.get("timing_repeats"):
            return []  # a run without times: nothing to mix up
        methods.append(executor.get("timing"))
    if methods[0] == methods[1]:
        return []
    versions = [m.get("version") if isinstance(m, dict) else "unrecorded" for m in methods]
    return [
        f"the runs timed calls differently (timing method {versions[0]} vs {versions[1]}): "
        "their execution times are not the model's difference alone"
    ]


def _steps(info: Any) -> Any:
    return as_dict(info).get("steps")


def _delta_rows(report: Any, seed: int, from_sections: set[int]) -> list[dict[str, Any]]:
    """One record per compared cell; ``from_sections``: the ids of the comparisons a
    method's ``compare`` section made, which it tabulates itself (``"section": true``)."""
    from beyondpass.analysis.cells import delta_ci
    from beyondpass.analysis.formatting import bench_label
    from beyondpass.analysis.headline import arm_of
    from beyondpass.analysis.metrics import metric_def
    from beyondpass.analysis.regression import meta_of
    from beyondpass.analysis.stats import finite_or_none

    rows = []
    for vc in report.comparisons:
        labels = {g.key: g for g in vc.groups}
        meta = meta_of(vc)
        own_table = id(vc) in from_sections
        for (bench, gkey, metric), c in vc.comparisons.items():
            g = labels[gkey]
            rows.append(
                {
                    "method": vc.method,
                    "reading": vc.reading,
                    "section": own_table,
                    "arm": arm_of(meta, bench, gkey),
                    "pair": vc.pair.label,
                    "old_model": vc.pair.old_model,
                    "new_model": vc.pair.new_model,
                    "benchmark": bench,
                    "benchmark_label": bench_label(bench),
                    "group": gkey,
                    "group_label": g.display_label,
                    "metric": metric,
                    "metric_label": metric_def(metric).label,
                    "unit": metric_def(metric).unit,
                    "old": finite_or_none(c.base.avg),
                    "old_sd": finite_or_none(c.base.sd),
                    "old_ci95": list(c.base.ci) if c.base.ci else None,
                    "new": finite_or_none(c.other.avg),
                    "new_sd": finite_or_none(c.other.sd),
                    "new_ci95": list(c.other.ci) if c.other.ci else None,
                    "delta": finite_or_none(c.delta),
                    "delta_ci95": list(ci) if (ci := delta_ci(c, seed=seed)) else None,
                    "delta_pct": finite_or_none(c.delta_pct),
                    "direction": c.direction,
                    "test": c.primary.test,
                    "pairs": c.primary.n,
                    "p": finite_or_none(c.primary.p),
                    "p_holm": finite_or_none(c.p_adj),
                    "effect_name": c.primary.effect_name,
                    "effect": finite_or_none(c.primary.effect),
                    "paired_t_p": finite_or_none(c.t_paired.p),
                    "seed_t_p": finite_or_none(c.t_seed.p),
                    "significant": c.significant,
                }
            )
    return rows


@click.command()
@click.argument("run_old", metavar="RUN_OLD")
@click.argument("run_new", metavar="RUN_NEW")
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    metavar="SPEC",
    help="Exit 4 when a metric regresses beyond a limit, e.g. 'pass@1:-2%', "
    "'misuse_rate:+2pp', 'diffbleu:-5%', 'robust_pass@1[method=obfuseval]:-2pp', "
    "'smell_density[benchmark=mbpp]:+10%' (repeatable; every method's headline metrics "
    "and scopes: docs/profile.md).",
)
@click.option(
    "--pair",
    "pairs",
    multiple=True,
    metavar="OLD=NEW",
    help="Which model of RUN_OLD to compare with which of RUN_NEW (default: the only "
    "model of each, else the same labels).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level (Holm-adjusted within each metric).",
)
@click.option(
    "--require-significance/--no-require-significance",
    default=True,
    show_default=True,
    help="Whether a --fail-on breach must also be significant.",
)
@click.option(
    "--across-readings",
    is_flag=True,
    help="Compare runs a method read differently (e.g. RobustAPI's checker semantics "
    "'original' in one, 'correct' in the other): each is read in its own, and the table "
    "names both. Without it such runs are refused.",
)
@click.option("--seed", type=int, default=None, help="Bootstrap seed (default: RUN_OLD's).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Also write compare.md, compare.tex, compare.json and compare.html here.",
)
@json_option()
def compare(
    run_old: str,
    run_new: str,
    fail_on: tuple[str, ...],
    pairs: tuple[str, ...],
    alpha: float,
    require_significance: bool,
    across_readings: bool,
    seed: int | None,
    out: str | None,
    as_json: bool,
) -> None:
    """Compare two runs of the same design (a model update): Δ per metric, trade-offs,
    inconsistencies across benchmarks, and an exit code for CI."""
    from beyondpass import registry
    from beyondpass.analysis.headline_compare import compare_headlines, reading_conflicts
    from beyondpass.analysis.regression import analyse_regression, check_gates, parse_gate
    from beyondpass.errors import ConfigError, DataError

    gates = [parse_gate(text) for text in fail_on]  # bad rules fail before any work
    old, old_headlines = _load(run_old, seed, alpha)
    new, new_headlines = _load(run_new, seed if seed is not None else old.seed, alpha)
    conflicts = reading_conflicts(old_headlines, new_headlines)
    if conflicts and not across_readings:
        raise ConfigError(
            "the runs were read differently ("
            + "; ".join(conflicts)
            + ") — compare runs made the same way, or pass --across-readings"
        )
    version_pairs = _pairs(old, new, pairs)
    headline_metrics = {key[1] for key in old_headlines.cells}
    asked = [g.metric for g in gates if g.metric not in headline_metrics]
    made = []  # each installed section with the comparisons it made
    for ref, method in registry.specs("compare_sections"):
        section = registry.resolve(ref, method, needs_extra=False)()
        made.append((section, section.compare(old, new, version_pairs, asked)))
    vcs = [vc for _, own in made for vc in own]
    from_sections = {id(vc) for vc in vcs}
    compared = {m for vc in vcs for m in vc.metrics}
    vcs += compare_headlines(old_headlines, new_headlines, version_pairs, skip=compared)
    if not any(vc.benchmarks for vc in vcs):
        raise DataError(f"{run_old} and {run_new} share no benchmark: nothing to compare")
    check_gates(gates, vcs)
    report = analyse_regression(vcs, gates, require_significance=require_significance)
    notes = _reading_notes(old_headlines, new_headlines) + _design_notes(old, new)
    payload = {
        "old_run": run_old,
        "new_run": run_new,
        "pairs": [vc.pair.label for vc in vcs],
        "alpha": alpha,
        "seed": old.seed,
        "readings": _readings(old_headlines, new_headlines),
        "notes": notes,
        "comparisons": _delta_rows(report, old.seed, from_sections),
        "changes": [f.data | {"text": f.text} for f in report.changes],
        "trade_offs": [f.data | {"text": f.text} for f in report.trade_offs],
        "inconsistencies": [f.data | {"text": f.text} for f in report.inconsistencies],
        "gate": {
            "rules": [g.text for g in gates],
            "require_significance": require_significance,
            "violations": [f.data | {"text": f.text} for f in report.violations],
            "passed": not report.gate_failed,
        },
    }
    if out:
        payload["files"] = _write_outputs(Path(out), report, payload, made)
    if as_json:
        from beyondpass.report.artifacts import json_safe

        emit_json(json_safe(payload))
    else:
        _print(report, payload)
    if report.gate_failed:
        sys.exit(EXIT_GATE_FAILED)


def _readings(old: Any, new: Any) -> dict[str, dict[str, dict[str, str]]]:
    """Per method both runs hold, the reading each was read in."""
    held = sorted((old.methods() & new.methods()) & (set(old.readings) | set(new.readings)))
    return {m: {"old": old.readings.get(m, {}), "new": new.readings.get(m, {})} for m in held}


def _reading_notes(old: Any, new: Any) -> list[str]:
    """What ``compare`` read each method's values in, said before anything else."""
    from beyondpass.analysis.headline import reading_text

    notes = []
    for method, both in _readings(old, new).items():
        a, b = reading_text(both["old"]), reading_text(both["new"])
        if a == b:
            notes.append(f"{method}: both runs read with {a}, as they were made")
        else:
            notes.append(
                f"{method}: the old run read with {a}, the new with {b} (--across-readings)"
            )
    return notes


def _print(report: Any, payload: dict[str, Any]) -> None:
    from rich.table import Table

    from beyondpass.analysis.formatting import bench_label
    from beyondpass.analysis.metrics import metric_def
    from beyondpass.cli.base import console as _console

    console = _console()
    for vc in report.comparisons:
        title = f"{vc.method} · {vc.pair.label}" + (f" · {vc.reading}" if vc.reading else "")
        table = Table(title=title, title_justify="left")
        table.add_column("benchmark")
        table.add_column("group")
        for m in vc.metrics:
            table.add_column(f"{metric_def(m).label}\nold → new (Δ%)", justify="right")
        for bench in vc.benchmarks:
            for g in vc.groups:
                cells = []
                for m in vc.metrics:
                    c = vc.comparisons.get((bench, g.key, m))
                    cells.append(_cell_text(c, metric_def(m).decimals))
                table.add_row(bench_label(bench), g.display_label, *cells)
        console.print(table)
    click.echo(
        "* significant (Holm-adjusted paired test, alpha "
        f"{payload['alpha']:g}); old/new are AVG across prompts"
    )
    for title, items in (
        ("Trade-offs", report.trade_offs),
        ("Inconsistent across benchmarks", report.inconsistencies),
    ):
        click.echo(f"{title}: {'none' if not items else ''}")
        for f in items:
            click.echo(f"  - {f.text}")
    click.echo(f"Significant changes: {len(report.changes)}")
    for note in payload["notes"]:
        click.echo(f"note: {note}")
    if report.gates:
        if report.gate_failed:
            for f in report.violations:
                click.echo(f"  {f.text}")
            click.echo(f"gate: FAILED ({len(report.violations)} breach(es))")
        else:
            click.echo(
                "gate: passed ("
                + "; ".join(g.describe() for g in report.gates)
                + ": no significant breach)"
            )
    for name, path in payload.get("files", {}).items():
        click.echo(f"{name}: {path}")


def _cell_text(c: Any, decimals: int) -> str:
    if c is None or c.base.avg is None or c.other.avg is None:
        return "—"
    pct = f"{c.delta_pct:+.2f}" if c.delta_pct is not None and math.isfinite(c.delta_pct) else "—"
    mark = "*" if c.significant else ""
    return f"{c.base.avg:.{decimals}f} → {c.other.avg:.{decimals}f} ({pct}{mark})"


def _write_outputs(
    out: Path, report: Any, payload: dict[str, Any], made: list[tuple[Any, list[Any]]]
) -> dict[str, str]:
    from beyondpass.report.artifacts import json_text
    from beyondpass.report.compare_table import headline_delta_table
    from beyondpass.report.table import tables_latex, tables_markdown

    out.mkdir(parents=True, exist_ok=True)
    tables: list[Any] = []
    plots: list[str] = []
    for section, own in made:  # each section's tables and plots of its own comparisons
        tables += section.tables(own)
        plots += section.plots(own)
    tables.append(headline_delta_table(payload["comparisons"]))
    tables = [t for t in tables if t.rows]
    md = [
        "# beyondpass compare",
        "",
        f"Old: `{payload['old_run']}` · New: `{payload['new_run']}`",
        "",
    ]
    md.append(tables_markdown(tables))
    for title, items in (
        ("Trade-offs", report.trade_offs),
        ("Inconsistent across benchmarks", report.inconsistencies),
        ("Gate", report.violations),
    ):
        md += [f"## {title}", ""]
        md += [f"- {f.text}" for f in items] or ["- none"]
        md.append("")
    md += [f"- note: {n}" for n in payload["notes"]]
    files = {
        "markdown": out / "compare.md",
        "latex": out / "compare.tex",
        "json": out / "compare.json",
        "html": out / "compare.html",
    }
    files["markdown"].write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    files["latex"].write_text(tables_latex(tables), encoding="utf-8")
    files["json"].write_text(json_text(payload), encoding="utf-8")
    files["html"].write_text(_html(tables, report, payload, plots), encoding="utf-8")
    return {k: str(v) for k, v in files.items()}


def _html(tables: Any, report: Any, payload: dict[str, Any], plots: list[str]) -> str:
    from beyondpass.report.render import template_environment

    return (
        template_environment()
        .get_template("compare.html.j2")
        .render(tables=tables, rep=report, p=payload, plots=[s for s in plots if s])
    )
