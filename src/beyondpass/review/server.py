"""The reviewer web app: FastAPI, server-rendered Jinja2 pages, the review database.

Blinding is a property of every response: pages, JSON, URLs and errors carry positions
("Solution 1/2", item numbers within a reviewer's own list) and never an item id, sample
key, model, condition, verdict or metric. A reviewer reaches only their own assignments
through their token (stored hashed; revocable). Each rating form carries a one-time nonce
bound to the assignment (CSRF and replay protection); a post is stored in one transaction
or not at all.

This module assembles the app: security headers, error pages, and the routes of
``list_routes`` (a reviewer's list) and ``item_routes`` (one item); the database reads and
writes are ``repository``'s, the form checks ``forms``'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from beyondpass.errors import DataError

from . import db
from .forms import MAX_COMMENT, Rejected, parse_draft, parse_post
from .repository import hash_token

HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "form-action 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
}


def create_app(run_dir: str | Path) -> Any:
    """The ASGI app serving the study in ``run_dir``."""
    from fastapi import FastAPI

    from . import item_routes, list_routes, pages

    run_dir = Path(run_dir)
    with db.connect(run_dir):  # fails now, with one line, when there is no study
        pass
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None, title="review")
    app.state.run_dir = run_dir
    app.state.templates = pages.templates()
    _add_headers(app)
    _add_error_pages(app)
    app.include_router(list_routes.router)
    app.include_router(item_routes.router)
    return app


def _add_headers(app: Any) -> None:
    """Every response, pages and errors alike, carries the security headers."""
    from fastapi import Request

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        for key, value in HEADERS.items():
            response.headers[key] = value
        return response


def _add_error_pages(app: Any) -> None:
    """Errors are pages of one line: no FastAPI error JSON, never a traceback."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from .pages import error

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
        return error(request, exc.status_code, "This page does not exist.")

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Any:
        return error(request, 404, "This page does not exist.")

    @app.exception_handler(Exception)
    async def any_error(request: Request, exc: Exception) -> Any:
        return error(request, 500, "Something went wrong; your saved ratings are safe.")


def serve(run_dir: str | Path, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    app = create_app(run_dir)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)


__all__ = [
    "MAX_COMMENT",
    "DataError",
    "Rejected",
    "create_app",
    "hash_token",
    "parse_draft",
    "parse_post",
    "serve",
]
