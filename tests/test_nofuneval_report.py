"""The NoFunEdit table: min-max of per-condition DiffBLEU score@1, per model and benchmark."""

from __future__ import annotations

from beyondpass.methods.nofuneval.report import NoFunEditTable
from beyondpass.report.sections import ReportContext
from beyondpass.store.run_store import ResultRecord, Row, SampleRecord


def _row(model, bench, cond, task, index, value):
    key = f"{model}{bench}{cond}{task}{index}"
    sample = SampleRecord(key, bench, task, model, cond, index, "", "", "", {})
    return Row(sample, ResultRecord(key, "passed", True, {"diffbleu": value}))


def test_cells_are_min_max_over_conditions(tmp_path):
    rows = [
        # base: task 1 has samples 0.2 and 0.4 (mean 0.3), task 2 has 0.5 -> 0.4
        _row("m_1", "nofuneval-latency", "base_prompt", "1", 0, 0.2),
        _row("m_1", "nofuneval-latency", "base_prompt", "1", 1, 0.4),
        _row("m_1", "nofuneval-latency", "base_prompt", "2", 0, 0.5),
        # one_shot: 0.1 and 0.3 -> 0.2
        _row("m_1", "nofuneval-latency", "one_shot", "1", 0, 0.1),
        _row("m_1", "nofuneval-latency", "one_shot", "2", 0, 0.3),
    ]
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path))
    assert out is not None
    assert "| m_1 | 0.200-0.400 |" in out.markdown
    assert "m\\_1 & 0.200-0.400" in out.artifacts["nofuneval-table1.tex"]
    assert "<td>0.200-0.400</td>" in out.html


def test_no_section_without_diffbleu(tmp_path):
    key = "k"
    sample = SampleRecord(key, "humaneval", "1", "m", "c", 0, "", "", "", {})
    rows = [Row(sample, ResultRecord(key, "passed", True, {"tests_passed": 3}))]
    assert NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path)) is None


def test_model_names_are_escaped_in_html(tmp_path):
    rows = [_row("<b>x</b>", "nofuneval-security", "base_prompt", "0", 0, 1.0)]
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path))
    assert "<b>x</b>" not in out.html and "&lt;b&gt;x&lt;/b&gt;" in out.html
