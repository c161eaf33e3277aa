"""Table 1 regenerated from the authors' published generations (``nofuneval table1``).

Every published 1-sample file is evaluated twice, once per reading — NoFunEval's (compat)
and the default one — each an ``evaluate`` run of the ``nofuneval-generations`` kind in a
folder of its own (``OUT/runs/<subset>/<model>/<prompt>/<reading>``), with the executor
the user chose. The runs are the results: DiffBLEU, and as asked Correct@1 and the
speed-up of runtime-efficiency edits and DiffBLEU x the open static oracle of security and
maintainability edits, are the evaluators' (``nofuneval-edit``, ``nofuneval-oracle``),
stored in each run and exported by it (``scores.jsonl``, ``summary.json``). Table 1 is read
from those runs; a stopped table resumes run by run, and a run that is complete is read,
not scored again. The 24 runtime-efficiency files share one measurement of each row's
source (the evaluator's kept source times, in ``OUT``).

The subset's rows are the dataset's when its file is at hand (its prompts let the default
reading strip an echoed prompt; runtime efficiency needs its CodeNet cases); otherwise —
maintainability, which is not public — the file's own rows
(:func:`.benchmark.load_published`). Given a folder of values the authors' own code
produced for the same files, each row's compat DiffBLEU and "template followed" are
compared with theirs: an export of the compat runs (``agreement.json``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import DataError
from beyondpass.jsonl import read_objects
from beyondpass.methods.nofuneval.table1.published import PublishedFile

#: DiffBLEU values equal to this tolerance count as equal (their floats and ours come from
#: the same nltk arithmetic; 1e-9 only absorbs printing)
TOLERANCE = 1e-9
READINGS = ("compat", "default")


@dataclass
class FileRuns:
    """One published file's runs, a run per reading: where each is, and what it exported."""

    file: PublishedFile
    runs: dict[str, Path] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    lines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    agreement: dict[str, Any] | None = None

    def value(self, reading: str, key: str = "diffbleu_score@1") -> float:
        """A figure of one reading's run summary (NaN when that run has none)."""
        found = self.summaries.get(reading, {}).get(key)
        return math.nan if found is None else float(found)

    def ran(self, reading: str) -> bool:
        """That reading's runtime edits were run (Correct@1 exists)."""
        return "correct@1" in self.summaries.get(reading, {})

    def judged(self, reading: str) -> bool:
        """That reading's run has the static oracle's verdicts."""
        return "oracle_samples" in self.summaries.get(reading, {})


@dataclass(frozen=True)
class TableSettings:
    """What the command was told: where data and runs live, what runs, how it is timed."""

    out_dir: Path
    data_dir: str | None = None
    executor: Any = None  # an ExecutorChoice, or None for the default
    workers: int | None = None
    run_readings: tuple[str, ...] = ()  # runtime efficiency: the readings whose edits run
    runs: int = 0  # timed runs per case (0: correctness only)
    oracle: bool = False


def run_dir(out_dir: Path, file: PublishedFile, reading: str) -> Path:
    return out_dir / "runs" / file.subset / file.model / file.prompt / reading


def benchmark_for(file: PublishedFile, settings: TableSettings) -> str:
    """The subset's own benchmark when its dataset file is at hand, else the file's rows;
    runtime edits that are run need the dataset (its CodeNet cases): its error stands."""
    from beyondpass.methods.nofuneval.benchmark import PUBLISHED, benchmark_name, subset_path

    runs_code = file.subset == "runtime_efficiency" and bool(settings.run_readings)
    try:
        subset_path(file.subset, settings.data_dir)
    except DataError:
        if runs_code:
            raise
        return f"{PUBLISHED}:{file.path}"
    return benchmark_name(file.subset)


def evaluate_file(
    file: PublishedFile, reading: str, settings: TableSettings, benchmark: str
) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """One reading of one file, evaluated into its run (resumed when it exists): the run's
    folder, and the summary and per-answer lines it exported (``nofuneval score``'s)."""
    from beyondpass.execution import ExecutionLimits
    from beyondpass.methods.nofuneval.files.answer_file import GenerationsFile
    from beyondpass.study.evaluate_samples import evaluate_samples

    run = reading in settings.run_readings
    kind = GenerationsFile.told(
        file.subset,
        "nofuneval" if reading == "compat" else None,
        file.prompt,
        run=run,
        runs=settings.runs,
        oracle=settings.oracle,
        times_dir=str(settings.out_dir) if run else None,
    )
    folder = run_dir(settings.out_dir, file, reading)
    outcome = evaluate_samples(
        benchmark,
        file.path,
        folder,
        data_dir=settings.data_dir,
        limits=ExecutionLimits(),
        workers=settings.workers,
        executor=settings.executor,
        evaluators=kind.add_ons,
        answer_file=kind,
    )
    scores = outcome.summary["scores_path"]
    lines = [obj for _, obj in read_objects(scores, "{...}", "a run's scores")]
    return folder, outcome.summary["nofuneval"], lines


def read_reference(path: Path) -> list[dict[str, Any]]:
    """The authors' values for one file: ``{"row", "diffbleu", "template_followed"}`` lines."""
    example = '{"row": 0, "diffbleu": 0.12, "template_followed": true}'
    return [obj for _, obj in read_objects(path, example, "the authors' values")]


def reference_path(folder: Path, file: PublishedFile) -> Path:
    return folder / file.subset / file.model / f"{file.prompt}.jsonl"


def compare(lines: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows whose compat DiffBLEU and template flag (a compat run's lines) equal the
    authors' (and those that do not)."""
    theirs = {int(x["row"]): x for x in reference}
    differ = []
    for line in lines:
        ref = theirs.get(line["row"])
        ok = (
            ref is not None
            and ref.get("diffbleu") is not None
            and abs(line["diffbleu"] - float(ref["diffbleu"])) <= TOLERANCE
            and bool(line["template_followed"]) == bool(ref["template_followed"])
        )
        if not ok:
            theirs_value = None if ref is None else ref.get("diffbleu")
            differ.append({"row": line["row"], "ours": line["diffbleu"], "theirs": theirs_value})
    return {"rows": len(lines), "equal": len(lines) - len(differ), "differ": differ}


def run_table(
    files: Iterable[PublishedFile],
    settings: TableSettings,
    *,
    reference: Path | None = None,
    progress: Callable[[FileRuns], None] | None = None,
    readings: Sequence[str] = READINGS,
) -> list[FileRuns]:
    """Evaluate every file in each reading (in the given order), then read its runs."""
    results = []
    for file in files:
        found = FileRuns(file)
        benchmark = benchmark_for(file, settings)  # looked up once for both readings
        for reading in readings:
            found.runs[reading], found.summaries[reading], found.lines[reading] = evaluate_file(
                file, reading, settings, benchmark
            )
        if reference is not None and "compat" in found.lines:
            theirs = reference_path(reference, file)
            if theirs.is_file():
                found.agreement = compare(found.lines["compat"], read_reference(theirs))
        results.append(found)
        if progress is not None:
            progress(found)
    return results
