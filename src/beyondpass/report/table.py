"""The one table model of reports, rendered to Markdown, HTML and LaTeX.

Every table a report shows — the core's results and facts, a method's paper tables — is a
:class:`Table` of :class:`Cell` objects holding the printed text of each cell and, where it
shows a number, the numbers behind it (``as_dict`` gives JSON). One model for every format
means the paper's LaTeX, the HTML report and the JSON can never disagree.

Escaping is by construction: callers give plain text only, this module escapes every text
for its target, and emphasis is structure in the model (spanning groups, a cell's mark or
significance), never markup inside a string. Sample-derived text (task ids, model names)
is hostile and cannot break a page, a Markdown table or a paper.

LaTeX needs ``\\usepackage{booktabs}`` and ``\\usepackage{graphicx}`` (wide tables are scaled
to the text width), and ``amssymb`` where a text holds ``▲``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from beyondpass.analysis.formatting import SIG_MARK


@dataclass
class Cell:
    """One table cell: its text and, where it shows a number, the number(s) behind it.

    ``mark`` flags a cell (e.g. ``▲``: worse than the best by a margin): bold in HTML and
    LaTeX, the mark after the text in Markdown and HTML (a LaTeX caption says what bold
    means). ``css`` is an extra HTML class for the cell.
    """

    text: str
    value: float | None = None  # the main number as shown (e.g. pass@1 in %)
    sd: float | None = None
    delta_pct: float | None = None
    p: float | None = None  # Holm-adjusted p of the primary paired test
    significant: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    mark: str = ""
    css: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        for key in ("value", "sd", "delta_pct", "p"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v if math.isfinite(v) else None
        if self.significant:
            out["significant"] = True
        if self.mark:
            out["mark"] = self.mark
        if self.extra:
            out.update(self.extra)
        return out


def text_rows(rows: Iterable[Iterable[str]]) -> list[list[Cell]]:
    """Rows of plain texts as rows of cells (tables without numbers behind them)."""
    return [[Cell(text) for text in row] for row in rows]


@dataclass
class Table:
    """A table: ``groups`` are spanning headers over the columns (label, width; an empty
    label spans nothing); ``key``, ``title``, ``caption`` and ``notes`` are optional."""

    header: list[str]
    rows: list[list[Cell]]
    align: list[str]  # "l", "c" or "r" per column
    key: str = ""
    title: str = ""
    caption: str = ""
    groups: list[tuple[str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "caption": self.caption,
            "groups": [list(g) for g in self.groups],
            "header": self.header,
            "rows": [[c.as_dict() for c in row] for row in self.rows],
            "notes": self.notes,
        }

    def column(self, name: str, group: str | None = None) -> int:
        """Index of a column by header (and spanning group), for readers and tests."""
        start = 0
        spans: list[tuple[str, int, int]] = []
        for label, width in self.groups:
            spans.append((label, start, start + width))
            start += width
        for i, h in enumerate(self.header):
            if h != name:
                continue
            if group is None or any(lbl == group and a <= i < b for lbl, a, b in spans):
                return i
        raise KeyError(f"{self.key}: no column {name!r}" + (f" under {group!r}" if group else ""))


def flat_header(table: Table) -> list[str]:
    """Header names with their spanning group prefixed (``HumanEval Pass@1``), for formats
    without spanning cells."""
    if not table.groups:
        return list(table.header)
    out = []
    i = 0
    for label, width in table.groups:
        for h in table.header[i : i + width]:
            out.append(f"{label} {h}".strip())
        i += width
    out += table.header[i:]
    return out


# -- Markdown ------------------------------------------------------------------------------
def md_cell(text: str) -> str:
    """Text safe for one Markdown table cell or line: no newlines, pipes or raw HTML."""
    flat = " ".join(str(text).split())
    return (
        flat.replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


_MD_ALIGN = {"l": ":---", "c": ":---:", "r": "---:"}


def to_markdown(table: Table, *, level: int = 3) -> str:
    """A Markdown table, under a heading of ``level`` when the table has a title."""
    lines = []
    if table.title:
        lines += [f"{'#' * level} {md_cell(table.title)}", ""]
    if table.caption:
        lines += [md_cell(table.caption), ""]

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(md_cell(c) for c in cells) + " |"

    lines.append(line(flat_header(table)))
    lines.append("|" + "|".join(_MD_ALIGN.get(a, ":---") for a in table.align) + "|")
    lines += [line(f"{c.text} {c.mark}" if c.mark else c.text for c in row) for row in table.rows]
    if table.notes:
        lines.append("")
        # a note opening with the significance mark must not turn into a list item
        lines += [("\\" if n.startswith(SIG_MARK) else "") + md_cell(n) for n in table.notes]
    return "\n".join(lines) + "\n"


def tables_markdown(tables: Sequence[Table], *, level: int = 3) -> str:
    return "\n".join(to_markdown(t, level=level) for t in tables)


# -- HTML ----------------------------------------------------------------------------------
def _classes(*names: str) -> Markup:
    """A class attribute of the non-empty names, or nothing."""
    joined = " ".join(n for n in names if n)
    return Markup(' class="{}"').format(joined) if joined else Markup("")


def _html_cell(cell: Cell, align: str) -> Markup:
    attrs = _classes("num" if align == "r" else "", "sig" if cell.significant else "", cell.css)
    if cell.p is not None:
        attrs += Markup(' title="p (Holm) = {}"').format(f"{cell.p:.4g}")
    body = Markup("<b>{}</b> {}").format(cell.text, cell.mark) if cell.mark else escape(cell.text)
    return Markup("<td{}>{}</td>").format(attrs, body)


def to_html(table: Table, css: str = "", *, level: int = 3) -> Markup:
    """An HTML table (scrollable; ``css`` its class), its title as a heading of ``level``,
    caption and notes as muted paragraphs. Every text goes through ``Markup.format``, which
    escapes it."""
    out: list[Markup] = []
    if table.title:
        anchor = Markup(' id="{}"').format(table.key) if table.key else Markup("")
        out.append(Markup("<h{0}{1}>{2}</h{0}>").format(level, anchor, table.title))
    if table.caption:
        out.append(Markup('<p class="muted">{}</p>').format(table.caption))
    out.append(Markup('<div class="scroll"><table{}>').format(_classes(css)))
    out.append(Markup("<thead>"))
    if any(label for label, _ in table.groups):
        spans = [
            Markup('<th colspan="{}" class="span">{}</th>').format(int(width), label)
            for label, width in table.groups
        ]
        out.append(Markup("<tr>{}</tr>").format(Markup("").join(spans)))
    heads = [
        Markup("<th{}>{}</th>").format(_classes("num" if a == "r" else ""), h)
        for h, a in zip(table.header, _aligns(table), strict=False)
    ]
    out += [Markup("<tr>{}</tr>").format(Markup("").join(heads)), Markup("</thead>")]
    out.append(Markup("<tbody>"))
    for row in table.rows:
        cells = [_html_cell(c, a) for c, a in zip(row, _aligns(table), strict=False)]
        out.append(Markup("<tr>{}</tr>").format(Markup("").join(cells)))
    out += [Markup("</tbody>"), Markup("</table></div>")]
    out += [Markup('<p class="muted">{}</p>').format(n) for n in table.notes]
    return Markup("\n").join(out) + Markup("\n")


def _aligns(table: Table) -> Iterable[str]:
    """The alignment per column, ``l`` beyond the declared ones (rows may be wider)."""
    yield from table.align
    while True:
        yield "l"


# -- LaTeX ---------------------------------------------------------------------------------
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LATEX_UNICODE = {
    "±": r"$\pm$",
    "Δ": r"$\Delta$",
    "α": r"$\alpha$",
    "—": "--",
    "–": "--",
    "−": "-",
    "…": r"\ldots{}",
    "†": r"\dag{}",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "→": r"$\rightarrow$",
    "·": r"\textperiodcentered{}",
    "▲": r"$\blacktriangle$",
}


def latex_escape(text: str, *, marks: bool = True) -> str:
    """Escape text for LaTeX; with ``marks``, a significance mark becomes ``^*``."""
    out = []
    for ch in text:
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        elif ch == SIG_MARK and marks:
            out.append(r"\textsuperscript{*}")
        elif ord(ch) > 127:
            out.append("?")  # no silent surprises in a paper build: unknown glyphs are visible
        else:
            out.append(ch)
    return "".join(out)


def _latex_cell(cell: Cell) -> str:
    text = latex_escape(cell.text)
    return r"\textbf{" + text + "}" if cell.mark else text


def _block_rows(table: Table) -> bool:
    """Tables whose first column is filled only where a block starts get a rule per block."""
    firsts = [row[0].text for row in table.rows if row]
    return any(not f for f in firsts) and any(firsts)


def _tabular(table: Table) -> list[str]:
    out = [r"\begin{tabular}{" + "".join(table.align) + "}", r"\toprule"]
    if any(label for label, _ in table.groups):
        cells, rules, col = [], [], 1
        for label, width in table.groups:
            if label:
                cells.append(r"\multicolumn{" + f"{width}" + "}{c}{" + latex_escape(label) + "}")
                rules.append(r"\cmidrule(lr){" + f"{col}-{col + width - 1}" + "}")
            else:
                cells += [""] * width
            col += width
        out.append(" & ".join(cells) + r" \\")
        out.append(" ".join(rules))
    out.append(" & ".join(latex_escape(h) for h in table.header) + r" \\")
    out.append(r"\midrule")
    blocks = _block_rows(table)
    for i, row in enumerate(table.rows):
        if blocks and i > 0 and row and row[0].text:
            out.append(r"\midrule")
        out.append(" & ".join(_latex_cell(c) for c in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return out


def to_latex(table: Table, *, environment: str | None = "table*") -> str:
    """A booktabs table in a floating ``environment`` (captioned, labelled by key, scaled
    to the text width, notes below), or the bare tabular with ``environment=None`` for a
    paper that wraps it itself."""
    if environment is None:
        return "\n".join(_tabular(table)) + "\n"
    caption = latex_escape(table.title, marks=False)
    if table.caption:
        caption += ". " + latex_escape(table.caption, marks=False)
    out = [rf"\begin{{{environment}}}[t]", r"\centering", r"\caption{" + caption + "}"]
    if table.key:
        out.append(r"\label{tab:" + re.sub(r"[^A-Za-z0-9:-]+", "-", table.key) + "}")
    out += [r"\resizebox{\textwidth}{!}{%", *_tabular(table)]
    out[-1] += "}"  # closes the resizebox
    if table.notes:
        out.append(r"\par\smallskip{\footnotesize " + latex_escape(" ".join(table.notes)) + "}")
    out.append(rf"\end{{{environment}}}")
    return "\n".join(out) + "\n"


LATEX_PREAMBLE = (
    "% Tables generated by beyondpass. Needs: \\usepackage{booktabs} \\usepackage{graphicx}\n"
)


def tables_latex(tables: Sequence[Table]) -> str:
    return LATEX_PREAMBLE + "\n" + "\n".join(to_latex(t) for t in tables)


__all__ = [
    "LATEX_PREAMBLE",
    "Cell",
    "Table",
    "flat_header",
    "latex_escape",
    "md_cell",
    "tables_latex",
    "tables_markdown",
    "text_rows",
    "to_html",
    "to_latex",
    "to_markdown",
]
