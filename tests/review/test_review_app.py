"""The review study and web app over real HTTP semantics (FastAPI's TestClient, the real
review.sqlite3): assignments, security, bad input, blinding, concurrency, results."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from beyondpass.review.cli import review as REVIEW_COMMAND
from beyondpass.review.results import results
from beyondpass.review.server import create_app
from beyondpass.review.study import (
    _deal,
    _reviewer_order,
    _swapped,
    find_identity,
    identity_patterns,
)
from beyondpass.store.run_store import RunStore
from review_helpers import PAIR, STUDY_DATA, beyondpass, demo_run, form, nonce_of, study


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_run(tmp_path_factory.mktemp("review-run"))


def rows(run: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(run / "review.sqlite3") as conn:
        return conn.execute(sql).fetchall()


def test_create_assigns_each_item_to_overlap_reviewers_with_recorded_sides(template, tmp_path):
    run, links, out = study(
        template,
        tmp_path / "r",
        "--reviewers",
        "3",
        "--overlap",
        "2",
        "--repeat",
        "2",
        "--seed",
        "7",
    )
    assert len(links) == 3 and len(set(links.values())) == 3
    assert all(len(p.split("/")[-1]) >= 32 for p in links.values())  # 24 random bytes
    items = rows(run, "SELECT id FROM items")
    with RunStore(run, create=False) as store:  # both models answered every demo task
        expected = {(s.benchmark, s.task_id, s.condition) for s in (r.sample for r in store.rows())}
    assert len(items) == len(expected) == 16
    firsts = Counter(r[0] for r in rows(run, "SELECT item_id FROM assignments WHERE repeat=0"))
    assert set(firsts.values()) == {2} and len(firsts) == 16
    repeats = rows(run, "SELECT reviewer_id, item_id FROM assignments WHERE repeat=1")
    assert Counter(r[0] for r in repeats) == {1: 2, 2: 2, 3: 2}
    first_pairs = set(rows(run, "SELECT reviewer_id, item_id FROM assignments WHERE repeat=0"))
    assert set(repeats) <= first_pairs  # a repeat is an item the reviewer saw before
    sides = rows(run, "SELECT swapped FROM assignments")
    assert {s for (s,) in sides} == {0, 1}  # both orders occur, and are recorded
    # same seed, same design; tokens differ
    run2, links2, _ = study(
        template,
        tmp_path / "r2",
        "--reviewers",
        "3",
        "--overlap",
        "2",
        "--repeat",
        "2",
        "--seed",
        "7",
    )
    q = "SELECT reviewer_id, position, item_id, repeat, swapped FROM assignments ORDER BY id"
    assert rows(run, q) == rows(run2, q)
    assert set(links.values()).isdisjoint(links2.values())
    assert "sha256" not in rows(run, "SELECT token_hash FROM reviewers")[0][0]  # stored hashed
    assert all(
        p.split("/")[-1] not in str(rows(run, "SELECT * FROM reviewers")) for p in links.values()
    )


def test_study_order_is_fixed_by_the_seed():
    """The dealing, each reviewer's order and the sides are drawn from the study seed only:
    these values are pinned so that a study made again from the same run and seed (or by a
    later version) gives every reviewer the same list."""
    assert _deal(5, 3, 2, seed=0) == [[0, 1, 2], [0, 3, 2, 4], [3, 1, 4]]
    assert _reviewer_order([0, 1, 2, 3], 2, 0, "reviewer-1") == [
        (2, 0),
        (1, 0),
        (3, 0),
        (0, 0),
        (1, 1),
        (3, 1),
    ]
    sides = [_swapped(0, "reviewer-1", item, rep) for item in (1, 2, 3) for rep in (0, 1)]
    assert sides == [False, True, False, False, True, True]


@pytest.mark.parametrize("reviewers, overlap", [(1, 1), (2, 2), (5, 2)])
def test_without_overlap_each_item_gets_two_reviewers_or_every_one_there_is(
    template, tmp_path, reviewers, overlap
):
    run, links, _ = study(template, tmp_path / "r", "--reviewers", str(reviewers))
    assert len(links) == reviewers
    per_item = Counter(r[0] for r in rows(run, "SELECT item_id FROM assignments WHERE repeat=0"))
    assert len(per_item) == 16 and set(per_item.values()) == {overlap}
    (recorded,) = rows(run, "SELECT value FROM meta WHERE key = 'study'")
    assert json.loads(recorded[0])["overlap"] == overlap


def test_create_rejects_bad_input_with_one_line(template, tmp_path):
    cases = [
        (
            ["--pair", "demo-careful", "gpt-9"],
            "run has no model 'gpt-9' (models: demo-careful, demo-sloppy)",
        ),
        (
            ["--pair", *PAIR, "--overlap", "5"],
            "--overlap must be between 1 and the number of reviewers (3)",
        ),
        (
            ["--pair", *PAIR, "--tasks", "demo/nope"],
            "unknown task(s) for the reviewed models: demo/nope",
        ),
    ]
    for args, message in cases:
        proc = beyondpass("review", "create", str(template), *args)
        assert proc.returncode == 2 and proc.stderr == f"error: {message}\n", proc.stderr
    assert not (template / "review.sqlite3").exists()
    run, _, _ = study(template, tmp_path / "r")
    again = beyondpass("review", "create", str(run), "--pair", *PAIR)
    assert again.returncode == 2 and "already has a review study" in again.stderr
    missing = beyondpass("review", "serve", str(template))
    assert missing.returncode == 2 and "has no review study" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_self_identifying_text_is_flagged():
    meta = {
        "models": {
            "gpt-4o": {"identity": {"provider": "openai", "model": "gpt-4o-2024"}},
            "local": {"identity": {"provider": "replay", "model": "/x/local.jsonl"}},
        }
    }
    patterns = identity_patterns(meta, ("gpt-4o", "local"))
    assert find_identity("# As ChatGPT, I wrote this", patterns)
    assert find_identity("# generated by gpt-4o-2024", patterns)
    assert find_identity("# I am a large Language Model", patterns)
    assert find_identity("# written by local", patterns)  # the run's own label gives it away
    assert not find_identity("def add(a, b):\n    return a + b  # locally summed", patterns)
    assert all("jsonl" not in p for p in patterns)  # a replay's file path is no model name
    assert not find_identity("def add(a, b):\n    return a + b", patterns)


def client(run: Path) -> TestClient:
    return TestClient(create_app(run))


def open_item(c: TestClient, link: str) -> tuple[str, str]:
    page = c.get(link)
    assert page.status_code == 200
    return str(page.url).replace("http://testserver", ""), page.text


def count(run: Path) -> tuple[int, int]:
    return rows(run, "SELECT COUNT(*) FROM ratings")[0][0], rows(
        run, "SELECT COUNT(*) FROM choices"
    )[0][0]


def test_bad_posts_are_rejected_and_change_nothing(template, tmp_path):
    run, links, _ = study(template, tmp_path / "r", "--reviewers", "2", "--overlap", "1")
    c = client(run)
    url, html = open_item(c, links["reviewer-1"])
    nonce = nonce_of(html)
    bad = [
        (form({"readability_1": 0}, nonce=nonce), 422, "must be one of -2, -1, +1, +2"),
        (form({"usability_2": 3}, nonce=nonce), 422, "must be one of"),
        (form({"acceptance_1": "x"}, nonce=nonce), 422, "every rating is needed"),
        (form(better="3", nonce=nonce), 422, "choose the better solution"),
        (form(), 403, "not valid for this item"),  # no CSRF nonce
        (form(nonce="forged"), 403, "not valid for this item"),
    ]
    for data, status, message in bad:
        r = c.post(url, data=data)
        assert r.status_code == status and message in r.text, (data, r.text)
        assert count(run) == (0, 0)
    # a nonce of another item does not work for this one
    other = url.rsplit("/", 1)[0] + "/2"
    other_nonce = nonce_of(c.get(other).text)
    assert c.post(url, data=form(nonce=other_nonce)).status_code == 403
    # an item not in this reviewer's list, another reviewer's token, a revoked token
    assert c.post(url.rsplit("/", 1)[0] + "/99", data=form(nonce=nonce)).status_code == 404
    r2_url = url.replace(links["reviewer-1"], links["reviewer-2"])
    assert c.post(r2_url, data=form(nonce=nonce)).status_code == 403
    assert c.get("/r/not-a-token").status_code == 403
    assert count(run) == (0, 0)
    # the good post is stored; replaying it, or posting again, changes nothing
    assert c.post(url, data=form(nonce=nonce), follow_redirects=False).status_code == 303
    assert count(run) == (10, 1)
    before = rows(run, "SELECT * FROM ratings ORDER BY 1, 2, 3")
    replay = c.post(url, data=form({"readability_1": -2}, nonce=nonce))
    assert replay.status_code == 409 and "already rated" in replay.text
    fresh = c.get(url)
    assert fresh.status_code == 409  # no new form for a rated item
    assert rows(run, "SELECT * FROM ratings ORDER BY 1, 2, 3") == before
    # revocation
    result = CliRunner().invoke(REVIEW_COMMAND, ["revoke", str(run), "reviewer-1"])
    assert result.exit_code == 0
    assert c.get(links["reviewer-1"]).status_code == 403
    assert c.post(other, data=form(nonce=other_nonce)).status_code == 403
    assert count(run) == (10, 1)
    unknown = beyondpass("review", "revoke", str(run), "reviewer-9")
    assert unknown.returncode == 2 and "no reviewer 'reviewer-9'" in unknown.stderr
    reissued = CliRunner().invoke(REVIEW_COMMAND, ["revoke", str(run), "reviewer-1", "--reissue"])
    new = re.search(r"(/r/\S+)", reissued.output).group(1)
    assert c.get(new + "/progress.json").json() == {"done": 1, "total": 8, "next": 2}


def crawl(c: TestClient, start: str) -> dict[str, str]:
    """Every page reachable from the link (links, redirects), plus JSON and error pages."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        r = c.get(url)
        seen[url] = "\n".join(f"{k}: {v}" for k, v in r.headers.items()) + "\n" + r.text
        seen[str(r.url)] = seen[url]
        todo += [h for h in re.findall(r'(?:href|action)="(/[^"]*)"', r.text) if h not in seen]
    return seen


def test_blinding_nothing_reachable_names_a_model_condition_verdict_or_metric(template, tmp_path):
    run, links, _ = study(template, tmp_path / "r", "--reviewers", "2", "--overlap", "2")
    with RunStore(run, create=False) as store:
        meta = store.all_meta()
        rows_ = list(store.rows())
    forbidden = set(PAIR) | set(meta["conditions"])
    for info in meta["models"].values():
        forbidden |= {info["spec"], info["identity"]["path"], info["identity"]["sha256"]}
    statuses = {"passed", "failed", "syntax_error", "pass rate", "verdict", "score"}
    for row in rows_:
        forbidden |= {row.sample.key, *row.result.metrics}
        statuses.add(row.result.status)
    c = client(run)
    pages: dict[str, str] = {}
    for link in links.values():
        token = link.split("/")[-1]
        for position in range(1, 17):  # every item, then the finish page
            url, html = open_item(c, link)
            pages.update(crawl(c, url))
            pages[url + " (bad post)"] = c.post(
                url, data=form({"readability_1": 9}, nonce=nonce_of(html))
            ).text
            pages[url + " (post)"] = c.post(url, data=form(nonce=nonce_of(html))).text
            pages[url + " (replay)"] = c.post(url, data=form(nonce=nonce_of(html))).text
            if position == 3:
                pages[url + "/progress.json"] = json.dumps(
                    c.get(f"/r/{token}/progress.json").json()
                )
        pages.update(crawl(c, link))
    for extra in (
        "/",
        "/nothing",
        "/r/x",
        "/r/x/item/1",
        "/static/x.css",
        "/docs",
        "/openapi.json",
        f"{links['reviewer-1']}/item/abc",
        f"{links['reviewer-1']}/item/999",
    ):
        r = c.get(extra)
        pages[extra] = "\n".join(f"{k}: {v}" for k, v in r.headers.items()) + r.text
        assert r.status_code in (200, 403, 404)
    assert any("Thank you" in p for p in pages.values())
    assert len(pages) > 40
    for url, text in pages.items():
        lowered = text.lower()
        for word in forbidden:
            assert word.lower() not in lowered, f"{word!r} appears in {url}"
        # verdict words may occur in a solution or task text (e.g. "except ValueError"),
        # never in what the app itself says
        own = re.sub(
            r'<div class="sol".*?</div>|<pre class="task">.*?</pre>', "", lowered, flags=re.S
        )
        for word in statuses:
            assert not re.search(rf"\b{word}\b", own), f"{word!r} appears in {url}"
        # item ids: the only numbers in URLs are the reviewer's own positions
        assert not re.search(r"item_id|key_a|key_b|swapped", text), url


def test_concurrent_reviewers_lose_no_rating(template, tmp_path):
    run, links, _ = study(template, tmp_path / "r", "--reviewers", "4", "--overlap", "4")
    errors: list[str] = []

    def review(link: str) -> None:
        c = client(run)
        for _ in range(16):
            url, html = open_item(c, link)
            r = c.post(url, data=form(nonce=nonce_of(html)), follow_redirects=False)
            if r.status_code != 303:
                errors.append(r.text)

    threads = [threading.Thread(target=review, args=(link,)) for link in links.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert count(run) == (4 * 16 * 10, 4 * 16)


def test_results_aggregate_the_ratings_entered(template, tmp_path):
    """Two reviewers rate every item; the expected aggregates are computed here from the
    ratings the test chose (model A always -1/+2 by property, model B always +1), mapped
    through the recorded left/right order."""
    run, links, _ = study(
        template,
        tmp_path / "r",
        "--reviewers",
        "2",
        "--overlap",
        "2",
        "--repeat",
        "1",
        "--min-pass-rate",
        "1.0",
    )
    want_a = {
        "first_impression": -1,
        "readability": 2,
        "usability": -1,
        "modifiability": 2,
        "acceptance": -2,
    }
    c = client(run)
    for name, link in links.items():
        with sqlite3.connect(run / "review.sqlite3") as conn:
            swapped = dict(
                conn.execute(
                    "SELECT position, swapped FROM assignments a "
                    "JOIN reviewers r ON r.id=a.reviewer_id WHERE r.name=?",
                    (name,),
                ).fetchall()
            )
        for _ in range(len(swapped)):
            url, html = open_item(c, link)
            position = int(url.rsplit("/", 1)[1])
            a_pos, b_pos = ("2", "1") if swapped[position] else ("1", "2")
            values = {f"{p}_{a_pos}": v for p, v in want_a.items()}
            values |= {f"{p}_{b_pos}": 1 for p in want_a}
            r = c.post(url, data=form(values, better=b_pos, nonce=nonce_of(html)))
            assert r.status_code == 200
    res = results(run)
    assert [b["pair"] for b in res["pairs"]] == [list(PAIR)] and res["ranking"] is None
    block = res["pairs"][0]
    items = 16
    for prop, v in want_a.items():
        a = block["per_model"][PAIR[0]]["properties"][prop]
        b = block["per_model"][PAIR[1]]["properties"][prop]
        assert (a["sum"], a["mean"], a["stdev"], a["n"]) == (v * 2 * items, v, 0.0, 2 * items)
        assert (b["sum"], b["n"]) == (2 * items, 2 * items)
    assert block["per_model"][PAIR[1]]["preferred"] == 2 * items
    t4 = block["table4"]
    assert len(t4["rows"]) == items
    assert all(r["first_impression_a"] == -2 and r["preference"] == 2 for r in t4["rows"])
    assert t4["all"]["readability_a"]["mean"] == 4 and t4["all"]["readability_a"]["stdev"] == 0
    # restricted: items where both models pass every sample (pass rates from the run store)
    with RunStore(run, create=False) as store:
        ok: dict[tuple, list[bool]] = {}
        for row in store.rows():
            s = row.sample
            ok.setdefault((s.task_id, s.condition), []).append(row.result.passed)
    both = sum(all(v) for v in ok.values())
    assert t4["restricted"]["preference"]["n"] == both and 0 < both < items
    # repeated items were answered identically: consistency 100%, and they are not counted
    assert {c["identical"] for c in res["consistency"].values()} == {1.0}
    assert block["paired_tests"]["readability"]["mean_diff"] == 1
    assert block["paired_tests"]["readability"]["p_value"] < 0.001
    assert res["position_bias"]["n"] == 2 * items
    left = sum(1 for (s,) in rows(run, "SELECT swapped FROM assignments WHERE repeat=0") if s)
    assert res["position_bias"]["left_share"] == left / (2 * items)  # B was left when swapped
    assert all(s >= 0 for (s,) in rows(run, "SELECT seconds FROM choices"))
    # every rated item logged when it was shown and submitted; its active time is derived
    # from those actions and never exceeds the wall time
    kinds = rows(run, "SELECT assignment_id, group_concat(kind) FROM activity GROUP BY 1")
    assert len(kinds) == 2 * items + 2 and all(
        {"shown", "submit"} <= set(k.split(",")) for _, k in kinds
    )
    timed = rows(run, "SELECT seconds, active_seconds FROM choices")
    assert all(a is not None and 0 <= a <= s + 1e-6 for s, a in timed)
    assert res["time_per_item"]["active"]["n"] == len(timed)
    # export
    out = CliRunner().invoke(REVIEW_COMMAND, ["export", str(run), "--format", "csv"])
    assert out.exit_code == 0 and out.output.count("\n") == 1 + items + 4
    md = CliRunner().invoke(REVIEW_COMMAND, ["results", str(run)])
    assert "| average |" in md.output and "Krippendorff" in md.output


@pytest.fixture(scope="module")
def identifying_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo study run by `beyondpass run`, one sloppy answer opening with 'As ChatGPT'."""
    root = tmp_path_factory.mktemp("review-identifying")
    for name in ("study.toml", "answers-careful.jsonl", "answers-sloppy.jsonl"):
        shutil.copy(STUDY_DATA / name, root / name)
    lines = [json.loads(line) for line in (root / "answers-sloppy.jsonl").read_text().splitlines()]
    assert lines[0]["task_id"] == "demo/add" and lines[0]["condition"] == "function-only"
    lines[0]["response"] = lines[0]["response"].replace(
        "def add(", "# As ChatGPT, I add.\ndef add("
    )
    (root / "answers-sloppy.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "beyondpass",
            "run",
            str(root / "study.toml"),
            "--out",
            str(root / "run"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return root / "run"


def test_self_identifying_items_are_excluded_or_redacted_and_recorded(identifying_run, tmp_path):
    run, links, out = study(identifying_run, tmp_path / "excluded")
    assert "flagged demo/demo/add [function-only#0]" in out and "excluded" in out
    assert rows(run, "SELECT COUNT(*) FROM items")[0][0] == 15
    assert rows(run, "SELECT COUNT(*) FROM redactions")[0][0] == 0

    run, links, out = study(identifying_run, tmp_path / "redacted", "--redact", "--overlap", "3")
    assert "flagged demo/demo/add [function-only#0]" in out and "redacted" in out
    assert rows(run, "SELECT COUNT(*) FROM items")[0][0] == 16
    ((item_id, code_b),) = rows(run, "SELECT id, code_b FROM items WHERE code_b LIKE '%redacted%'")
    assert code_b.startswith("# As [redacted], I add.\ndef add(")
    with RunStore(run, create=False) as store:
        original = next(
            r.sample.code
            for r in store.rows()
            if r.sample.model == "demo-sloppy"
            and r.sample.task_id == "demo/add"
            and r.sample.condition == "function-only"
        )
    ((rid, side, pattern, n, sha),) = rows(
        run, "SELECT item_id, side, pattern, count, original_sha256 FROM redactions"
    )
    assert (rid, side, n) == (item_id, "b", 1) and "chatgpt" in pattern
    assert sha == hashlib.sha256(original.encode()).hexdigest()
    c = client(run)
    seen = "".join(text for link in links.values() for text in crawl(c, link).values())
    for link in links.values():  # every reviewer sees every item: open them all
        for position in range(1, 17):
            seen += c.get(f"{link}/item/{position}").text
    assert "[redacted]" in seen and "chatgpt" not in seen.lower()


def test_answers_are_saved_as_given_and_restored(template, tmp_path):
    run, links, _ = study(template, tmp_path / "r", "--reviewers", "1", "--overlap", "1")
    c = client(run)
    url, html = open_item(c, links["reviewer-1"])
    nonce = nonce_of(html)
    draft = url + "/draft"
    ok = c.post(draft, data={"nonce": nonce, "field": "readability_2", "value": "-1"})
    assert ok.status_code == 200 and ok.json() == {"saved": True}
    c.post(draft, data={"nonce": nonce, "field": "readability_2", "value": "+2"})  # changed
    c.post(draft, data={"nonce": nonce, "field": "comment", "value": "<b>tidy</b>"})
    for data, status in [
        ({"nonce": nonce, "field": "readability_2", "value": "0"}, 422),
        ({"nonce": nonce, "field": "speed_1", "value": "1"}, 422),
        ({"nonce": nonce, "field": "better", "value": "3"}, 422),
        ({"nonce": "forged", "field": "better", "value": "1"}, 403),
    ]:
        assert c.post(draft, data=data).status_code == status
    again = c.get(url).text  # a reload (or coming back later) shows what was given
    assert re.search(r'name="readability_2" value="2" checked', again)
    assert len(re.findall(r"\" checked>", again)) == 1
    assert "&lt;b&gt;tidy&lt;/b&gt;</textarea>" in again  # escaped
    assert count(run) == (0, 0)  # drafts are not ratings
    assert c.post(url, data=form(nonce=nonce_of(again))).status_code == 200
    assert rows(run, "SELECT COUNT(*) FROM drafts")[0][0] == 0
    late = c.post(draft, data={"nonce": nonce, "field": "better", "value": "1"})
    assert late.status_code == 409 and late.json()["saved"] is False
