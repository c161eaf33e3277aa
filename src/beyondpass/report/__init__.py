"""Reports of a run: paper-ready Markdown and a self-contained HTML page with drill-down."""

from beyondpass.report.render import ReportPaths, render_report

__all__ = ["ReportPaths", "render_report"]
