"""``beyondpass robustapi check``: verdicts for a JSONL file of RobustAPI answers.

Input: one answer per line, ``{"id": <question id>, "response": "<raw answer>"}``, optional
``api`` (else the dataset's API of that question). The whole file is validated first: a
line that is not JSON, lacks a field, or names an id the dataset does not have stops the
command with ``file:line: what — what to do`` before anything is written. Outputs go to
``OUT/verdicts.jsonl`` (one line per answer, input order) and ``OUT/summary.json``, each
written to a temporary file and moved into place, so earlier outputs stay intact until new
ones are complete.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError
from beyondpass.jsonl import json_objects
from beyondpass.methods.robustapi.analysis import MisuseSummary
from beyondpass.methods.robustapi.benchmark import domain_of, load_robustapi
from beyondpass.methods.robustapi.checker.checker import (
    ApiMisuseChecker,
    Semantics,
    load_ruleset,
)
from beyondpass.methods.robustapi.prompts import prompt_texts
from beyondpass.study.progress import NullProgress, Progress

VERDICTS_FILE = "verdicts.jsonl"
SUMMARY_FILE = "summary.json"
ANSWER_FIELDS = ("response", "raw_response", "answer", "completion", "output")


@dataclass(frozen=True)
class AnswerLine:
    line: int
    id: str  # the dataset's question id
    api: str
    response: str
    raw_id: int | str = ""  # the id as the input wrote it: verdicts keep its JSON type


def read_answers(path: Path, questions: dict[str, str]) -> list[AnswerLine]:
    """Parse and validate every line; ``questions`` maps dataset ids to their API."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path} does not exist — give the JSONL file of answers") from None
    except IsADirectoryError:
        raise DataError(f"{path} is a directory — give the JSONL file of answers") from None
    except OSError as exc:
        raise DataError(f"cannot read {path} ({exc.strerror or exc})") from exc
    out: list[AnswerLine] = []
    for number, row in json_objects(str(path), data, '{"id": 12, "response": "..."}'):
        where = f"{path}:{number}"
        qid = row.get("id", row.get("task_id"))
        if qid is None or isinstance(qid, bool) or not isinstance(qid, int | str):
            raise DataError(f"{where}: no usable id — name the question the answer is for")
        raw_id = qid
        qid = str(qid).strip()
        if qid not in questions:
            raise DataError(
                f"{where}: id {qid} is not a RobustAPI question (ids are 0-{len(questions) - 1})"
                " — fix the id or remove the line; nothing was written"
            )
        field = next((f for f in ANSWER_FIELDS if f in row), None)
        if field is None or not isinstance(row[field], str):
            raise DataError(f"{where}: no answer text — put the raw answer under 'response'")
        api = row.get("api")
        api = str(api) if isinstance(api, str) and api.strip() else questions[qid]
        out.append(AnswerLine(number, qid, api, row[field], raw_id))
    if not out:
        raise DataError(f"{path} holds no answers")
    return out


def check_answers_file(
    answers: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    semantics: Semantics = "correct",
    rules: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Check every answer; write verdicts and summary; return the summary."""
    progress = progress or NullProgress()
    path = Path(answers)
    bench = load_robustapi(data_dir)
    questions = {tid: str(t.metadata["api"]) for tid, t in bench.tasks.items()}
    lines = read_answers(path, questions)
    ruleset = load_ruleset(rules, data_dir=data_dir, semantics=semantics)
    checker = ApiMisuseChecker(ruleset, semantics)

    summary = MisuseSummary()
    records = []
    progress.start("check", len(lines))
    for a in lines:
        verdict = checker.check(a.response, a.api, prompt_texts(bench.tasks[a.id]))
        summary.add(verdict.verdict, a.api, domain_of(a.api))
        records.append(
            {
                "id": a.raw_id,
                "api": a.api,
                "verdict": verdict.verdict,
                "violations": [v.as_dict() for v in verdict.violations],
                "error": verdict.error,
                "notes": list(verdict.notes),
                "line": a.line,
            }
        )
        progress.advance("check")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        **summary.as_dict(),
        "semantics": semantics,
        "answers": str(path.resolve()),
        "answers_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "dataset_version": bench.version,
        "checker": checker.metadata(),
        "verdicts_path": str(out / VERDICTS_FILE),
    }
    _write_atomic(
        out / VERDICTS_FILE, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    )
    _write_atomic(out / SUMMARY_FILE, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return result


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
