"""Score answers made elsewhere from Python: what ``beyondpass evaluate`` does, as a function.

:func:`evaluate` is the command's whole mechanism (``beyondpass evaluate`` parses its options,
calls it and prints the summary): the answers file is validated whole before anything is
written, scoring goes through a run store in ``out`` (calling again resumes: a scored answer
is never scored again), and ``out/results.jsonl`` holds one line per input line, in order
(:mod:`beyondpass.study.evaluate_samples`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from beyondpass.api.executors import executor_choice
from beyondpass.errors import ConfigError
from beyondpass.study.progress import Progress

if TYPE_CHECKING:
    from beyondpass.api.runs import Run

PathLike = str | os.PathLike[str]

#: seconds each answer may run by default (``evaluate --timeout``)
DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class EvaluateResult:
    """What an :func:`evaluate` found: the summary ``evaluate --json`` prints, and where
    its results are."""

    summary: dict[str, Any]
    results_path: Path
    run_dir: Path

    @property
    def pass_at(self) -> dict[int, float]:
        """pass@k over tasks, for every k the samples allow (``{1: 0.75}``)."""
        return {
            int(k.split("@", 1)[1]): float(v)
            for k, v in self.summary.items()
            if k.startswith("pass@") and v is not None
        }

    @property
    def status_counts(self) -> dict[str, int]:
        return dict(self.summary.get("status_counts", {}))

    def open(self) -> Run:
        """The run directory as :func:`beyondpass.open_run` reads it."""
        from beyondpass.api.runs import open_run

        return open_run(self.run_dir)

    def as_dict(self) -> dict[str, Any]:
        """The summary ``beyondpass evaluate --json`` prints."""
        return dict(self.summary)


def default_out_dir(benchmark: str, samples: PathLike) -> Path:
    """``./beyondpass-eval/<answers file stem>-<benchmark>`` (where ``evaluate`` writes)."""
    return Path.cwd() / "beyondpass-eval" / f"{Path(samples).stem}-{benchmark}"


def evaluate(
    benchmark: str,
    samples: PathLike,
    *,
    out: PathLike | None = None,
    data_dir: PathLike | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    workers: int | None = None,
    skip_unknown_tasks: bool = False,
    answer_format: str | None = None,
    evaluators: Sequence[str] | str = (),
    executor: str | None = None,
    isolation: str | None = None,
    process_budget: str | None = None,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> EvaluateResult:
    """Score every line of the answers file ``samples`` (``completion``, ``solution`` or
    ``response`` per line) against ``benchmark``'s tests, into ``out``.

    ``evaluators`` adds metrics (``"nfr"``: RobuNFR's); ``skip_unknown_tasks`` marks lines
    whose task the benchmark lacks ``skipped`` instead of refusing the file;
    ``answer_format`` says how answers are read (default: the benchmark's).
    """
    from beyondpass.execution import ExecutionLimits
    from beyondpass.study.answer_files import AnswerFile
    from beyondpass.study.evaluate_samples import evaluate_samples

    if not isinstance(benchmark, str) or not benchmark.strip():
        raise ConfigError(f"a benchmark is a name such as 'humaneval', not {benchmark!r}")
    if isinstance(timeout, bool) or not (
        isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0
    ):
        raise ConfigError(f"timeout is seconds per sample, more than 0, not {timeout!r}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ConfigError(f"workers must be a whole number of at least 1, not {workers!r}")
    names = [evaluators] if isinstance(evaluators, str) else list(evaluators)
    out_dir = Path(out) if out is not None else default_out_dir(benchmark, samples)
    outcome = evaluate_samples(
        benchmark,
        samples,
        out_dir,
        data_dir=None if data_dir is None else os.fspath(data_dir),
        limits=ExecutionLimits(timeout_s=float(timeout)),
        workers=workers,
        executor=executor_choice(executor, isolation, ray_address, process_budget=process_budget),
        skip_unknown_tasks=skip_unknown_tasks,
        evaluators=tuple(dict.fromkeys(names)),
        answer_file=AnswerFile({"answer_format": answer_format} if answer_format else None),
        progress=progress,
    )
    return EvaluateResult(outcome.summary, outcome.results_path, out_dir)


__all__ = ["DEFAULT_TIMEOUT_S", "EvaluateResult", "default_out_dir", "evaluate"]
