"""Run a study from Python: what ``beyondpass run`` does, as a function.

:func:`run` is the command's whole mechanism (``beyondpass run`` parses its options, calls it
and prints the result): the same :class:`~beyondpass.study.runner.StudyRunner`, run store,
response cache and resume. Calling it again with the same study and ``out`` resumes the run:
stored samples are never asked again, stored scores never recomputed, and answers already in
the response cache are not paid for twice. :func:`cost` is ``run --dry-run``: what a run
would ask, before anything is sent or written.

A study is a study file (or a built-in study's name, ``"profile"``), the same tables as a
``dict`` (relative paths then relative to the working directory), or a loaded
:class:`~beyondpass.study.config.StudyConfig` (:func:`load_study`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from beyondpass.api.executors import executor_choice
from beyondpass.errors import EXIT_INCOMPLETE, EXIT_MODEL_FAILED, ConfigError
from beyondpass.study.config import StudyConfig, resolve_study_path, study_from_dict
from beyondpass.study.config import load_study as _load_file
from beyondpass.study.progress import Progress

if TYPE_CHECKING:
    from beyondpass.analysis.summary import GroupSummary
    from beyondpass.api.runs import Run
    from beyondpass.models.cache import ResponseCache
    from beyondpass.report.model import ReportPaths
    from beyondpass.study.cost import Cost

PathLike = str | os.PathLike[str]
StudyLike = PathLike | Mapping[str, Any] | StudyConfig

#: what a study given as a ``dict`` is called where a file's path would be (errors, metadata)
DICT_STUDY = "<study dict>"


@dataclass(frozen=True)
class ResolvedStudy:
    """A study ready to run, and whether it is a built-in one (a name, not a file here)."""

    config: StudyConfig
    builtin: bool = False


def resolve(study: StudyLike, models: Sequence[str] | str = ()) -> ResolvedStudy:
    """The study ``study`` names, its models replaced by ``models`` when any are given (as
    ``--model`` does; a relative ``replay:`` path in them is relative to the working
    directory)."""
    extra = _models(models)
    if isinstance(study, StudyConfig):
        if extra:
            raise ConfigError(
                "models= replaces the models of a study file or dict; a loaded StudyConfig "
                "is run as it is — pass the file, or load it with load_study(path, models=...)"
            )
        return ResolvedStudy(study)
    if isinstance(study, Mapping):
        return ResolvedStudy(study_from_dict(_plain(study), Path.cwd() / DICT_STUDY, extra))
    if not isinstance(study, str | os.PathLike):
        raise ConfigError(
            f"a study is a study file's path, a built-in study's name, a dict or a "
            f"StudyConfig, not {type(study).__name__}"
        )
    path, builtin = resolve_study_path(study)
    return ResolvedStudy(_load_file(path, extra), builtin)


def load_study(study: StudyLike, models: Sequence[str] | str = ()) -> StudyConfig:
    """The study's design, checked (benchmarks, models, prompts, evaluators), without running
    anything: to look at before :func:`run`, or to run as it is."""
    return resolve(study, models).config


def default_run_dir(config: StudyConfig, out: PathLike | None = None) -> Path:
    """``out``, else ``./runs/<study name>`` (where ``beyondpass run`` writes)."""
    return Path(out) if out is not None else Path.cwd() / "runs" / config.name


@dataclass
class RunResult:
    """What a :func:`run` did: how far it got, each group's pass@k, the report written."""

    run_dir: Path
    complete: bool
    samples_expected: int
    samples_scored: int
    failures: list[str] = field(default_factory=list)
    #: one per benchmark x model x condition (pass@k with the pass@1 CI, status counts)
    groups: list[GroupSummary] = field(default_factory=list)
    report: ReportPaths | None = None

    @property
    def exit_code(self) -> int:
        """``beyondpass run``'s exit code: 0 done, 1 incomplete, 3 a model endpoint failed."""
        if self.failures:
            return EXIT_MODEL_FAILED
        return 0 if self.complete else EXIT_INCOMPLETE

    def open(self) -> Run:
        """The run directory as :func:`beyondpass.open_run` reads it."""
        from beyondpass.api.runs import open_run

        return open_run(self.run_dir)

    def as_dict(self) -> dict[str, Any]:
        """The summary ``beyondpass run --json`` prints."""
        paths = self.report
        return {
            "run_dir": str(self.run_dir),
            "complete": self.complete,
            "samples_expected": self.samples_expected,
            "samples_scored": self.samples_scored,
            "failures": list(self.failures),
            "groups": [
                {
                    "benchmark": g.benchmark,
                    "model": g.model,
                    "condition": g.condition,
                    "n_tasks": g.n_tasks,
                    "n_samples": g.n_samples,
                    "n_evaluated": g.n_evaluated,
                    **{f"pass@{k}": v for k, v in g.pass_at.items()},
                    "pass@1_ci95": list(g.pass1_ci),
                    "status_counts": g.status_counts,
                    "truncated": g.truncated,
                }
                for g in self.groups
            ],
            "report_markdown": str(paths.markdown) if paths else None,
            "report_html": str(paths.html) if paths else None,
            "report_latex": str(paths.latex) if paths and paths.latex else None,
        }


def run(
    study: StudyLike,
    *,
    models: Sequence[str] | str = (),
    out: PathLike | None = None,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    cache: bool = True,
    workers: int | None = None,
    report: bool = True,
    executor: str | None = None,
    isolation: str | None = None,
    process_budget: str | None = None,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Run ``study`` (benchmarks x models x prompt conditions) into ``out``; see the module
    docstring. A model endpoint that fails stops only that model: the result lists it in
    ``failures`` (what was done is stored; call again to resume)."""
    from beyondpass.study.runner import StudyRunner

    config = resolve(study, models).config
    _check_workers(workers)
    run_dir = default_run_dir(config, out)
    choice = executor_choice(executor, isolation, ray_address, config.executor, process_budget)
    with _response_cache(cache_dir, cache, create=True) as responses:
        outcome = StudyRunner(
            config,
            run_dir,
            data_dir=_str(data_dir),
            cache=responses,
            progress=progress,
            workers=workers,
            executor=choice,
        ).run()
    paths = None
    if report and outcome.summaries:
        from beyondpass.report import render_report

        paths = render_report(run_dir, seed=config.seed)
    return RunResult(
        run_dir=run_dir,
        complete=outcome.complete,
        samples_expected=outcome.expected,
        samples_scored=outcome.scored,
        failures=list(outcome.failures),
        groups=list(outcome.summaries),
        report=paths,
    )


def cost(
    study: StudyLike,
    *,
    models: Sequence[str] | str = (),
    out: PathLike | None = None,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    cache: bool = True,
) -> Cost:
    """What :func:`run` would ask with the same arguments, before anything is asked or
    written: per model, benchmark and condition, the requests, an estimate of their prompt
    tokens, and what ``out`` already stores or the response cache answers."""
    from beyondpass.study.cost import study_cost
    from beyondpass.study.runner import StudyRunner

    config = resolve(study, models).config
    run_dir = default_run_dir(config, out)
    with _response_cache(cache_dir, cache, create=False) as responses:
        return study_cost(StudyRunner(config, run_dir, data_dir=_str(data_dir)), responses)


@contextmanager
def _response_cache(
    cache_dir: PathLike | None, enabled: bool, *, create: bool
) -> Iterator[ResponseCache | None]:
    """The response cache (``cache_dir``, else ``$BEYONDPASS_CACHE_DIR`` or
    ``~/.cache/beyondpass``), closed afterwards; none when disabled, or when it does not
    exist yet and must not be made (a cost estimate writes nothing)."""
    from beyondpass.models.cache import CACHE_FILENAME, ResponseCache, default_cache_path

    path = Path(cache_dir) / CACHE_FILENAME if cache_dir is not None else default_cache_path()
    if not enabled or (not create and not path.is_file()):
        yield None
        return
    responses = ResponseCache(path)
    try:
        yield responses
    finally:
        responses.close()


def _models(models: Sequence[str] | str) -> list[str] | None:
    """``models`` as the list ``load_study`` takes (a lone spec is one model, not letters)."""
    listed = [models] if isinstance(models, str) else list(models)
    for spec in listed:
        if not isinstance(spec, str) or not spec.strip():
            raise ConfigError(f"a model is a spec such as 'openai:gpt-4o-mini', not {spec!r}")
    return listed or None


def _plain(study: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a study dict holding only what a TOML file can (it is recorded in the run)."""
    try:
        return dict(json.loads(json.dumps(study)))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{DICT_STUDY}: a study holds strings, numbers, booleans, lists and tables only ({exc})"
        ) from None


def _check_workers(workers: int | None) -> None:
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ConfigError(f"workers must be a whole number of at least 1, not {workers!r}")


def _str(path: PathLike | None) -> str | None:
    return None if path is None else os.fspath(path)


__all__ = [
    "DICT_STUDY",
    "ResolvedStudy",
    "RunResult",
    "StudyLike",
    "cost",
    "default_run_dir",
    "load_study",
    "resolve",
    "run",
]
