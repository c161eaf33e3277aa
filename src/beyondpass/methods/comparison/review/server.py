"""The reviewer web app: FastAPI, server-rendered Jinja2 pages, the review database.

Blinding is a property of every response: pages, JSON, URLs and errors carry positions
("Solution 1/2", item numbers within a reviewer's own list) and never an item id, sample
key, model, condition, verdict or metric. A reviewer reaches only their own assignments
through their token (stored hashed; revocable). Each rating form carries a one-time nonce
bound to the assignment (CSRF and replay protection); a post is stored in one transaction
or not at all.
"""

import secrets
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError

from . import db
from .study import hash_token

TEMPLATES = Path(__file__).parent / "templates"
MAX_COMMENT = 4000
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


class Rejected(Exception):
    """A post refused without changing anything (status code, one-line reason)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _highlight(code: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer, TextLexer, guess_lexer

    try:
        lexer = guess_lexer(code)
        if lexer.name == "Text only" or "def " in code:
            lexer = PythonLexer()
    except Exception:  # pygments raises ClassNotFound on text it cannot place
        lexer = TextLexer()
    return highlight(code, lexer, HtmlFormatter(noclasses=True, nowrap=False, style="friendly"))


def parse_post(
    form: dict[str, str], swapped: bool
) -> tuple[dict[tuple[str, str], int], str, int, str]:
    """Validate a rating form: ratings by (side, property), better side, whether the left one
    was better, comment. Positions 1/2 (left/right) are mapped back to models a/b."""
    sides = {"1": "b" if swapped else "a", "2": "a" if swapped else "b"}
    ratings: dict[tuple[str, str], int] = {}
    for prop in db.PROPERTIES:
        for pos, side in sides.items():
            raw = form.get(f"{prop}_{pos}", "")
            try:
                value = int(raw.strip().lstrip("+"))
            except ValueError:
                raise Rejected(
                    422, f"every rating is needed ({db.LABELS[prop]}, solution {pos})"
                ) from None
            if value not in db.SCALE:
                raise Rejected(422, f"a rating must be one of -2, -1, +1, +2 (got {raw!r})")
            ratings[(side, prop)] = value
    better = form.get("better", "")
    if better not in sides:
        raise Rejected(422, "choose the better solution (1 or 2)")
    comment = form.get("comment", "")
    if len(comment) > MAX_COMMENT:
        raise Rejected(422, f"the comment is longer than {MAX_COMMENT} characters")
    return ratings, sides[better], int(better == "1"), comment


def parse_draft(field: str, value: str) -> str:
    """Validate one answer given on the page (a field name as the page names it)."""
    if field == "comment":
        if len(value) > MAX_COMMENT:
            raise Rejected(422, f"the comment is longer than {MAX_COMMENT} characters")
        return value
    if field == "better":
        if value not in ("1", "2"):
            raise Rejected(422, "choose the better solution (1 or 2)")
        return value
    prop, _, pos = field.rpartition("_")
    if prop not in db.PROPERTIES or pos not in ("1", "2"):
        raise Rejected(422, "unknown field")
    try:
        number = int(value.strip().lstrip("+"))
    except ValueError:
        raise Rejected(422, f"a rating must be one of -2, -1, +1, +2 (got {value!r})") from None
    if number not in db.SCALE:
        raise Rejected(422, f"a rating must be one of -2, -1, +1, +2 (got {value!r})")
    return str(number)


def create_app(run_dir: str | Path) -> Any:
    """The ASGI app serving the study in ``run_dir``."""
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
    from fastapi.templating import Jinja2Templates
    from starlette.exceptions import HTTPException as StarletteHTTPException

    run_dir = Path(run_dir)
    with db.connect(run_dir):  # fails now, with one line, when there is no study
        pass
    templates = Jinja2Templates(directory=str(TEMPLATES))
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None, title="review")

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        for key, value in HEADERS.items():
            response.headers[key] = value
        return response

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Any:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def error(request: Request, status: int, message: str) -> Any:
        return page(request, "message.html", status, title="Not available", message=message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
        return error(request, exc.status_code, "This page does not exist.")

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Any:
        return error(request, 404, "This page does not exist.")

    @app.exception_handler(Exception)
    async def any_error(request: Request, exc: Exception) -> Any:  # never a traceback
        return error(request, 500, "Something went wrong; your saved ratings are safe.")

    def reviewer(conn: Any, token: str) -> tuple[int, str] | None:
        row = conn.execute(
            "SELECT id, name FROM reviewers WHERE token_hash=? AND revoked_at IS NULL",
            (hash_token(token),),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def progress(conn: Any, rid: int) -> tuple[int, int, int | None]:
        rows = conn.execute(
            "SELECT a.position, c.assignment_id IS NOT NULL FROM assignments a "
            "LEFT JOIN choices c ON c.assignment_id=a.id WHERE a.reviewer_id=? ORDER BY a.position",
            (rid,),
        ).fetchall()
        done = sum(1 for _, d in rows if d)
        nxt = next((p for p, d in rows if not d), None)
        return done, len(rows), nxt

    bad_link = "This link is not valid (unknown or revoked). Ask the organiser for a new one."

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Any:
        return page(
            request, "message.html", title="Code review", message="Open your personal link."
        )

    @app.get("/r/{token}")
    def start(request: Request, token: str) -> Any:
        with db.connect(run_dir) as conn:
            who = reviewer(conn, token)
            if who is None:
                return error(request, 403, bad_link)
            _, _, nxt = progress(conn, who[0])
        target = f"/r/{token}/item/{nxt}" if nxt else f"/r/{token}/done"
        return RedirectResponse(target, status_code=303)

    @app.get("/r/{token}/progress.json")
    def progress_json(token: str) -> Any:
        with db.connect(run_dir) as conn:
            who = reviewer(conn, token)
            if who is None:
                return JSONResponse({"error": "invalid link"}, status_code=403)
            done, total, nxt = progress(conn, who[0])
        return JSONResponse({"done": done, "total": total, "next": nxt})

    @app.get("/r/{token}/done", response_class=HTMLResponse)
    def done(request: Request, token: str) -> Any:
        with db.connect(run_dir) as conn:
            who = reviewer(conn, token)
            if who is None:
                return error(request, 403, bad_link)
            n_done, total, nxt = progress(conn, who[0])
        return page(request, "done.html", token=token, done=n_done, total=total, next=nxt)

    def assignment(conn: Any, rid: int, position: int) -> Any:
        return conn.execute(
            "SELECT a.id, a.swapped, a.first_shown_at, i.task_text, i.code_a, i.code_b, "
            "c.assignment_id IS NOT NULL FROM assignments a JOIN items i ON i.id=a.item_id "
            "LEFT JOIN choices c ON c.assignment_id=a.id WHERE a.reviewer_id=? AND a.position=?",
            (rid, position),
        ).fetchone()

    @app.get("/r/{token}/item/{position}", response_class=HTMLResponse)
    def item(request: Request, token: str, position: int) -> Any:
        with db.connect(run_dir) as conn:
            who = reviewer(conn, token)
            if who is None:
                return error(request, 403, bad_link)
            row = assignment(conn, who[0], position)
            if row is None:
                return error(request, 404, "This item is not in your list.")
            aid, swapped, shown, task, code_a, code_b, rated = row
            n_done, total, _ = progress(conn, who[0])
            if rated:
                return page(
                    request,
                    "message.html",
                    409,
                    title="Already rated",
                    message=f"You have rated item {position}.",
                    token=token,
                )
            nonce = secrets.token_urlsafe(24)
            with db.transaction(conn):
                t = log_activity(conn, aid, "shown")
                conn.execute("INSERT INTO forms VALUES (?,?,?,NULL)", (nonce, aid, t))
                if shown is None:
                    conn.execute("UPDATE assignments SET first_shown_at=? WHERE id=?", (t, aid))
            draft = dict(
                conn.execute("SELECT field, value FROM drafts WHERE assignment_id=?", (aid,))
            )
        left, right = (code_b, code_a) if swapped else (code_a, code_b)
        return page(
            request,
            "item.html",
            token=token,
            position=position,
            total=total,
            done=n_done,
            task=task,
            left=_highlight(left),
            right=_highlight(right),
            nonce=nonce,
            properties=[(p, db.LABELS[p]) for p in db.PROPERTIES],
            scale=db.SCALE,
            draft=draft,
        )

    @app.post("/r/{token}/item/{position}")
    async def rate(request: Request, token: str, position: int) -> Any:
        form = await form_fields(request)
        try:
            with db.connect(run_dir) as conn:
                save(conn, posting_reviewer(conn, token), position, form)
        except Rejected as exc:
            return page(
                request,
                "message.html",
                exc.status,
                title="Not saved",
                message=exc.reason,
                token=token,
            )
        return RedirectResponse(f"/r/{token}", status_code=303)

    @app.post("/r/{token}/item/{position}/draft")
    async def draft(request: Request, token: str, position: int) -> Any:
        form = await form_fields(request)
        try:
            with db.connect(run_dir) as conn:
                rid = posting_reviewer(conn, token)
                with db.transaction(conn):
                    aid = open_form(conn, rid, position, form)
                    field = form.get("field", "")
                    value = parse_draft(field, form.get("value", ""))
                    conn.execute(
                        "INSERT INTO drafts VALUES (?,?,?,?) ON CONFLICT(assignment_id, field) "
                        "DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at",
                        (aid, field, value, db.now()),
                    )
                    log_activity(conn, aid, "draft")
        except Rejected as exc:
            return JSONResponse({"saved": False, "reason": exc.reason}, status_code=exc.status)
        return JSONResponse({"saved": True})

    def log_activity(conn: Any, aid: int, kind: str) -> float:
        """Record one action on an assignment (inside the caller's transaction)."""
        t = db.now()
        conn.execute("INSERT INTO activity VALUES (?,?,?)", (aid, kind, t))
        return t

    async def form_fields(request: Request) -> dict[str, str]:
        return {k: v for k, v in (await request.form()).items() if isinstance(v, str)}

    def posting_reviewer(conn: Any, token: str) -> int:
        """The id of the reviewer a post's token names; an unknown or revoked one is refused."""
        who = reviewer(conn, token)
        if who is None:
            raise Rejected(403, bad_link)
        return who[0]

    def open_form(conn: Any, rid: int, position: int, form: dict[str, str]) -> int:
        """The assignment a post is for, if its form is valid and the item still open."""
        row = assignment(conn, rid, position)
        if row is None:
            raise Rejected(404, "This item is not in your list.")
        aid, *_, rated = row
        nonce = conn.execute(
            "SELECT assignment_id, used_at FROM forms WHERE nonce=?", (form.get("nonce", ""),)
        ).fetchone()
        if nonce is None or nonce[0] != aid:
            raise Rejected(403, "This form is not valid for this item; reload the page.")
        if rated or nonce[1] is not None:
            raise Rejected(409, f"Item {position} is already rated; nothing was changed.")
        return aid

    def save(conn: Any, rid: int, position: int, form: dict[str, str]) -> None:
        with db.transaction(conn):
            aid = open_form(conn, rid, position, form)
            _, swapped, shown, *_ = assignment(conn, rid, position)
            ratings, better, better_left, comment = parse_post(form, bool(swapped))
            t = log_activity(conn, aid, "submit")
            times = [
                r[0] for r in conn.execute("SELECT at FROM activity WHERE assignment_id=?", (aid,))
            ]
            conn.executemany(
                "INSERT INTO ratings VALUES (?,?,?,?)",
                [(aid, side, prop, value) for (side, prop), value in ratings.items()],
            )
            conn.execute(
                "INSERT INTO choices VALUES (?,?,?,?,?,?,?)",
                (
                    aid,
                    better,
                    better_left,
                    comment,
                    max(0.0, t - (shown or t)),
                    t,
                    db.active_seconds(times),
                ),
            )
            conn.execute("UPDATE forms SET used_at=? WHERE nonce=?", (t, form["nonce"]))
            conn.execute("DELETE FROM drafts WHERE assignment_id=?", (aid,))

    return app


def serve(run_dir: str | Path, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    app = create_app(run_dir)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)


__all__ = ["DataError", "Rejected", "create_app", "parse_post", "serve"]
