"""The paper's CPR/TPR table regenerated from the authors' recorded first-round outcomes
(the ``compat`` reading), cell by cell beside the paper's value.

A cell is the share of a setting's answers that built (CPR) or passed the project's tests
(TPR), in percent, over every answer of the file (an answer without code counts as a
failure, as in the paper). Every file and sheet that holds the setting's answers of a model
is one reading; the cell equals the paper when one reading does, and the others are shown
with it. The baselines "Original (Structure)" and "Original (Semantic)" are the original
setting's answers to the functions of the obfuscated subset. Where no reading equals the
paper, the row says what the counts show: the count the paper's percentage implies, or
that it is no count of the answers at all.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from beyondpass.methods.obfuseval.analysis import decrease_ratio, rank_stability
from beyondpass.methods.obfuseval.published import answers as recorded
from beyondpass.methods.obfuseval.published import paper, tasks
from beyondpass.methods.obfuseval.published import settings as names

METRICS = ("CPR", "TPR")


@dataclass(frozen=True)
class Reading:
    """One file's (and sheet's) count of one cell."""

    reading: str
    n: int
    count: int

    @property
    def percent(self) -> float:
        return 100.0 * self.count / self.n if self.n else 0.0


@dataclass(frozen=True)
class Cell:
    project: str
    scenario: str
    column: str  # the paper's label: "Symbol", "Original (Structure)", ...
    metric: str  # CPR | TPR
    model: str  # the paper's label
    paper: float | None
    readings: tuple[Reading, ...]
    missing: str = ""  # why there is no reading, when there is none

    @property
    def equal(self) -> Reading | None:
        """The reading that gives the paper's value (to its one decimal), if any."""
        if self.paper is None:
            return None
        return next((r for r in self.readings if round(r.percent, 1) == self.paper), None)

    @property
    def compat(self) -> Reading | None:
        """The reading shown: the one equal to the paper, else the first."""
        return self.equal or (self.readings[0] if self.readings else None)

    def why(self) -> str:
        """What the counts say about a cell that differs (empty when equal)."""
        if not self.readings:
            return self.missing
        if self.equal is not None or self.paper is None:
            return ""
        n = self.readings[0].n
        implied = self.paper * n / 100
        same = next((r for r in self.readings if r.count == round(implied)), None)
        if same is not None and abs(implied - round(implied)) <= 0.06:
            return (
                f"the same count, {same.count} of {n} ({same.percent:.2f} %): the paper's "
                f"figure is rounded otherwise"
            )
        if abs(implied - round(implied)) > 0.06:
            return f"{self.paper} is no count of the {n} answers (nearest {round(implied)}/{n})"
        counts = ", ".join(f"{r.count}" for r in self.readings)
        return f"the paper counts {round(implied)} of {n}; the files count {counts}"


def _key(source_file: str, function: str) -> tuple[str, str]:
    """A function as the subsets name it: its file's base name and its name (a project
    has static functions of one name in several files)."""
    return Path(source_file).name, function


def _counts(answers: list[recorded.RecordedAnswer], metric: str, keep: set | None) -> dict:
    """reading -> Reading, over the answers to the functions in ``keep`` (all when None)."""
    by_reading: dict[str, list[recorded.RecordedAnswer]] = defaultdict(list)
    for answer in answers:
        if keep is None or _key(answer.source_file, answer.function) in keep:
            by_reading[answer.reading].append(answer)
    return {
        reading: Reading(
            reading,
            len(group),
            sum(a.compiled if metric == "CPR" else a.passed for a in group),
        )
        for reading, group in by_reading.items()
    }


@lru_cache(maxsize=64)
def _setting_answers(root: Path, project: names.Project, setting: names.Setting) -> dict:
    """paper model label -> the setting's recorded answers of that model (read once: the
    cells and the rankings both ask; callers only read it)."""
    listed = tasks.load(root, project, setting)
    labels = {name: label for _, name, label in names.MODELS}
    found: dict[str, list] = defaultdict(list)
    for path, model in recorded.answer_files(root, project, setting):
        found[labels[model]] += recorded.read(path, model, project, setting, listed)
    return found


def cells(root: Path, projects: list[names.Project]) -> list[Cell]:
    """Every cell of the paper's two tables for ``projects``, in the paper's order."""
    published = paper.cells(root)
    rows: list[Cell] = []
    for project in projects:
        for scenario in (names.GENERATION, names.COMPLETION):
            chosen = [s for s in names.SETTINGS if s.scenario == scenario]
            original = next(s for s in chosen if s.name == "original")
            by_setting = {s.key: _setting_answers(root, project, s) for s in chosen}
            columns: list[tuple[str, names.Setting, set | None]] = []
            for setting in chosen:
                if setting.baseline is not None and setting.name in ("structure", "semantic"):
                    subset = {
                        _key(t.source_file, t.function) for t in tasks.load(root, project, setting)
                    }
                    columns.append((setting.baseline, original, subset))
                columns.append((setting.paper, setting, None))
            for column, setting, keep in columns:
                for _, _, model in names.MODELS:
                    answers = by_setting[setting.key].get(model, [])
                    for metric in METRICS:
                        found = _counts(answers, metric, keep)
                        missing = (
                            "no published answer file of this model"
                            if not answers
                            else "the original setting's published answers hold none of the "
                            "subset's functions"
                        )
                        rows.append(
                            Cell(
                                project.name,
                                scenario,
                                column,
                                metric,
                                model,
                                published.get(
                                    (scenario, project.paper, model, f"{column} {metric}")
                                ),
                                tuple(found[r] for r in sorted(found)),
                                missing,
                            )  # fmt: skip
                        )
    return rows


def _passes(answers: list, reading: str | None) -> dict[tuple[str, str], bool]:
    """function -> passed, over one reading's answers (functions named twice are left out:
    their answers cannot be told apart across settings)."""
    chosen = [a for a in answers if reading is None or a.reading == reading]
    keys = [_key(a.source_file, a.function) for a in chosen]
    twice = {k for k in keys if keys.count(k) > 1}
    return {k: a.passed for k, a in zip(keys, chosen, strict=True) if k not in twice}


def rankings(
    root: Path, projects: list[names.Project], rows: list[Cell], seed: int = 0
) -> list[dict]:
    """Whether obfuscation keeps the models' order: Kendall tau between the four models'
    TPR rankings on the original setting and on each obfuscated one, over the functions both
    hold, with a percentile bootstrap CI over functions (``obfuseval decrease``'s
    measure), from the readings the table shows."""
    shown = {
        (c.project, c.scenario, c.column, c.model): c.compat for c in rows if c.metric == "TPR"
    }
    found = []
    for project in projects:
        for scenario in (names.GENERATION, names.COMPLETION):
            chosen = [s for s in names.SETTINGS if s.scenario == scenario]
            by_setting = {s.key: _setting_answers(root, project, s) for s in chosen}
            original = next(s for s in chosen if s.name == "original")
            for setting in chosen:
                if setting is original:
                    continue
                before, after = {}, {}
                for _, _, model in names.MODELS:
                    left = shown.get((project.name, scenario, "Original", model))
                    right = shown.get((project.name, scenario, setting.paper, model))
                    if left is None or right is None:
                        break
                    before[model] = _passes(by_setting[original.key].get(model, []), left.reading)
                    after[model] = _passes(by_setting[setting.key].get(model, []), right.reading)
                else:
                    try:
                        stability = rank_stability(before, after, seed=seed, resamples=1000)
                    except ValueError as exc:
                        stability = {"tau": None, "why": str(exc)}
                    found.append(
                        {"project": project.name, "scenario": scenario, "setting": setting.paper,
                         **stability}
                    )  # fmt: skip
    return found


def decreases(rows: list[Cell]) -> list[dict]:
    """The decrease ratio of TPR from each obfuscated column to its original, compat and
    paper (the paper's ``dec`` columns: ``1 - obfuscated / original``)."""
    index = {(c.project, c.scenario, c.column, c.metric, c.model): c for c in rows}
    baseline_of = {s.paper: s.baseline or "Original" for s in names.SETTINGS}
    found = []
    for cell in rows:
        if cell.column.startswith("Original"):
            continue
        base = index.get(
            (cell.project, cell.scenario, baseline_of[cell.column], cell.metric, cell.model)
        )
        if base is None:
            continue
        ours = (
            decrease_ratio(base.compat.percent, cell.compat.percent)
            if base.compat and cell.compat
            else None
        )
        theirs = (
            decrease_ratio(base.paper, cell.paper)
            if base.paper is not None and cell.paper is not None
            else None
        )
        found.append(
            {
                "project": cell.project,
                "scenario": cell.scenario,
                "column": cell.column,
                "metric": cell.metric,
                "model": cell.model,
                "compat": ours,
                "paper": theirs,
            }  # fmt: skip
        )
    return found
