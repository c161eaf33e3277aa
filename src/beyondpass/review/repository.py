"""Every read and write of the review database, as named functions over one connection.

The routes and the study builder say *what* happens (a form is issued, a rating saved, a
reviewer added); the SQL lives here only, so the tables are touched in one place and each
write that must be atomic takes its transaction here (``db.transaction``).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from typing import Any, NamedTuple

from . import db
from .forms import Rejected, parse_draft, parse_post

#: the refusal for a token that names no reviewer, or a revoked one
BAD_LINK = "This link is not valid (unknown or revoked). Ask the organiser for a new one."


class Assignment(NamedTuple):
    """One item in a reviewer's list, as the item page needs it."""

    id: int
    swapped: int
    first_shown_at: float | None
    task_text: str
    code_a: str
    code_b: str
    rated: bool


def hash_token(token: str) -> str:
    """Tokens are stored hashed, so the database alone does not open anyone's list."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


# --- reviewers ---------------------------------------------------------------------------


def find_reviewer(conn: sqlite3.Connection, token: str) -> tuple[int, str] | None:
    """The (id, name) of the reviewer a token names, unless unknown or revoked."""
    row = conn.execute(
        "SELECT id, name FROM reviewers WHERE token_hash=? AND revoked_at IS NULL",
        (hash_token(token),),
    ).fetchone()
    return (row[0], row[1]) if row else None


def posting_reviewer(conn: sqlite3.Connection, token: str) -> int:
    """The id of the reviewer a post's token names; an unknown or revoked one is refused."""
    who = find_reviewer(conn, token)
    if who is None:
        raise Rejected(403, BAD_LINK)
    return who[0]


def add_reviewer(conn: sqlite3.Connection, name: str) -> tuple[int, str]:
    """Add a reviewer with a fresh token; their id and the token (shown once, never stored)."""
    token = new_token()
    rid = conn.execute(
        "INSERT INTO reviewers(name, token_hash) VALUES (?, ?)", (name, hash_token(token))
    ).lastrowid
    assert rid is not None
    return rid, token


def reviewer_id(conn: sqlite3.Connection, name: str) -> int | None:
    row = conn.execute("SELECT id FROM reviewers WHERE name=?", (name,)).fetchone()
    return int(row[0]) if row else None


def reviewer_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM reviewers ORDER BY id")]


def revoke_token(conn: sqlite3.Connection, rid: int) -> None:
    conn.execute("UPDATE reviewers SET revoked_at=? WHERE id=?", (db.now(), rid))


def reissue_token(conn: sqlite3.Connection, rid: int) -> str:
    """Give a reviewer a new token (the old one stops working); their ratings stay."""
    token = new_token()
    conn.execute(
        "UPDATE reviewers SET token_hash=?, revoked_at=NULL WHERE id=?",
        (hash_token(token), rid),
    )
    return token


# --- a reviewer's list -------------------------------------------------------------------


def progress(conn: sqlite3.Connection, rid: int) -> tuple[int, int, int | None]:
    """Items rated, items in the list, and the first position not yet rated."""
    rows = conn.execute(
        "SELECT a.position, c.assignment_id IS NOT NULL FROM assignments a "
        "LEFT JOIN choices c ON c.assignment_id=a.id WHERE a.reviewer_id=? ORDER BY a.position",
        (rid,),
    ).fetchall()
    done = sum(1 for _, d in rows if d)
    nxt = next((p for p, d in rows if not d), None)
    return done, len(rows), nxt


def find_assignment(conn: sqlite3.Connection, rid: int, position: int) -> Assignment | None:
    """The item at ``position`` in the reviewer's own list (never another reviewer's)."""
    row = conn.execute(
        "SELECT a.id, a.swapped, a.first_shown_at, i.task_text, i.code_a, i.code_b, "
        "c.assignment_id IS NOT NULL FROM assignments a JOIN items i ON i.id=a.item_id "
        "LEFT JOIN choices c ON c.assignment_id=a.id WHERE a.reviewer_id=? AND a.position=?",
        (rid, position),
    ).fetchone()
    return Assignment(*row) if row else None


def drafts(conn: sqlite3.Connection, aid: int) -> dict[str, str]:
    """The answers saved so far for an item, by page field."""
    return dict(conn.execute("SELECT field, value FROM drafts WHERE assignment_id=?", (aid,)))


# --- writes of the item page -------------------------------------------------------------


def log_activity(conn: sqlite3.Connection, aid: int, kind: str) -> float:
    """Record one action on an assignment (inside the caller's transaction)."""
    t = db.now()
    conn.execute("INSERT INTO activity VALUES (?,?,?)", (aid, kind, t))
    return t


def issue_form(conn: sqlite3.Connection, item: Assignment) -> str:
    """Show an item: a one-time nonce for its form, the view logged, the first view timed."""
    nonce = new_token()
    with db.transaction(conn):
        t = log_activity(conn, item.id, "shown")
        conn.execute("INSERT INTO forms VALUES (?,?,?,NULL)", (nonce, item.id, t))
        if item.first_shown_at is None:
            conn.execute("UPDATE assignments SET first_shown_at=? WHERE id=?", (t, item.id))
    return nonce


def open_form(conn: sqlite3.Connection, rid: int, position: int, form: dict[str, str]) -> int:
    """The assignment a post is for, if its form is valid and the item still open."""
    row = find_assignment(conn, rid, position)
    if row is None:
        raise Rejected(404, "This item is not in your list.")
    nonce = conn.execute(
        "SELECT assignment_id, used_at FROM forms WHERE nonce=?", (form.get("nonce", ""),)
    ).fetchone()
    if nonce is None or nonce[0] != row.id:
        raise Rejected(403, "This form is not valid for this item; reload the page.")
    if row.rated or nonce[1] is not None:
        raise Rejected(409, f"Item {position} is already rated; nothing was changed.")
    return row.id


def save_draft(conn: sqlite3.Connection, rid: int, position: int, form: dict[str, str]) -> None:
    """Keep one answer given on the page, in one transaction or not at all."""
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


def save_rating(conn: sqlite3.Connection, rid: int, position: int, form: dict[str, str]) -> None:
    """Store a submitted rating form, in one transaction or not at all; its nonce is spent
    and the item's drafts dropped."""
    with db.transaction(conn):
        aid = open_form(conn, rid, position, form)
        item = find_assignment(conn, rid, position)
        assert item is not None  # open_form found it in this transaction
        ratings, better, better_left, comment = parse_post(form, bool(item.swapped))
        t = log_activity(conn, aid, "submit")
        times = [
            r[0] for r in conn.execute("SELECT at FROM activity WHERE assignment_id=?", (aid,))
        ]
        conn.executemany(
            "INSERT INTO ratings VALUES (?,?,?,?)",
            [(aid, side, prop, value) for (side, prop), value in ratings.items()],
        )
        seconds = max(0.0, t - (item.first_shown_at or t))
        conn.execute(
            "INSERT INTO choices VALUES (?,?,?,?,?,?,?)",
            (aid, better, better_left, comment, seconds, t, db.active_seconds(times)),
        )
        conn.execute("UPDATE forms SET used_at=? WHERE nonce=?", (t, form["nonce"]))
        conn.execute("DELETE FROM drafts WHERE assignment_id=?", (aid,))


# --- writes of a new study ---------------------------------------------------------------


def add_item(conn: sqlite3.Connection, row: tuple[Any, ...]) -> int:
    """Insert one item: (benchmark, task, condition, sample index, key a, key b, task text,
    code a, code b, identity flags, model a, model b); its id."""
    cur = conn.execute(
        "INSERT INTO items(benchmark, task_id, condition, sample_index, key_a, key_b, "
        "task_text, code_a, code_b, flags, model_a, model_b) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (*row[:9], json.dumps(row[9]), *row[10:]),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def add_redaction(
    conn: sqlite3.Connection, item_id: int, side: str, pattern: str, count: int, sha: str
) -> None:
    """Record what was redacted from a solution (and the hash of the text before)."""
    conn.execute(
        "INSERT INTO redactions VALUES (?,?,?,?,?,?)",
        (item_id, side, pattern, count, sha, db.now()),
    )


def add_assignment(
    conn: sqlite3.Connection, rid: int, position: int, item_id: int, repeat: int, swapped: bool
) -> None:
    conn.execute(
        "INSERT INTO assignments(reviewer_id, position, item_id, repeat, swapped) "
        "VALUES (?,?,?,?,?)",
        (rid, position, item_id, repeat, int(swapped)),
    )
