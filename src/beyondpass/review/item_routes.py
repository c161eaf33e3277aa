"""Routes of one item: its page, the rating post, and answers saved as they are given.

The page shows the task and the two solutions by position (left/right, drawn per reviewer
and item); what the database knows about them (keys, models, verdicts) never leaves it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from . import db, repository
from .forms import Rejected
from .pages import error, highlight, page, run_dir

router = APIRouter()


async def form_fields(request: Request) -> dict[str, str]:
    """The posted form's text fields (an uploaded file is ignored, never stored)."""
    return {k: v for k, v in (await request.form()).items() if isinstance(v, str)}


@router.get("/r/{token}/item/{position}", response_class=HTMLResponse)
def item(request: Request, token: str, position: int) -> Any:
    """The item page, with a fresh one-time form; a rated item is not shown again."""
    with db.connect(run_dir(request)) as conn:
        who = repository.find_reviewer(conn, token)
        if who is None:
            return error(request, 403, repository.BAD_LINK)
        row = repository.find_assignment(conn, who[0], position)
        if row is None:
            return error(request, 404, "This item is not in your list.")
        n_done, total, _ = repository.progress(conn, who[0])
        if row.rated:
            message = f"You have rated item {position}."
            return page(
                request, "message.html", 409, title="Already rated", message=message, token=token
            )
        nonce = repository.issue_form(conn, row)
        saved = repository.drafts(conn, row.id)
    left, right = (row.code_b, row.code_a) if row.swapped else (row.code_a, row.code_b)
    return page(
        request,
        "item.html",
        token=token,
        position=position,
        total=total,
        done=n_done,
        task=row.task_text,
        left=highlight(left),
        right=highlight(right),
        nonce=nonce,
        properties=[(p, db.LABELS[p]) for p in db.PROPERTIES],
        scale=db.SCALE,
        draft=saved,
    )


@router.post("/r/{token}/item/{position}")
async def rate(request: Request, token: str, position: int) -> Any:
    """Store a rating, then on to the next item (post, redirect, get)."""
    form = await form_fields(request)
    try:
        with db.connect(run_dir(request)) as conn:
            rid = repository.posting_reviewer(conn, token)
            repository.save_rating(conn, rid, position, form)
    except Rejected as exc:
        return page(
            request, "message.html", exc.status, title="Not saved", message=exc.reason, token=token
        )
    return RedirectResponse(f"/r/{token}", status_code=303)


@router.post("/r/{token}/item/{position}/draft")
async def draft(request: Request, token: str, position: int) -> Any:
    """Keep one answer as it is given, so a closed tab loses nothing."""
    form = await form_fields(request)
    try:
        with db.connect(run_dir(request)) as conn:
            rid = repository.posting_reviewer(conn, token)
            repository.save_draft(conn, rid, position, form)
    except Rejected as exc:
        return JSONResponse({"saved": False, "reason": exc.reason}, status_code=exc.status)
    return JSONResponse({"saved": True})
