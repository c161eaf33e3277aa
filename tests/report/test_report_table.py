"""The one table model: every text is escaped for its target by construction."""

from __future__ import annotations

import math
import re

import pytest

from beyondpass.analysis.formatting import percent
from beyondpass.report.render import render_html, render_markdown
from beyondpass.report.table import Cell, Table, text_rows, to_html, to_latex, to_markdown

HOSTILE = "<script>alert(1)</script> a&b %_{} x|y $#~^\\"


def _hostile_table() -> Table:
    """Hostile text in every place a caller can put text."""
    return Table(
        header=["Task", HOSTILE],
        rows=[[Cell(HOSTILE), Cell("1.0", mark=HOSTILE, css="worse")], text_rows([["t", "2"]])[0]],
        align=["l", "r"],
        key="k<\"'>",
        title=HOSTILE,
        caption=HOSTILE,
        groups=[("", 1), (HOSTILE, 1)],
        notes=[HOSTILE],
    )


def test_html_escapes_every_text() -> None:
    page = str(to_html(_hostile_table(), css='x" onload="y'))
    assert "<script>" not in page and 'onload="y' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a&amp;b %_{} x|y" in page
    # 7 places hold the hostile text: title, caption, group, header, a cell, a mark, a note
    assert page.count("&lt;script&gt;") == 7
    assert 'id="k&lt;&#34;&#39;&gt;"' in page
    # the only markup is the model's: the mark is bold, the alignment a class
    assert '<td class="num worse"><b>1.0</b> &lt;script&gt;' in page
    assert re.findall(r"<(\w+)", page.replace("&lt;", "")) == [
        "h3", "p", "div", "table", "thead", "tr", "th", "th", "tr", "th", "th", "tbody",
        "tr", "td", "td", "b", "tr", "td", "td", "p",
    ]  # fmt: skip


def test_html_in_a_template_is_escaped_once() -> None:
    t = Table(["a"], text_rows([["<i>&</i>"]]), ["l"])
    page = render_html("{{ t|html_table }}", t=t)
    assert "<td>&lt;i&gt;&amp;&lt;/i&gt;</td>" in page and "&amp;lt;" not in page


def test_latex_escapes_every_text() -> None:
    tex = to_latex(_hostile_table())
    assert "<script>" not in tex and "%_{}" not in tex
    escaped = (
        r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{} a\&b "
        r"\%\_\{\} x\textbar{}y \$\#\textasciitilde{}\textasciicircum{}\textbackslash{}"
    )
    assert tex.count(escaped) == 6  # title, caption, group, header, cell, note (no mark)
    assert r"\label{tab:k-}" in tex
    # every row still has exactly two columns: no text contributed an unescaped &
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    for line in filter(None, (ln.strip() for ln in body.splitlines())):
        assert len(re.split(r"(?<!\\)&", line)) == 2, line
    assert r"\textbf{1.0}" in tex  # the mark is bold; its symbol is not printed


def test_bare_tabular_has_no_float() -> None:
    tex = to_latex(Table(["a", "b"], text_rows([["1_2", "3"]]), ["l", "r"]), environment=None)
    assert tex.startswith(r"\begin{tabular}{lr}") and r"\caption" not in tex
    assert r"1\_2 & 3 \\" in tex


def test_markdown_escapes_every_text() -> None:
    md = to_markdown(_hostile_table())
    assert "<script>" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a&amp;b %_{} x\\|y" in md
    table_lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    for line in table_lines:  # header, alignment, two rows: two cells each
        assert len(re.split(r"(?<!\\)\|", line)) == 4, line
    assert table_lines[1] == "|:---|---:|"
    assert "| 1.0 &lt;script&gt;" in md  # the mark follows the text


def test_markdown_cells_stay_on_one_line() -> None:
    t = Table(["a"], text_rows([["one\ntwo | three"]]), ["c"])
    assert to_markdown(t) == "| a |\n|:---:|\n| one two \\| three |\n"
    assert render_markdown("{{ t|md_table }}", t=t).endswith("three |")


def test_significance_is_structure() -> None:
    t = Table(["Δ"], [[Cell("+1.50*", significant=True, p=0.01234)]], ["r"])
    assert '<td class="num sig" title="p (Holm) = 0.01234">+1.50*</td>' in to_html(t)
    assert r"+1.50\textsuperscript{*} \\" in to_latex(t)


def test_percent_variants() -> None:
    assert percent(0.5) == "50.00"
    assert percent(1 / 3, 1) == "33.3"
    assert percent(None) == percent(math.nan) == "—"
    assert percent(None, missing="-") == "-"
    assert percent(0.125, sign=True) == "+12.50"
    assert percent(-0.125, 1, sign=True) == "-12.5"
    assert percent(0.25, unit="%") == "25.00%"


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_percent_of_infinity_is_missing(value: float) -> None:
    assert percent(value) == "—"
