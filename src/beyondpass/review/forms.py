"""What a reviewer posts: the rating form and single answers, validated before any write.

Kept apart from the routes so that a refused post is decided by plain functions (testable
without a server) and the database code can refuse with the same exception.
"""

from __future__ import annotations

from . import db

MAX_COMMENT = 4000


class Rejected(Exception):
    """A post refused without changing anything (status code, one-line reason)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


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
