"""The RobuNFR part of a run's report: the seed's tables, statistics, failures and plots.

Built only for runs whose design has Function-Only and NFR conditions (``plan =
"robunfr"``, or custom conditions that declare ``workflow`` and ``nfr``), or whose study
names version pairs (``[report] version_pairs``). Besides the report's own Markdown and HTML,
the tables are written as LaTeX (``robunfr-tables.tex``) and JSON (``robunfr-tables.json``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.analysis.robunfr import (
    NFR_METRICS,
    PASS,
    Analysis,
    VersionPair,
    analyse,
    bench_label,
    compare_versions,
    robunfr_tables,
)
from beyondpass.analysis.tables import PaperTable
from beyondpass.report.paper_tables import tables_latex
from beyondpass.report.robunfr_plots import prompt_spread_svg, version_delta_svg
from beyondpass.store.run_store import Row

LATEX_FILE = "robunfr-tables.tex"
JSON_FILE = "robunfr-tables.json"


@dataclass
class Plot:
    caption: str
    svg: str


@dataclass
class RobunfrSection:
    tables: list[PaperTable]
    plots: list[Plot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def version_pairs(meta: Mapping[str, Any]) -> list[VersionPair]:
    study = meta.get("study") if isinstance(meta.get("study"), dict) else {}
    config = study.get("config") if isinstance(study.get("config"), dict) else {}
    report = config.get("report") if isinstance(config.get("report"), dict) else {}
    pairs = report.get("version_pairs", [])
    out = []
    for p in pairs if isinstance(pairs, list) else []:
        if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p):
            out.append(VersionPair(p[0], p[1]))
    return out


def build_section(
    meta: Mapping[str, Any], rows: Sequence[Row], *, seed: int, plots: bool = True
) -> RobunfrSection | None:
    pairs = version_pairs(meta)
    an = analyse(meta, rows, seed=seed)
    d = an.data
    if not d.is_robunfr and not pairs:
        return None
    notes = []
    present_pairs = [p for p in pairs if p.old_model in d.models and p.new_model in d.models]
    for p in pairs:
        if p not in present_pairs:
            notes.append(
                f"Version pair {p.label} is not in this run (models: {', '.join(d.models)}); "
                "Table 4 leaves it out."
            )
    if d.is_robunfr and not any(d.has_metric(m) for m in NFR_METRICS):
        notes.append(
            "No NFR metrics in this run: Tables 3 and 6 need the NFR evaluator "
            "([evaluation] nfr = true in the study)."
        )
    section = RobunfrSection(robunfr_tables(an, present_pairs), notes=notes)
    if plots:
        section.plots = _plots(an, present_pairs)
    return section


def _plots(an: Analysis, pairs: Sequence[VersionPair]) -> list[Plot]:
    d = an.data
    out: list[Plot] = []
    metrics = [PASS] + [m for m in NFR_METRICS if d.has_metric(m)]
    if d.is_robunfr:
        for bi, bench in enumerate(d.benchmarks):
            for mi, model in enumerate(d.models):
                svg = prompt_spread_svg(an, bench, model, metrics, plot_id=f"rn-s{bi}-{mi}")
                if svg:
                    out.append(
                        Plot(
                            f"{bench_label(bench)} · {model}: each point is one prompt; the "
                            "line and band are Function-Only's AVG ± STDEV.",
                            svg,
                        )
                    )
    if pairs:
        for pi, vc in enumerate(compare_versions(an, an, pairs)):
            for bi, bench in enumerate(vc.benchmarks):
                svg = version_delta_svg(vc, bench, plot_id=f"rn-v{pi}-{bi}")
                if svg:
                    out.append(Plot(f"{bench_label(bench)}: Δ% of {vc.pair.label}.", svg))
    return out


def write_artifacts(section: RobunfrSection, out: Path) -> tuple[Path, Path]:
    """The tables as LaTeX (booktabs) and JSON next to the report."""
    latex = out / LATEX_FILE
    latex.write_text(tables_latex(section.tables), encoding="utf-8", newline="\n")
    data = out / JSON_FILE
    payload = {"tables": [t.as_dict() for t in section.tables], "notes": section.notes}
    data.write_text(
        json.dumps(json_safe(payload), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        encoding="utf-8",
        newline="\n",
    )
    return latex, data


def json_safe(value: Any) -> Any:
    """Non-finite floats become null: JSON has no NaN, and a reader must not see one."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


__all__ = [
    "JSON_FILE",
    "LATEX_FILE",
    "RobunfrSection",
    "build_section",
    "json_safe",
    "write_artifacts",
]
