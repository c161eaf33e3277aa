"""The review's report section: the seed's Table 4 layout, agreement and tests."""

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


def _table4_rows(res: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    t = res["table4"]
    a, b = t["pair"]
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


def markdown(res: dict[str, Any]) -> str:
    a, b = res["pair"]
    header, body = _table4_rows(res)
    lines = [
        f"Blind side-by-side review of **{a}** vs **{b}**: {res['ratings']} rated items. Summed "
        "scores per task (first ratings); the last column is times "
        f"{b} was preferred minus times {a} was (negative favours {a}). † : not both models "
        f"reached {res['table4']['min_pass_rate']:.0%} pass rate.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *["| " + " | ".join(row) + " |" for row in body],
        "",
        "| Model | Property | sum | mean | stdev | n |",
        "|---|---|---|---|---|---|",
    ]
    for model, info in res["per_model"].items():
        for prop, d in info["properties"].items():
            lines.append(
                f"| {model} | {db.LABELS[prop]} | {_fmt(d['sum'])} | {_fmt(d['mean'])} | "
                f"{_fmt(d['stdev'])} | {d['n']} |"
            )
    prefs = ", ".join(f"{m}: {i['preferred']}" for m, i in res["per_model"].items())
    ag, pb = res["agreement"], res["position_bias"]
    ci = ag["ci"]
    lines += [
        "",
        f"- Preferred: {prefs}.",
        f"- Krippendorff's alpha (ordinal): {_fmt(ag['alpha'], 3)}"
        + (f" (95% bootstrap CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else "")
        + f" over {ag['units']} units rated at least twice.",
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
    for prop, t in res["paired_tests"].items():
        lines.append(
            f"- {db.LABELS[prop]}: mean {a} − {b} = {_fmt(t['mean_diff'])}, Wilcoxon "
            f"p={_fmt(t['p_value'], 3)} (n={t['n']})"
        )
    return "\n".join(lines) + "\n"


def to_html(res: dict[str, Any]) -> str:
    header, body = _table4_rows(res)
    e = html.escape
    rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in body)
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    rest = markdown(res).split("\n\n", 3)[-1]
    items = "".join(
        f"<li>{e(line[2:])}</li>" for line in rest.splitlines() if line.startswith("- ")
    )
    return f'<table class="review-table4"><tr>{head}</tr>{rows}</table><ul>{items}</ul>'


def latex(res: dict[str, Any]) -> str:
    """Table 4 as a LaTeX tabular (booktabs), labels escaped."""

    def esc(text: str) -> str:
        return re.sub(r"[\\&%_#${}†]", lambda m: LATEX[m.group()], text)

    header, body = _table4_rows(res)
    lines = [
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
                "review-table4.csv": table4_csv(res["table4"]),
                "review-results.json": json.dumps(res, indent=2),
            },
        )
