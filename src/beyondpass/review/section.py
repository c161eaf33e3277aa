"""The review's report section: the seed's Table 4 layout per pair, the Bradley-Terry
ranking when more than two models are reviewed, agreement and tests."""

from __future__ import annotations

import json
from typing import Any

from beyondpass.report.render import render_html
from beyondpass.report.sections import ReportContext, SectionOutput
from beyondpass.report.table import Table, text_rows, to_latex, to_markdown
from beyondpass.report.text import md_escape

from . import db

_HTML = """\
{% for p in pairs %}
<h4>{{ p.a }} vs {{ p.b }}</h4>
{{ p.table|html_table("review-table4") }}
<ul>{% for x in p.bullets %}<li>{{ x }}</li>{% endfor %}</ul>
{% endfor %}
{% if ranking %}<h4>Bradley-Terry ranking</h4>
{{ ranking|html_table("review-bt") }}{% elif ranking_note %}<p>{{ ranking_note }}</p>{% endif %}
<ul>{% for x in study %}<li>{{ x }}</li>{% endfor %}</ul>
"""
SHORT = {
    "first_impression": "F.Impr.",
    "readability": "Read.",
    "usability": "Usab.",
    "modifiability": "Modif.",
    "acceptance": "Acc.",
}


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table4(block: dict[str, Any]) -> Table:
    """The seed's Table 4 of one pair: summed scores per task, then averages."""
    t = block["table4"]
    a, b = block["pair"]
    header = ["Task", *[f"{SHORT[p]} {m}" for p in db.PROPERTIES for m in (a, b)], f"{a}/{b}"]
    cols = t["columns"]
    body = [
        [r["item"] + ("" if r["both_pass"] else " †"), *[str(r[c]) for c in cols]]
        for r in t["rows"]
    ]
    for scope, name in (("all", ""), ("restricted", f" (both ≥ {t['min_pass_rate']:.0%})")):
        for stat in ("mean", "stdev"):
            body.append(
                [
                    f"{'average' if stat == 'mean' else 'st. deviation'}{name}",
                    *[_fmt(t[scope][c][stat]) for c in cols],
                ]
            )
    return Table(header, text_rows(body), ["l"] + ["r"] * (len(header) - 1))


def _per_model(block: dict[str, Any]) -> Table:
    rows = [
        [model, db.LABELS[prop], _fmt(d["sum"]), _fmt(d["mean"]), _fmt(d["stdev"]), str(d["n"])]
        for model, info in block["per_model"].items()
        for prop, d in info["properties"].items()
    ]
    header = ["Model", "Property", "sum", "mean", "stdev", "n"]
    return Table(header, text_rows(rows), ["l", "l", "r", "r", "r", "r"])


def _pair_bullets(block: dict[str, Any]) -> list[str]:
    a, b = block["pair"]
    prefs = ", ".join(f"{m}: {i['preferred']}" for m, i in block["per_model"].items())
    lines = [f"Preferred: {prefs}."]
    for prop, t in block["paired_tests"].items():
        lines.append(
            f"{db.LABELS[prop]}: mean {a} − {b} = {_fmt(t['mean_diff'])}, Wilcoxon "
            f"p={_fmt(t['p_value'], 3)} (n={t['n']})"
        )
    return lines


def _pair_markdown(block: dict[str, Any]) -> list[str]:
    a, b = (md_escape(m) for m in block["pair"])
    return [
        f"Blind side-by-side review of **{a}** vs **{b}**: {block['ratings']} rated items. "
        "Summed scores per task (first ratings); the last column is times "
        f"{b} was preferred minus times {a} was (negative favours {a}). † : not both models "
        f"reached {block['table4']['min_pass_rate']:.0%} pass rate.",
        "",
        to_markdown(_table4(block)),
        to_markdown(_per_model(block)),
        *(f"- {md_escape(x)}" for x in _pair_bullets(block)),
    ]


def _ranking(ranking: dict[str, Any]) -> Table:
    rows = [
        [str(m["rank"]), m["model"], f"{m['strength']:.2f}"]
        + [f"{m['ci'][0]:.2f}–{m['ci'][1]:.2f}" if m["ci"] else "–"]
        + [str(m["wins"]), str(m["comparisons"])]
        for m in ranking["models"]
    ]
    header = ["Rank", "Model", "Strength", "95% CI", "Wins", "Comparisons"]
    return Table(header, text_rows(rows), ["r", "l", "r", "r", "r", "r"])


def _ranking_markdown(ranking: dict[str, Any]) -> list[str]:
    if not ranking["estimable"]:
        return [f"Bradley-Terry ranking: not estimable — {md_escape(ranking['reason'])}."]
    return [
        f"Bradley-Terry ranking from {ranking['comparisons']} first choices (strength: "
        "geometric mean 1; 95% CI: item bootstrap, "
        f"{ranking['resamples_used']} of {ranking['resamples']} resamples estimable):",
        "",
        to_markdown(_ranking(ranking)),
    ]


def _study_bullets(res: dict[str, Any]) -> list[str]:
    """Agreement, consistency, position bias and time per item, one line each."""
    ag, pb, tm = res["agreement"], res["position_bias"], res["time_per_item"]
    ci = ag["ci"]
    lines = [
        f"Krippendorff's alpha (ordinal): {_fmt(ag['alpha'], 3)}"
        + (f" (95% bootstrap CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else "")
        + f" over {ag['units']} units rated at least twice."
    ]
    for pair, k in ag["kappa"].items():
        lines.append(f"Cohen's kappa {pair}: {_fmt(k['kappa'], 3)} (n={k['n']})")
    for name, c in res["consistency"].items():
        lines.append(
            f"Consistency of {name} on repeated items: {c['identical']:.0%} identical, "
            f"mean |difference| {_fmt(c['mean_abs_diff'])}"
        )
    lines.append(
        f"Position bias: left called better in {_fmt(pb['left_share'])} of {pb['n']} "
        f"choices (binomial p={_fmt(pb['p_value'], 3)})."
    )
    lines.append(
        f"Time per item: active {_fmt(tm['active']['mean'], 1)} s on average "
        f"(sd {_fmt(tm['active']['stdev'], 1)}, n={tm['active']['n']}; pauses longer than "
        f"{tm['idle_cap_s']:.0f} s between actions count as {tm['idle_cap_s']:.0f} s), wall "
        f"{_fmt(tm['wall']['mean'], 1)} s."
    )
    return lines


def markdown(res: dict[str, Any]) -> str:
    lines: list[str] = []
    for block in res["pairs"]:
        lines += [*_pair_markdown(block), ""]
    if res.get("ranking"):
        lines += [*_ranking_markdown(res["ranking"]), ""]
    lines += [f"- {md_escape(x)}" for x in _study_bullets(res)]
    return "\n".join(lines) + "\n"


def to_html(res: dict[str, Any]) -> str:
    pairs = [
        {"a": p["pair"][0], "b": p["pair"][1], "table": _table4(p), "bullets": _pair_bullets(p)}
        for p in res["pairs"]
    ]
    ranking = res.get("ranking") or {}
    estimable = bool(ranking.get("estimable"))
    return render_html(
        _HTML,
        pairs=pairs,
        ranking=_ranking(ranking) if estimable else None,
        ranking_note=""
        if estimable or not ranking
        else f"Bradley-Terry ranking: not estimable — {ranking['reason']}.",
        study=_study_bullets(res),
    )


def latex(res: dict[str, Any]) -> str:
    """Table 4 of each pair as a bare booktabs tabular, every text escaped."""
    return "\n".join(to_latex(_table4(block), environment=None) for block in res["pairs"])


class ReviewReportSection:
    """Table 4 of the run's review study; None when the run has no review data."""

    key = "review"

    def build(self, ctx: ReportContext) -> SectionOutput | None:
        run_dir = ctx.run_dir or ctx.out_dir
        if not db.db_path(run_dir).exists():
            return None
        from .results import results, table4_csv

        res = results(run_dir, seed=ctx.seed)
        if not res["ratings"]:
            return None
        return SectionOutput(
            key=self.key,
            title="Blind human review",
            markdown=markdown(res),
            html=to_html(res),
            artifacts={
                "review-table4.tex": latex(res),
                "review-table4.csv": table4_csv(res["pairs"]),
                "review-results.json": json.dumps(res, indent=2),
            },
        )
