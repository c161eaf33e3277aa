"""Bad input and broken environments: one clear `error:` line, a meaningful exit code, and
earlier results left exactly as they were."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
from pathlib import Path

import pytest

GOOD_ROWS = [
    {"task_id": "demo/add", "completion": "    return a + b\n"},
    {"task_id": "demo/add", "completion": "    return a - b\n"},
]
GOOD_LINE = json.dumps(GOOD_ROWS[0]).encode()
BENCHMARK_NAMES = ("humaneval", "humaneval-et", "mbpp", "mbpp-et", "demo")


def one_error_line(proc) -> str:
    """The single stderr line of a failed command (and nothing on stdout)."""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    return lines[0]


@pytest.fixture(scope="module")
def _evaluated(run_cli, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A successful evaluation, made once for the module (each test gets its own copy)."""
    tmp = tmp_path_factory.mktemp("evaluated")
    samples = tmp / "good.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in GOOD_ROWS), encoding="utf-8")
    proc = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", samples, "--out", "OUT", "--json"],
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr
    return tmp / "OUT"


@pytest.fixture
def earlier_run(_evaluated: Path, tmp_path: Path) -> tuple[Path, bytes]:
    """OUT holding the results of a successful evaluation, and those results' bytes."""
    shutil.copytree(_evaluated, tmp_path / "OUT")
    results = tmp_path / "OUT" / "results.jsonl"
    assert len(results.read_text(encoding="utf-8").splitlines()) == 2
    return tmp_path / "OUT", results.read_bytes()


# -- malformed answers files ---------------------------------------------------------------
BAD_FILES = {
    # name: (content, substrings the error line must contain)
    "truncated": (
        GOOD_LINE + b'\n{"task_id": "demo/add", "completion": "    return a',
        ["truncated.jsonl:2:", "invalid JSON", "truncated"],
    ),
    "not-utf8": (
        GOOD_LINE + b'\n{"task_id": "demo/add", "completion": "# caf\xe9\\n    return a + b"}\n',
        ["not-utf8.jsonl:2:", "UTF-8", "0xe9"],
    ),
    "unknown-task": (
        GOOD_LINE + b'\n{"task_id": "demo/nope", "completion": "    return 1"}\n',
        ["unknown-task.jsonl:2:", "'demo/nope'", "demo/add", "--benchmark"],
    ),
    "no-task-id": (
        b'{"completion": "    return a + b"}\n' + GOOD_LINE + b"\n",
        ["no-task-id.jsonl:1:", "task_id"],
    ),
    "no-answer": (
        GOOD_LINE + b'\n{"task_id": "demo/add", "text": "    return a + b"}\n',
        ["no-answer.jsonl:2:", "completion", "solution", "response"],
    ),
    "not-an-object": (
        GOOD_LINE + b'\n["demo/add", "    return a + b"]\n',
        ["not-an-object.jsonl:2:", "JSON object", "a list"],
    ),
    "empty": (b"", ["empty.jsonl", "empty"]),
    "blank": (b"\n  \n\n", ["blank.jsonl", "empty"]),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_answers_file(run_cli, tmp_path: Path, earlier_run, case: str) -> None:
    out, before = earlier_run
    content, expected = BAD_FILES[case]
    samples = tmp_path / f"{case}.jsonl"
    samples.write_bytes(content)
    proc = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", samples, "--out", "OUT", "--json"],
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    line = one_error_line(proc)
    for part in expected:
        assert part in line, line
    assert " — " in line, f"no hint on what to do: {line}"
    assert (out / "results.jsonl").read_bytes() == before


def test_missing_answers_file(run_cli, tmp_path: Path, earlier_run) -> None:
    out, before = earlier_run
    proc = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", "nowhere.jsonl", "--out", "OUT"],
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "nowhere.jsonl" in line and "does not exist" in line
    assert (out / "results.jsonl").read_bytes() == before


# -- benchmark and data problems -------------------------------------------------------------
def test_unknown_benchmark_lists_valid_names(run_cli, tmp_path: Path, earlier_run) -> None:
    out, before = earlier_run
    proc = run_cli(
        ["evaluate", "--benchmark", "humaneval-xl", "--samples", "good.jsonl", "--out", "OUT"],
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "'humaneval-xl'" in line
    for name in BENCHMARK_NAMES:
        assert name in line
    assert (out / "results.jsonl").read_bytes() == before


def test_data_dir_that_does_not_exist(run_cli, tmp_path: Path, earlier_run) -> None:
    out, before = earlier_run
    missing = tmp_path / "no-such-data"
    proc = run_cli(
        [
            "evaluate", "--benchmark", "humaneval", "--samples", "good.jsonl",
            "--data-dir", missing, "--out", "OUT",
        ],
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert str(missing) in line and "--data-dir" in line and "does not exist" in line
    assert (out / "results.jsonl").read_bytes() == before


def test_data_dir_without_the_benchmark_offline(run_cli, tmp_path: Path, earlier_run) -> None:
    out, before = earlier_run
    (tmp_path / "data" / "mbpp").mkdir(parents=True)  # some other benchmark's folder
    proc = run_cli(
        [
            "evaluate", "--benchmark", "humaneval", "--samples", "good.jsonl",
            "--data-dir", "data", "--out", "OUT",
        ],
        cwd=tmp_path,
        env={"BEYONDPASS_OFFLINE": "1", "BEYONDPASS_CACHE_DIR": str(tmp_path / "cache")},
        unset=["BEYONDPASS_DATA"],
    )  # fmt: skip
    assert proc.returncode == 2
    line = one_error_line(proc)
    for part in ("humaneval/HumanEval.jsonl.gz", "BEYONDPASS_OFFLINE", "--data-dir"):
        assert part in line, line
    assert (out / "results.jsonl").read_bytes() == before
    assert not (tmp_path / "cache" / "data").exists()  # nothing was downloaded


# -- studies -------------------------------------------------------------------------------
def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_study_with_unreachable_endpoint(run_cli, tmp_path: Path) -> None:
    port = _closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    study = tmp_path / "down.toml"
    study.write_text(
        'name = "down"\n'
        "[[benchmarks]]\n"
        'name = "demo"\n'
        "limit = 2\n"
        "[[models]]\n"
        f'spec = "openai:m@{url}"\n'
        "max_attempts = 2\n",  # the default (5) backs off for ~15 s before giving up
        encoding="utf-8",
    )
    proc = run_cli(
        ["run", study, "--out", "RUN", "--no-report"],
        cwd=tmp_path,
        unset=["OPENAI_API_KEY", "OPENAI_BASE_URL"],
    )
    assert proc.returncode in (1, 3), proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    assert "cannot reach" in errors[0] and url in errors[0]
    assert "after 2 attempts" in errors[0]
    assert "Traceback" not in proc.stderr


def _write_answers(tmp_path: Path) -> None:
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"task_id": "demo/add", "completion": "    return a + b\n"}) + "\n",
        encoding="utf-8",
    )


STUDY = """\
name = "{name}"
[[benchmarks]]
name = "demo"
tasks = {tasks}
[[models]]
spec = "replay:answers.jsonl"
"""


def test_study_with_invalid_toml(run_cli, tmp_path: Path) -> None:
    study = tmp_path / "broken.toml"
    study.write_text('name = "x"\n[[benchmarks]\nname = "demo"\n', encoding="utf-8")
    proc = run_cli(["run", study, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "broken.toml" in line and "invalid TOML" in line and "line 2" in line
    assert not (tmp_path / "RUN").exists()


def test_study_with_unknown_key(run_cli, tmp_path: Path) -> None:
    _write_answers(tmp_path)
    study = tmp_path / "typo.toml"
    study.write_text(
        "modles = 2\n" + STUDY.format(name="typo", tasks='["demo/add"]'), encoding="utf-8"
    )
    proc = run_cli(["run", study, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "typo.toml" in line and "'modles'" in line and "models" in line
    assert not (tmp_path / "RUN").exists()


def test_study_with_unknown_model_option(run_cli, tmp_path: Path) -> None:
    _write_answers(tmp_path)
    study = tmp_path / "option.toml"
    study.write_text(
        STUDY.format(name="option", tasks='["demo/add"]') + "temprature = 0.2\n",
        encoding="utf-8",
    )
    proc = run_cli(["run", study, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "temprature" in line and "replay" in line


def test_study_with_unknown_task(run_cli, tmp_path: Path) -> None:
    _write_answers(tmp_path)
    study = tmp_path / "tasks.toml"
    study.write_text(STUDY.format(name="t", tasks='["demo/add", "demo/nope"]'), encoding="utf-8")
    proc = run_cli(["run", study, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "'demo/nope'" in line and "demo" in line and "demo/add" in line
    assert not (tmp_path / "RUN").exists()


def test_run_dir_holding_another_study(run_cli, tmp_path: Path) -> None:
    _write_answers(tmp_path)
    first = tmp_path / "first.toml"
    first.write_text(STUDY.format(name="first", tasks='["demo/add"]'), encoding="utf-8")
    proc = run_cli(["run", first, "--out", "RUN", "--no-report", "--json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["samples_scored"] == 1

    second = tmp_path / "second.toml"
    second.write_text(STUDY.format(name="second", tasks='["demo/fizzbuzz"]'), encoding="utf-8")
    proc = run_cli(["run", second, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "RUN" in line and "--out" in line
    db = sqlite3.connect(f"file:{tmp_path / 'RUN' / 'run.sqlite3'}?mode=ro", uri=True)
    try:
        (study_meta,) = db.execute("SELECT value FROM meta WHERE key = 'study'").fetchone()
        tasks = db.execute("SELECT task_id FROM samples").fetchall()
    finally:
        db.close()
    assert json.loads(study_meta)["name"] == "first"
    assert tasks == [("demo/add",)]


def test_evaluate_into_a_study_run_dir_is_refused(run_cli, tmp_path: Path) -> None:
    _write_answers(tmp_path)
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(name="study", tasks='["demo/add"]'), encoding="utf-8")
    proc = run_cli(["run", study, "--out", "RUN", "--no-report"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    db_path = tmp_path / "RUN" / "run.sqlite3"

    def snapshot() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            meta = db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
            samples = db.execute("SELECT key, model FROM samples ORDER BY key").fetchall()
        finally:
            db.close()
        return meta, samples

    before = snapshot()
    samples = tmp_path / "other.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in GOOD_ROWS), encoding="utf-8")
    proc = run_cli(
        ["evaluate", "--benchmark", "demo", "--samples", samples, "--out", "RUN"], cwd=tmp_path
    )
    assert proc.returncode == 2, "evaluate wrote its samples into a study's run directory"
    line = one_error_line(proc)
    assert "RUN" in line and "--out" in line
    assert snapshot() == before
