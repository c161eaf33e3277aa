"""Table 1 regenerated from the authors' published generations (``nofuneval table1``).

Every published 1-sample file is scored twice — NoFunEval's reading (compat) and the
default one — with the same DiffBLEU; runtime-efficiency files can also be run for
Correct@1 (and timed for Average Speedup@1 / Improved@1), security and maintainability
files judged by the open static oracle (DiffBLEU x oracle). Given a folder of values the
authors' own code produced for the same files, each row's compat DiffBLEU and
"template followed" are compared with theirs (the agreement table in docs/nofuneval.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

from beyondpass.errors import BeyondpassError, DataError
from beyondpass.jsonl import read_objects
from beyondpass.methods.nofuneval.extraction.echo import unknown_echo
from beyondpass.methods.nofuneval.extraction.readers import compat_extract, robust_extract
from beyondpass.methods.nofuneval.table1.published import PublishedFile, PublishedRow, read_rows

if TYPE_CHECKING:
    from beyondpass.methods.nofuneval.oracles.check import KnownFindings

#: DiffBLEU values equal to this tolerance count as equal (their floats and ours come from
#: the same nltk arithmetic; 1e-9 only absorbs printing)
TOLERANCE = 1e-9


@dataclass
class FileResult:
    """One published file scored: per row, both readings; summaries of the extras."""

    file: PublishedFile
    rows: list[dict[str, Any]] = field(default_factory=list)
    runtime: dict[str, dict[str, Any]] = field(default_factory=dict)  # reading -> summary
    oracle: dict[str, dict[str, Any]] = field(default_factory=dict)  # reading -> summary
    agreement: dict[str, Any] | None = None

    def mean(self, key: str) -> float:
        values = [r[key] for r in self.rows if r.get(key) is not None]
        return mean(values) if values else math.nan


def dataset_prompts(subset: str, data_dir: str | None) -> dict[int, tuple[str, ...]]:
    """Row -> the dataset's four prompts (the default reader strips an echoed one); empty
    when the subset's file is not available (maintainability)."""
    from beyondpass.methods.nofuneval.benchmark import load_subset

    try:
        bench = load_subset(subset, data_dir)
    except (BeyondpassError, OSError):  # not public or not here: the echo is found itself
        return {}
    return {
        int(t.metadata["row"]): tuple(map(str, t.metadata["prompt_fields"].values()))
        for t in bench.tasks.values()
    }


def score_file(
    file: PublishedFile,
    rows: list[PublishedRow],
    prompts: dict[int, tuple[str, ...]],
    scorer: Any,
) -> FileResult:
    """DiffBLEU of every row's first answer, read both ways (``scorer``: a DiffBleu, shared
    by the files so that each row's reference edit is computed once)."""
    result = FileResult(file)
    for r in rows:
        answer = r.answers[0] if r.answers else ""
        compat = compat_extract(answer, file.prompt, r.pl)
        own = prompts.get(r.row) or (unknown_echo(answer, r.source),)
        robust = robust_extract(answer, own, r.pl)
        score = scorer.score(r.source, r.target, compat.code, r.pl)
        if robust.code != compat.code:
            default = scorer.score(r.source, r.target, robust.code, r.pl)
        else:
            default = score
        result.rows.append(
            {
                "row": r.row,
                "pl": r.pl,
                "diffbleu_compat": score,
                "template_followed_compat": compat.template_followed,
                "diffbleu_default": default,
                "template_followed_default": robust.template_followed,
                "_programs": (compat.code, robust.code),
            }
        )
    return result


def read_reference(path: Path) -> list[dict[str, Any]]:
    """The authors' values for one file: ``{"row", "diffbleu", "template_followed"}`` lines."""
    example = '{"row": 0, "diffbleu": 0.12, "template_followed": true}'
    return [obj for _, obj in read_objects(path, example, "the authors' values")]


def reference_path(folder: Path, file: PublishedFile) -> Path:
    return folder / file.subset / file.model / f"{file.prompt}.jsonl"


def compare(result: FileResult, reference: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows whose compat DiffBLEU and template flag equal the authors' (and those that do not)."""
    theirs = {int(x["row"]): x for x in reference}
    differ = []
    for r in result.rows:
        ref = theirs.get(r["row"])
        ok = (
            ref is not None
            and ref.get("diffbleu") is not None
            and abs(r["diffbleu_compat"] - float(ref["diffbleu"])) <= TOLERANCE
            and bool(r["template_followed_compat"]) == bool(ref["template_followed"])
        )
        if not ok:
            differ.append(
                {
                    "row": r["row"],
                    "pl": r["pl"],
                    "ours": r["diffbleu_compat"],
                    "theirs": None if ref is None else ref.get("diffbleu"),
                }
            )
    return {"rows": len(result.rows), "equal": len(result.rows) - len(differ), "differ": differ}


READINGS = ("compat", "default")


def kept_times(
    folder: Path | None, executor: Any, runs: int, readings: Sequence[str] = READINGS
) -> dict[str, Any]:
    """Per reading, the (sources, edits) measurements kept in ``folder`` (in memory without
    one): every file shares its sources' times, and a stopped table resumes."""
    from beyondpass.methods.nofuneval.edit.program_times import EDIT_FILE_NAME, ProgramTimes
    from beyondpass.methods.nofuneval.edit.speedup import timing_record

    kept = {}
    for reading in readings:
        compat = reading == "compat"
        timing = {
            **timing_record(executor, compat, runs),
            "compat": "nofuneval" if compat else None,
        }
        kept[reading] = (
            ProgramTimes(folder, timing), ProgramTimes(folder, timing, EDIT_FILE_NAME)
        )  # fmt: skip
    return kept


def add_runtime(
    result: FileResult,
    rows: list[PublishedRow],
    executor: Any,
    runs: int,
    data_dir: str | None,
    kept: dict[str, Any],
) -> None:
    """Runtime efficiency: run each row's edit and source on its cases, for each reading
    ``kept`` holds (:func:`kept_times`)."""
    from beyondpass.methods.nofuneval.benchmark import load_subset
    from beyondpass.methods.nofuneval.edit.speedup import score_runtime

    bench = load_subset("runtime_efficiency", data_dir)
    tasks = {int(t.metadata["row"]): t for t in bench.tasks.values()}
    for r in rows:
        if tasks.get(r.row) is None or tasks[r.row].metadata["source_code"] != r.source:
            raise DataError(f"{result.file.path}: row {r.row} is not runtime_efficiency's")
    for i, reading in enumerate(READINGS):
        if reading not in kept:
            continue
        scores = [{"row": r["row"]} for r in result.rows]
        programs = [r["_programs"][i] for r in result.rows]
        summary = score_runtime(
            scores, [r["row"] for r in result.rows], programs, tasks, executor, i == 0, runs,
            kept[reading],
        )  # fmt: skip
        for line, s in zip(result.rows, scores, strict=True):
            line[f"correct_{reading}"] = s["correct"]
            if runs:
                line[f"speedup_{reading}"] = s["speedup"]
        result.runtime[reading] = summary


def add_oracle(result: FileResult, rows: list[PublishedRow], known: KnownFindings) -> None:
    """Security/maintainability: DiffBLEU x the open static oracle, both readings (each
    program analysed once for the whole table: ``known``)."""
    from beyondpass.methods.nofuneval.oracles.score import oracle_scores

    metas = [{"pl": r.pl, "codeql_check": r.codeql_check, "source_code": r.source} for r in rows]
    for i, reading in enumerate(READINGS):
        scores = [
            {"row": line["row"], "diffbleu": line[f"diffbleu_{reading}"]} for line in result.rows
        ]
        programs = [line["_programs"][i] for line in result.rows]
        result.oracle[reading] = oracle_scores(scores, metas, programs, i == 0, known)
        for line, s in zip(result.rows, scores, strict=True):
            line[f"diffbleu_x_oracle_{reading}"] = s["diffbleu_x_oracle"]


def run_table(
    files: Iterable[PublishedFile],
    *,
    data_dir: str | None = None,
    reference: Path | None = None,
    executor: Any = None,
    runs: int = 0,
    oracle: bool = False,
    progress: Callable[[FileResult], None] | None = None,
    folder: Path | None = None,
    readings: Sequence[str] = READINGS,
) -> list[FileResult]:
    """Score every file (in the given order); extras as asked. ``folder``: where runtime
    measurements are kept (:func:`kept_times`); ``readings``: which are run and timed
    (both are always scored for DiffBLEU)."""
    from beyondpass.methods.nofuneval.edit.diffbleu import DiffBleu

    kept = kept_times(folder, executor, runs, readings) if executor is not None else {}
    known = None  # with --oracle: the analysers' findings, kept for the whole table
    if oracle:
        from beyondpass.methods.nofuneval.oracles.check import KnownFindings

        known = KnownFindings()
    with DiffBleu() as scorer:
        return _run(files, data_dir, reference, executor, runs, known, progress, scorer, kept)


def _run(
    files: Iterable[PublishedFile],
    data_dir: str | None,
    reference: Path | None,
    executor: Any,
    runs: int,
    known: KnownFindings | None,
    progress: Callable[[FileResult], None] | None,
    scorer: Any,
    kept: dict[str, Any],
) -> list[FileResult]:
    results = []
    prompts_of: dict[str, dict[int, tuple[str, ...]]] = {}
    for file in files:
        rows = read_rows(file)
        if file.subset not in prompts_of:
            prompts_of[file.subset] = dataset_prompts(file.subset, data_dir)
        result = score_file(file, rows, prompts_of[file.subset], scorer)
        if reference is not None and reference_path(reference, file).is_file():
            result.agreement = compare(result, read_reference(reference_path(reference, file)))
        if executor is not None and file.subset == "runtime_efficiency":
            add_runtime(result, rows, executor, runs, data_dir, kept)
        if known is not None and file.subset in ("security", "maintainability"):
            add_oracle(result, rows, known)
        for line in result.rows:
            line.pop("_programs", None)
        results.append(result)
        if progress is not None:
            progress(result)
    return results
