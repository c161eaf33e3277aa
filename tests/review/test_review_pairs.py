"""Review studies of several model pairs (three models, ranked by Bradley-Terry), and the review
database's migration from the first schema, on real runs made by `beyondpass run`."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from beyondpass.review import db
from beyondpass.review.cli import review as REVIEW_COMMAND
from beyondpass.review.results import results
from beyondpass.review.server import create_app
from review_helpers import PAIR, STUDY_DATA, beyondpass, demo_run, form, nonce_of

THIRD = "demo-careful-again"
MODELS = (*PAIR, THIRD)
#: the order the simulated reviewers usually prefer (best first)
ORDER = {"demo-careful": 0, THIRD: 1, "demo-sloppy": 2}


@pytest.fixture(scope="module")
def three_model_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo study with a third model (the careful answers replayed under another label),
    run by the real `beyondpass run`."""
    root = tmp_path_factory.mktemp("three")
    data = root / "study"
    shutil.copytree(STUDY_DATA, data)
    study = (data / "study.toml").read_text()
    study += f'\n[[models]]\nspec = "replay:answers-careful.jsonl"\nlabel = "{THIRD}"\n'
    (data / "study.toml").write_text(study)
    proc = beyondpass("run", str(data / "study.toml"), "--out", str(root / "run"))
    assert proc.returncode == 0, proc.stderr
    return root / "run"


def test_three_models_in_three_pairs_are_ranked(three_model_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(three_model_run, run)
    pairs = [("demo-careful", "demo-sloppy"), ("demo-careful", THIRD), ("demo-sloppy", THIRD)]
    args = ["create", str(run), "--reviewers", "2", "--overlap", "1", "--seed", "3"]
    for a, b in pairs:
        args += ["--pair", a, b]
    made = CliRunner().invoke(REVIEW_COMMAND, args)
    assert made.exit_code == 0, made.output
    links = re.findall(r"reviewer-\d+: http://127\.0\.0\.1:8765(/r/\S+)", made.output)
    assert len(links) == 2
    with sqlite3.connect(run / db.DB_NAME) as conn:
        per_pair = dict(
            conn.execute("SELECT model_a || '/' || model_b, COUNT(*) FROM items GROUP BY 1")
        )
        shown = {
            (token_item[0], token_item[1]): token_item[2:]
            for token_item in conn.execute(
                "SELECT r.name, a.position, i.model_a, i.model_b, a.swapped FROM assignments a "
                "JOIN items i ON i.id=a.item_id JOIN reviewers r ON r.id=a.reviewer_id"
            )
        }
    assert per_pair == {f"{a}/{b}": 16 for a, b in pairs}  # 8 tasks x 2 conditions each

    # Each reviewer prefers the better model of ORDER, except on every fifth item they see
    # (an upset), so every model both wins and loses. The test keeps its own list of
    # (winner, loser) choices, mapping left/right through the recorded order itself.
    c = TestClient(create_app(run))
    expected: list[tuple[str, str]] = []
    for r, link in enumerate(links, start=1):
        name = f"reviewer-{r}"
        for n in range(sum(1 for k in shown if k[0] == name)):
            page = c.get(link)
            assert page.status_code == 200
            url = str(page.url).replace("http://testserver", "")
            a, b, swapped = shown[(name, int(url.rsplit("/", 1)[1]))]
            assert a not in page.text and b not in page.text  # still blind
            left, right = (b, a) if swapped else (a, b)
            better = left if ORDER[left] < ORDER[right] else right
            if n % 5 == 4:
                better = right if better == left else left
            expected.append((better, right if better == left else left))
            post = c.post(
                url, data=form(better="1" if better == left else "2", nonce=nonce_of(page.text))
            )
            assert post.status_code == 200
    res = results(run)
    assert [tuple(b["pair"]) for b in res["pairs"]] == pairs
    assert sum(b["ratings"] for b in res["pairs"]) == res["ratings"] == len(expected) == 48
    for block in res["pairs"]:  # per-pair preference counts equal the choices made
        for model in block["pair"]:
            won = sum(w == model and lo in block["pair"] for w, lo in expected)
            assert block["per_model"][model]["preferred"] == won
    # the ranking equals an independent fit of the test's own choices: choix's Newton
    # optimiser of the likelihood (with its 1e-6 ridge), where the product iterates ILSR
    import choix
    import numpy as np

    index = {m: i for i, m in enumerate(sorted(MODELS))}
    params = choix.opt_pairwise(3, [(index[w], index[lo]) for w, lo in expected])
    want = np.exp(params - params.mean())
    ranking = res["ranking"]
    assert ranking["estimable"] and ranking["comparisons"] == 48
    assert [m["model"] for m in ranking["models"]] == sorted(ORDER, key=ORDER.get)
    for m in ranking["models"]:
        assert m["strength"] == pytest.approx(want[index[m["model"]]], rel=1e-5)
        assert m["wins"] == sum(w == m["model"] for w, _ in expected)
    # the report shows every pair's table and the ranking
    from beyondpass.report.render import render_report

    render_report(run, plots=False)
    md = (run / "report.md").read_text()
    assert md.count("Blind side-by-side review of") == 3
    assert "Bradley-Terry ranking from 48 first choices" in md
    assert f"| 1 | demo-careful | {ranking['models'][0]['strength']:.2f} |" in md
    csv = (run / "review-table4.csv").read_text().splitlines()
    assert csv[0].startswith("model_a,model_b,item,")
    assert sum(line.startswith(f"{THIRD},") for line in csv) == 0  # THIRD is always model_b
    assert sum(line.startswith("demo-sloppy,demo-careful-again,") for line in csv) == 16 + 4


def test_create_rejects_a_pair_given_twice(three_model_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(three_model_run, run)
    proc = beyondpass(
        "review", "create", str(run), "--pair", PAIR[0], PAIR[1], "--pair", PAIR[1], PAIR[0]
    )
    assert proc.returncode == 2
    assert proc.stderr == f"error: --pair {PAIR[1]} {PAIR[0]} is given twice\n"
    assert not (run / db.DB_NAME).exists()


def test_a_schema_1_review_database_is_migrated_and_keeps_its_ratings(tmp_path):
    """A review.sqlite3 as the first release wrote it (schema 1: one pair in the study's meta,
    no drafts, no activity) opens under the current schema with every rating intact."""
    run = demo_run(tmp_path)
    path = run / db.DB_NAME
    conn = sqlite3.connect(path)
    conn.executescript(db.MIGRATIONS[0])
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.execute(
        "INSERT INTO meta VALUES ('study', ?)",
        (f'{{"pair": ["{PAIR[0]}", "{PAIR[1]}"], "min_pass_rate": 0.75, "seed": 0}}',),
    )
    conn.execute(
        "INSERT INTO items(id, benchmark, task_id, condition, sample_index, key_a, key_b, "
        "task_text, code_a, code_b) VALUES (1, 'demo', 'demo/add', 'neutral', 0, 'ka', 'kb', "
        "'add two numbers', 'def add(a, b): return a + b', 'def add(a, b): return a - b')"
    )
    conn.execute("INSERT INTO reviewers(id, name, token_hash) VALUES (1, 'reviewer-1', 'h')")
    conn.execute(
        "INSERT INTO assignments(id, reviewer_id, position, item_id, repeat, swapped) "
        "VALUES (1, 1, 1, 1, 0, 1)"
    )
    values = {"a": [2, 1, 2, 1, 2], "b": [-1, -2, -1, -1, -2]}
    for side, row in values.items():
        for prop, value in zip(db.PROPERTIES, row, strict=True):
            conn.execute("INSERT INTO ratings VALUES (1, ?, ?, ?)", (side, prop, value))
    conn.execute("INSERT INTO choices VALUES (1, 'a', 0, 'fine', 12.5, 1000.0)")
    conn.commit()
    conn.close()

    res = results(run)  # opens (and migrates) the database

    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (
            str(db.SCHEMA_VERSION),
        )
        assert conn.execute("SELECT model_a, model_b FROM items").fetchall() == [PAIR]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"drafts", "activity"} <= tables
        assert conn.execute("SELECT COUNT(*) FROM ratings").fetchone() == (10,)
        assert conn.execute("SELECT seconds, active_seconds FROM choices").fetchall() == [
            (12.5, None)
        ]
    (block,) = res["pairs"]
    assert block["pair"] == list(PAIR)
    for side, model in zip("ab", PAIR, strict=True):
        props = block["per_model"][model]["properties"]
        assert [props[p]["sum"] for p in db.PROPERTIES] == values[side]
    assert block["per_model"][PAIR[0]]["preferred"] == 1
    assert res["time_per_item"]["wall"]["mean"] == 12.5
    assert res["time_per_item"]["active"]["n"] == 0  # rated before activity was recorded
    assert res["ranking"] is None  # two models: the pair's table says it all
