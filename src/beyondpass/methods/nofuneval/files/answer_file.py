"""``nofuneval-generations``: a NoFunEval generations file as a kind of answers file.

``beyondpass nofuneval score`` is ``evaluate`` into a run store with this kind: its options
are what the command was told (subset, compat, prompt, and for runtime efficiency whether
to run the edits and how many timed runs), and they say everything else:

- each generation is an answer row: task = the subset's task of its row, condition = the
  prompt the edits reply to (a ``nofuneval-edit`` condition id; ``""`` when nothing says it
  and the robust reading needs none) or ``classification_<ordering>``; several samples of a
  row are kept apart by their index;
- edits are read by ``nofuneval-edit`` (robust) or ``nofuneval-edit-compat`` (NoFunEval's
  reading, which gets the prompt as the condition); choices by the ``nofuneval-classify``
  evaluator, compat or not;
- the evaluators: ``nofuneval-edit`` (DiffBLEU; runtime rows run in the executor the user
  chose) or ``nofuneval-classify`` decide the verdicts, ``nofuneval-oracle`` adds the static
  oracle on security and maintainability;
- ``scores.jsonl`` and ``summary.json`` are exported from the store (:mod:`exports`), so
  ``rescore`` writes them again.

The prompt the run records is the one resolved from the file (``--prompt``, the folder
name, or the echo), so a rescore reads the file as the first run did.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Benchmark
from beyondpass.errors import ConfigError
from beyondpass.methods.nofuneval.benchmark import ORACLE_SUBSETS, PROMPTS, SUBSETS
from beyondpass.methods.nofuneval.files.exports import write_exports
from beyondpass.methods.nofuneval.files.generations import (
    model_of,
    read_generations,
    resolve_prompt_kind,
)
from beyondpass.models.replay import AnswerRow
from beyondpass.study.answer_files import Answered, AnswerFile

NAME = "nofuneval-generations"
RUNTIME = "runtime_efficiency"


class GenerationsFile(AnswerFile):
    """NoFunEval generations of one subset (see the module docstring)."""

    name = NAME

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        subset = self.options.get("subset")
        if subset not in SUBSETS:
            raise ConfigError(f"unknown subset {subset!r} — choose {', '.join(SUBSETS)}")
        if self.options.get("compat") not in (None, "nofuneval"):
            raise ConfigError(f"compat {self.options['compat']!r}: only 'nofuneval'")
        prompt = self.options.get("prompt")
        if prompt is not None and prompt not in PROMPTS:
            raise ConfigError(f"--prompt {prompt!r}: choose {', '.join(PROMPTS)}")

    @classmethod
    def told(
        cls,
        subset: str,
        compat: str | None,
        prompt: str | None = None,
        run: bool = True,
        runs: int = 25,
        *,
        oracle: bool = True,
        times_dir: str | None = None,
    ) -> GenerationsFile:
        """The kind as ``nofuneval score`` (or ``table1``, per file) is told it; options that
        cannot matter for the subset are left out, so they never make a folder refuse the
        same scoring. ``oracle``: security and maintainability edits are judged by the
        static oracle too; ``times_dir``: where runtime rows' source times are kept (default:
        the run's folder; ``table1`` shares one among its files)."""
        options: dict[str, Any] = {"subset": subset, "compat": compat}
        if subset != "humanevalclassify":
            options["prompt"] = prompt
        if subset == RUNTIME:
            options.update(run=run, runs=runs if run else 0)
            if run and times_dir is not None:
                options["times_dir"] = times_dir
        if subset in ORACLE_SUBSETS and not oracle:
            options["oracle"] = False
        return cls(options)

    @property
    def subset(self) -> str:
        return str(self.options["subset"])

    @property
    def classify(self) -> bool:
        return self.subset == "humanevalclassify"

    @property
    def compat(self) -> str | None:
        return self.options.get("compat")

    @property
    def runs_programs(self) -> bool:
        """Runtime rows are run (and scored for correctness and speed-up)."""
        return self.subset == RUNTIME and bool(self.options.get("run", True))

    @property
    def answer_format(self) -> str | None:
        if self.classify:
            return "nofuneval-choice"
        return "nofuneval-edit-compat" if self.compat else "nofuneval-edit"

    @property
    def add_ons(self) -> tuple[str, ...]:
        """Evaluators that add metrics beside the verdict (``evaluate --evaluator``)."""
        judged = self.subset in ORACLE_SUBSETS and self.options.get("oracle", True)
        return ("nofuneval-oracle",) if judged else ()

    @property
    def evaluator_options(self) -> dict[str, dict[str, Any]]:
        if self.classify:
            return {"nofuneval-classify": {"compat": self.compat}}
        edit: dict[str, Any] = {"compat": self.compat}
        if self.subset == RUNTIME:
            edit.update(run=self.runs_programs, runs=int(self.options.get("runs", 25)))
            if self.options.get("times_dir"):
                edit["times_dir"] = str(self.options["times_dir"])
        out = {"nofuneval-edit": edit}
        if self.add_ons:
            out["nofuneval-oracle"] = {"compat": self.compat}
        return out

    def read(self, path: Path, bench: Benchmark) -> list[AnswerRow]:
        """Every generation as an answer row; the file is validated as a whole first, and
        the prompt resolved (and recorded) before any row is built."""
        gens = read_generations(path, bench, self.classify)
        condition = ""
        if not self.classify:
            kind = resolve_prompt_kind(
                self.options.get("prompt"), path, gens, bench, self.compat is not None
            )
            self.options["prompt"] = kind
            condition = kind or ""
        task_of = {t.metadata["row"]: t.task_id for t in bench.tasks.values()}
        model = model_of(path)
        return [
            AnswerRow(
                line=g.line,
                index=i,
                task_id=task_of[g.row],
                text=g.text,
                field=g.field,
                condition=f"classification_{g.ordering}" if self.classify else condition,
                sample_index=g.sample,
                model=model,
                extra={"row": g.row, "sample": g.sample, "ordering": g.ordering},
            )
            for i, g in enumerate(gens)
        ]

    def export(self, out_dir: Path, bench: Benchmark, lines: list[Answered]) -> dict[str, Any]:
        """``scores.jsonl`` and ``summary.json`` from the stored results (:mod:`exports`)."""
        return write_exports(self, out_dir, bench, lines)
