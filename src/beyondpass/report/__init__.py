"""Reports of a run: paper-ready Markdown and a self-contained HTML page with drill-down.

The renderer (and matplotlib behind its plots) is imported when first asked for, so a
command that needs only the table model (``compare``, a method's analysis) does not pay
for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from beyondpass.report.render import ReportPaths, render_report

__all__ = ["ReportPaths", "render_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from beyondpass.report import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
