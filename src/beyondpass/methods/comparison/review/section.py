"""The review's report section: the seed's Table 4 layout per pair, the Bradley-Terry
ranking when more than two models are reviewed, agreement and tests."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from beyondpass.report.sections import ReportContext, SectionOutput

from . import db

LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#",
         "$": r"\$", "{": r"\{", "}": r"\}", "†": r"$^\dagger$"}  # fmt: skip
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


def _table4_rows(block: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
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
    return header, body


def _pair_markdown(block: dict[str, Any]) -> list[str]:
    a, b = block["pair"]
    header, body = _table4_rows(block)
    lines = [
        f"Blind side-by-side review of **{a}** vs **{b}**: {block['ratings']} rated items. "
        "Summed scores per task (first ratings); the last column is times "
        f"{b} was preferred minus times {a} was (negative favours {a}). † : not both models "
        f"reached {block['table4']['min_pass_rate']:.0%} pass rate.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *["| " + " | ".join(row) + " |" for row in body],
        "",
        "| Model | Property | sum | mean | stdev | n |",
        "|---|---|---|---|---|---|",
    ]
    for model, info in block["per_model"].items():
        for prop, d in info["properties"].items():
            lines.append(
                f"| {model} | {db.LABELS[prop]} | {_fmt(d['sum'])} | {_fmt(d['mean'])} | "
                f"{_fmt(d['stdev'])} | {d['n']} |"
            )
    prefs = ", ".join(f"{m}: {i['preferred']}" for m, i in block["per_model"].items())
    lines += ["", f"- Preferred: {prefs}."]
    for prop, t in block["paired_tests"].items():
        lines.append(
            f"- {db.LABELS[prop]}: mean {a} − {b} = {_fmt(t['mean_diff'])}, Wilcoxon "
            f"p={_fmt(t['p_value'], 3)} (n={t['n']})"
        )
    return lines


def _ranking_markdown(ranking: dict[str, Any]) -> list[str]:
    if not ranking["estimable"]:
        return [f"Bradley-Terry ranking: not estimable — {ranking['reason']}."]
    lines = [
        f"Bradley-Terry ranking from {ranking['comparisons']} first choices (strength: "
        "geometric mean 1; 95% CI: item bootstrap, "
        f"{ranking['resamples_used']} of {ranking['resamples']} resamples estimable):",
        "",
        "| Rank | Model | Strength | 95% CI | Wins | Comparisons |",
        "|---|---|---|---|---|---|",
    ]
    for m in ranking["models"]:
        ci = f"{m['ci'][0]:.2f}–{m['ci'][1]:.2f}" if m["ci"] else "–"
        lines.append(
            f"| {m['rank']} | {m['model']} | {m['strength']:.2f} | {ci} | {m['wins']} | "
            f"{m['comparisons']} |"
        )
    return lines


def _study_bullets(res: dict[str, Any]) -> list[str]:
    ag, pb, tm = res["agreement"], res["position_bias"], res["time_per_item"]
    ci = ag["ci"]
    lines = [
        f"- Krippendorff's alpha (ordinal): {_fmt(ag['alpha'], 3)}"
        + (f" (95% bootstrap CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else "")
        + f" over {ag['units']} units rated at least twice."
    ]
    for pair, k in ag["kappa"].items():
        lines.append(f"- Cohen's kappa {pair}: {_fmt(k['kappa'], 3)} (n={k['n']})")
    for name, c in res["consistency"].items():
        lines.append(
            f"- Consistency of {name} on repeated items: {c['identical']:.0%} identical, "
            f"mean |difference| {_fmt(c['mean_abs_diff'])}"
        )
    lines.append(
        f"- Position bias: left called better in {_fmt(pb['left_share'])} of {pb['n']} "
        f"choices (binomial p={_fmt(pb['p_value'], 3)})."
    )
    lines.append(
        f"- Time per item: active {_fmt(tm['active']['mean'], 1)} s on average "
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
    lines += _study_bullets(res)
    return "\n".join(lines) + "\n"


def _html_table(header: list[str], body: list[list[str]], css: str) -> str:
    e = html.escape
    rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in body)
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    return f'<table class="{css}"><tr>{head}</tr>{rows}</table>'


def _html_bullets(lines: list[str]) -> str:
    e = html.escape
    return "<ul>" + "".join(f"<li>{e(x[2:])}</li>" for x in lines if x.startswith("- ")) + "</ul>"


def to_html(res: dict[str, Any]) -> str:
    parts = []
    for block in res["pairs"]:
        a, b = block["pair"]
        parts.append(f"<h4>{html.escape(a)} vs {html.escape(b)}</h4>")
        parts.append(_html_table(*_table4_rows(block), "review-table4"))
        parts.append(_html_bullets(_pair_markdown(block)))
    ranking = res.get("ranking")
    if ranking and ranking["estimable"]:
        body = [
            [str(m["rank"]), m["model"], f"{m['strength']:.2f}"]
            + [f"{m['ci'][0]:.2f}–{m['ci'][1]:.2f}" if m["ci"] else "–"]
            + [str(m["wins"]), str(m["comparisons"])]
            for m in ranking["models"]
        ]
        header = ["Rank", "Model", "Strength", "95% CI", "Wins", "Comparisons"]
        parts.append("<h4>Bradley-Terry ranking</h4>" + _html_table(header, body, "review-bt"))
    elif ranking:
        parts.append(f"<p>{html.escape(_ranking_markdown(ranking)[0])}</p>")
    parts.append(_html_bullets(_study_bullets(res)))
    return "".join(parts)


def latex(res: dict[str, Any]) -> str:
    """Table 4 of each pair as a LaTeX tabular (booktabs), labels escaped."""

    def esc(text: str) -> str:
        return re.sub(r"[\\&%_#${}†]", lambda m: LATEX[m.group()], text)

    lines: list[str] = []
    for block in res["pairs"]:
        header, body = _table4_rows(block)
        lines += [
            r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
            r"\toprule",
            " & ".join(esc(h) for h in header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(esc(c) for c in row) + r" \\" for row in body]
        lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


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
