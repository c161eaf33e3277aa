"""``beyondpass robustapi check``: verdicts for a JSONL file of RobustAPI answers.

A front-end of ``evaluate``: the answers are scored into a run store in ``OUT`` by the
``robustapi`` evaluator (which records both checker semantics), so an interrupted check
resumes, ``beyondpass report OUT`` and ``beyondpass rescore OUT`` work on it, and the run
carries the provenance every run carries. The files users know are exports of the store:
``OUT/verdicts.jsonl`` (one line per answer, input order, in the semantics asked for) and
``OUT/summary.json``, each written to a temporary file and moved into place.

Input: one answer per line, ``{"id": <question id>, "response": "<raw answer>"}``, optional
``api`` (it must be the question's: the rules checked are the question's API's). The whole
file is validated first: a line that is not JSON, lacks a field, or names an id the dataset
does not have stops the command with ``file:line: what — what to do`` before anything is
written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import DataError
from beyondpass.jsonl import read_objects
from beyondpass.methods.robustapi.analysis import MisuseSummary, verdict_in
from beyondpass.methods.robustapi.benchmark import domain_of
from beyondpass.methods.robustapi.checker.checker import SEMANTICS, Semantics
from beyondpass.models.replay import AnswerRow
from beyondpass.store.run_store import RunStore
from beyondpass.study.answer_files import (
    Answered,
    AnswerFile,
    write_json_atomic,
    write_jsonl_atomic,
)
from beyondpass.study.progress import Progress

VERDICTS_FILE = "verdicts.jsonl"
SUMMARY_FILE = "summary.json"
ANSWER_FIELDS = ("response", "raw_response", "answer", "completion", "output")
#: the key of this export's summary in ``evaluate``'s summary
SUMMARY_KEY = "robustapi_check"
#: keys of the evaluator's metadata that are not the checker's
_EVALUATOR_KEYS = ("evaluator", "original", "verdict_semantics", "also_recorded")


@dataclass(frozen=True)
class AnswerLine:
    line: int
    id: str  # the dataset's question id
    api: str
    response: str
    raw_id: int | str = ""  # the id as the input wrote it: verdicts keep its JSON type


def read_answers(path: Path, questions: dict[str, str]) -> list[AnswerLine]:
    """Parse and validate every line; ``questions`` maps dataset ids to their API."""
    out: list[AnswerLine] = []
    answers = read_objects(path, '{"id": 12, "response": "..."}', "the JSONL file of answers")
    for number, row in answers:
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
        if isinstance(api, str) and api.strip() and api.strip() != questions[qid]:
            raise DataError(
                f"{where}: api {api.strip()!r} is not question {qid}'s API "
                f"({questions[qid]!r}) — the rules checked are the question's; fix or remove it"
            )
        out.append(AnswerLine(number, qid, questions[qid], row[field], raw_id))
    if not out:
        raise DataError(f"{path} holds no answers")
    return out


class RobustApiAnswers(AnswerFile):
    """RobustAPI's answer files, read as ``robustapi check`` reads them; exports
    ``verdicts.jsonl`` and ``summary.json`` in the semantics asked for (option
    ``semantics``; the store holds both). Option ``rules``: the rule file."""

    name = "robustapi-answers"
    export_options = ("semantics",)

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        semantics = self.options.setdefault("semantics", "correct")
        if semantics not in SEMANTICS:
            raise DataError(f"semantics {semantics!r}: choose {' or '.join(SEMANTICS)}")
        self.options.setdefault("rules", None)

    @property
    def semantics(self) -> Semantics:
        return self.options["semantics"]  # type: ignore[no-any-return]

    @property
    def evaluator_options(self) -> dict[str, dict[str, Any]]:
        rules = self.options.get("rules")
        return {"robustapi": {"rules": rules}} if rules else {}

    def read(self, path: Path, bench: Benchmark) -> list[AnswerRow]:
        questions = {tid: str(t.metadata["api"]) for tid, t in bench.tasks.items()}
        rows = []
        for a in read_answers(path, questions):
            rows.append(
                AnswerRow(
                    line=a.line,
                    index=len(rows),
                    task_id=a.id,
                    text=a.response,
                    field="response",
                    extra={"id": a.raw_id, "api": a.api},
                )
            )
        return rows

    def export(self, out_dir: Path, bench: Benchmark, lines: list[Answered]) -> dict[str, Any]:
        """The verdicts of the semantics asked for, from the stored evaluations."""
        original = self.semantics == "original"
        summary = MisuseSummary()
        records = []
        for line in lines:
            result = line.stored.result if line.stored is not None else None
            if result is None:  # every line names a question: all are scored
                raise DataError(f"{out_dir}: line {line.row.line} has no stored verdict")
            api = str(line.row.extra["api"])
            details = result.details.get("original", {}) if original else result.details
            verdict = verdict_in(result, self.semantics)
            summary.add(verdict, api, domain_of(api))
            records.append(
                {
                    "id": line.row.extra["id"],
                    "api": api,
                    "verdict": verdict,
                    "violations": details.get("violations", []),
                    "error": details.get("error", ""),
                    "notes": details.get("notes", []),
                    "line": line.row.line,
                }
            )
        with RunStore(out_dir, create=False) as store:
            recorded = store.get_meta("evaluators") or []
            checker = next((e for e in recorded if e.get("evaluator") == "robustapi"), {})
            samples = store.get_meta("samples") or {}
        if original:
            checker = checker.get("original", {})
        checker = {k: v for k, v in checker.items() if k not in _EVALUATOR_KEYS}
        result_summary: dict[str, Any] = {
            **summary.as_dict(),
            "semantics": self.semantics,
            "answers": samples.get("path", ""),
            "answers_sha256": samples.get("sha256", ""),
            "dataset_version": bench.version,
            "checker": checker,
            "verdicts_path": str(out_dir / VERDICTS_FILE),
            "run_dir": str(out_dir),
        }
        write_jsonl_atomic(out_dir / VERDICTS_FILE, records)
        write_json_atomic(out_dir / SUMMARY_FILE, result_summary)
        return {SUMMARY_KEY: result_summary}


def check_answers_file(
    answers: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    semantics: Semantics = "correct",
    rules: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Score every answer into the run store in ``out_dir``; write the verdicts and the
    summary from it; return the summary."""
    from beyondpass.study.evaluate_samples import evaluate_samples

    reader = RobustApiAnswers(
        {"semantics": semantics, "rules": os.fspath(Path(rules).resolve()) if rules else None}
    )
    outcome = evaluate_samples(
        "robustapi",
        answers,
        out_dir,
        data_dir=os.fspath(data_dir) if data_dir is not None else None,
        answer_file=reader,
        progress=progress,
    )
    return outcome.summary[SUMMARY_KEY]  # type: ignore[no-any-return]
