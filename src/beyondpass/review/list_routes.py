"""Routes of a reviewer's list: the landing page, the personal link, progress, the end page.

Responses speak of positions in the reviewer's own list only (blinding).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from . import db, repository
from .pages import error, page, run_dir

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Any:
    return page(request, "message.html", title="Code review", message="Open your personal link.")


@router.get("/r/{token}")
def start(request: Request, token: str) -> Any:
    """The personal link: on to the first item not yet rated, or to the end page."""
    with db.connect(run_dir(request)) as conn:
        who = repository.find_reviewer(conn, token)
        if who is None:
            return error(request, 403, repository.BAD_LINK)
        _, _, nxt = repository.progress(conn, who[0])
    target = f"/r/{token}/item/{nxt}" if nxt else f"/r/{token}/done"
    return RedirectResponse(target, status_code=303)


@router.get("/r/{token}/progress.json")
def progress_json(request: Request, token: str) -> Any:
    with db.connect(run_dir(request)) as conn:
        who = repository.find_reviewer(conn, token)
        if who is None:
            return JSONResponse({"error": "invalid link"}, status_code=403)
        done, total, nxt = repository.progress(conn, who[0])
    return JSONResponse({"done": done, "total": total, "next": nxt})


@router.get("/r/{token}/done", response_class=HTMLResponse)
def done(request: Request, token: str) -> Any:
    with db.connect(run_dir(request)) as conn:
        who = repository.find_reviewer(conn, token)
        if who is None:
            return error(request, 403, repository.BAD_LINK)
        n_done, total, nxt = repository.progress(conn, who[0])
    return page(request, "done.html", token=token, done=n_done, total=total, next=nxt)
