"""Rendering for the reviewer app: templates, error pages, highlighted code.

The routes find the study and the templates on ``request.app.state`` (set by
``server.create_app``), so they are plain module functions rather than closures over one app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates

TEMPLATES = Path(__file__).parent / "templates"


def templates() -> Jinja2Templates:
    return Jinja2Templates(directory=str(TEMPLATES))


def run_dir(request: Request) -> Path:
    """The run directory whose study this app serves."""
    return Path(request.app.state.run_dir)


def page(request: Request, name: str, status: int = 200, **context: Any) -> Any:
    """A template rendered with ``context`` (autoescaped: every text shown is hostile)."""
    return request.app.state.templates.TemplateResponse(request, name, context, status_code=status)


def error(request: Request, status: int, message: str) -> Any:
    """The one page every refusal and failure shows: a message, never details."""
    return page(request, "message.html", status, title="Not available", message=message)


def highlight(code: str) -> str:
    """A solution as HTML with inline styles (the page loads no stylesheet)."""
    from pygments import highlight as render
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer, TextLexer, guess_lexer

    try:
        lexer = guess_lexer(code)
        if lexer.name == "Text only" or "def " in code:
            lexer = PythonLexer()
    except Exception:  # pygments raises ClassNotFound on text it cannot place
        lexer = TextLexer()
    return render(code, lexer, HtmlFormatter(noclasses=True, nowrap=False, style="friendly"))
