"""A reviewer's whole study in a real browser: Playwright drives Debian's chromium against
the app served by uvicorn on 127.0.0.1 (the review's own database, a two-model run).
Mouse on some items, keyboard shortcuts on others, a reload mid-way, a second reviewer at
the same time; then the results and the report show the aggregates of what was entered."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import threading
from pathlib import Path

import pytest

from beyondpass.review.db import PROPERTIES
from beyondpass.review.results import results
from review_helpers import PAIR, demo_run, study

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
DOCS = Path(__file__).resolve().parents[2] / "docs"
#: the docs' screenshot is refreshed only on request; otherwise it goes to the test's tmp dir
UPDATE_SCREENSHOT = os.environ.get("BEYONDPASS_UPDATE_SCREENSHOTS") == "1"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() or shutil.which("chromium") is None,
    reason="Debian's chromium is not installed (.ci/run installs it)",
)


class Server:
    """The app under uvicorn in a thread, on a free local port."""

    def __init__(self, run: Path) -> None:
        import uvicorn

        from beyondpass.review.server import create_app

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = uvicorn.Config(
            create_app(run), host="127.0.0.1", port=self.port, log_level="error"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        while not self.server.started:  # waits for readiness, not for a duration
            self.thread.join(0.05)
            assert self.thread.is_alive(), "server did not start"
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join()


def position_of(page) -> int:
    return int(page.url.rsplit("/", 1)[1])


def ratings_for(reviewer: str, position: int) -> tuple[dict[str, int], str]:
    """The ratings this test enters, by page position: a fixed pattern per reviewer/item."""
    values = [-2, -1, 1, 2]
    shift = int(reviewer[-1]) + position
    return (
        {f"{p}_{pos}": values[(i + shift + int(pos)) % 4] for i, p in enumerate(PROPERTIES)
         for pos in "12"},
        "1" if (shift % 2) else "2",
    )  # fmt: skip


def by_mouse(page, reviewer: str) -> None:
    values, better = ratings_for(reviewer, position_of(page))
    for name, value in values.items():
        page.check(f'input[name="{name}"][value="{value}"]')
    page.check(f'input[name="better"][value="{better}"]')
    page.fill('textarea[name="comment"]', "clear enough")
    with page.expect_navigation():
        page.click("#save")


def by_keyboard(page, reviewer: str) -> None:
    values, better = ratings_for(reviewer, position_of(page))
    keys = {-2: "1", -1: "2", 1: "3", 2: "4"}
    for prop in PROPERTIES:  # the fields are in page order: property by property, 1 then 2
        for pos in "12":
            page.keyboard.press(keys[values[f"{prop}_{pos}"]])
    page.keyboard.press(better)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_two_reviewers_complete_a_study_in_chromium(tmp_path):
    from playwright.sync_api import sync_playwright

    template = demo_run(tmp_path / "demo")
    run, links, _ = study(
        template, tmp_path / "run", "--reviewers", "2", "--overlap", "2",
        "--tasks", "demo/add", "--tasks", "demo/fizzbuzz", "--seed", "3",
    )  # fmt: skip
    total = 4  # two tasks, two conditions
    with Server(run) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        one = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        two = browser.new_context().new_page()
        one.goto(base + links["reviewer-1"])
        two.goto(base + links["reviewer-2"])
        assert one.locator("#progress").inner_text().startswith(f"Item 1 of {total}")
        shot = (DOCS if UPDATE_SCREENSHOT else tmp_path) / "review-rating.png"
        one.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes().startswith(b"\x89PNG")
        by_mouse(one, "reviewer-1")
        by_keyboard(two, "reviewer-2")  # the two interleave on the same server
        by_keyboard(one, "reviewer-1")
        # reload mid-way: half a form entered, then the page is reloaded; the reviewer is
        # back on the same item (nothing of it was saved) and continues
        where = position_of(one)
        with one.expect_response(lambda r: r.url.endswith("/draft") and r.ok):
            one.check(f'input[name="{PROPERTIES[0]}_1"][value="2"]')  # saved as given
        with one.expect_response(lambda r: r.url.endswith("/draft") and r.ok):
            one.keyboard.press("1")  # a click moves on to the next field: keyed, saved too
        one.reload()
        assert position_of(one) == where == 3
        assert "2 rated" in one.locator("#progress").inner_text()
        one.goto(base + links["reviewer-1"])  # the personal link resumes at the same item
        assert position_of(one) == 3
        assert one.is_checked(f'input[name="{PROPERTIES[0]}_1"][value="2"]')
        assert one.is_checked(f'input[name="{PROPERTIES[0]}_2"][value="-2"]')
        by_mouse(two, "reviewer-2")
        by_mouse(one, "reviewer-1")
        by_keyboard(two, "reviewer-2")
        by_keyboard(one, "reviewer-1")
        by_mouse(two, "reviewer-2")
        assert "All 4 items are rated" in one.locator("#message").inner_text()
        assert "All 4 items are rated" in two.locator("#message").inner_text()
        browser.close()

    # what the test entered, mapped to models through the recorded left/right order
    with sqlite3.connect(run / "review.sqlite3") as conn:
        design = conn.execute(
            "SELECT r.name, a.position, a.item_id, a.swapped FROM assignments a "
            "JOIN reviewers r ON r.id=a.reviewer_id"
        ).fetchall()
        comments = [c for (c,) in conn.execute("SELECT comment FROM choices")]
    expected = {(m, p): [] for m in PAIR for p in PROPERTIES}
    preferred = dict.fromkeys(PAIR, 0)
    for name, position, _, swapped in design:
        values, better = ratings_for(name, position)
        side = {"1": PAIR[1] if swapped else PAIR[0], "2": PAIR[0] if swapped else PAIR[1]}
        for key, value in values.items():
            prop, pos = key.rsplit("_", 1)
            expected[(side[pos], prop)].append(value)
        preferred[side[better]] += 1
    res = results(run)
    block = res["pairs"][0]
    for (model, prop), values in expected.items():
        got = block["per_model"][model]["properties"][prop]
        assert (got["sum"], got["n"]) == (sum(values), len(values)) == (got["sum"], 2 * total)
    assert {m: block["per_model"][m]["preferred"] for m in PAIR} == preferred
    assert comments.count("clear enough") == 4
    # the report shows the same table
    from beyondpass.report.render import render_report

    render_report(run, plots=False)
    md = (run / "report.md").read_text()
    assert "Blind human review" in md
    total_fi = sum(expected[(PAIR[0], "first_impression")])
    per_task_sum = block["table4"]["all"]["first_impression_a"]["sum"]
    assert per_task_sum == total_fi
    assert f"| {PAIR[0]} | First impression | {total_fi} |" in md
    assert (run / "review-table4.csv").exists()
    assert r"\toprule" in (run / "review-table4.tex").read_text()
    assert "Blind human review" in (run / "report.html").read_text()
