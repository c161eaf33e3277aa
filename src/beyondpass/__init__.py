"""beyondpass: measure how well LLMs write code beyond passing tests.

The package layout follows the evaluation pipeline:

    benchmarks -> prompts (plan) -> models -> extraction -> evaluators (execution)
    -> store -> analysis -> report

``study`` wires the stages together; ``cli`` exposes them as commands; ``api`` is the same
work as Python functions (docs/python-api.md)::

    import beyondpass

    result = beyondpass.run("my-study.toml", models=["openai:gpt-4o-mini"], out="runs/a")
    run = beyondpass.open_run("runs/a")
    run.headlines()                 # every method's headline metrics, with 95% CIs
    run.to_pandas()                 # one row per sample (pip install 'beyondpass[pandas]')
    beyondpass.compare("runs/a", "runs/b", fail_on=["pass@1:-2pp"]).passed

The names in :data:`__all__` are the stable surface. They are imported on first use, so
``import beyondpass`` stays light: it loads none of the pipeline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name -> the module that defines it (imported when the name is first used)
_LAZY = {
    "open_run": "beyondpass.api.runs",
    "Run": "beyondpass.api.runs",
    "RunDesign": "beyondpass.api.runs",
    "RunRow": "beyondpass.api.runs",
    "EvaluationRow": "beyondpass.api.runs",
    "Headline": "beyondpass.api.runs",
    "run": "beyondpass.api.studies",
    "cost": "beyondpass.api.studies",
    "load_study": "beyondpass.api.studies",
    "RunResult": "beyondpass.api.studies",
    "evaluate": "beyondpass.api.evaluations",
    "EvaluateResult": "beyondpass.api.evaluations",
    "compare": "beyondpass.api.comparisons",
    "ComparisonResult": "beyondpass.api.comparisons",
}

__all__ = [
    "ComparisonResult",
    "EvaluateResult",
    "EvaluationRow",
    "Headline",
    "Run",
    "RunDesign",
    "RunResult",
    "RunRow",
    "__version__",
    "compare",
    "cost",
    "evaluate",
    "load_study",
    "open_run",
    "run",
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time, __getattr__ below
    from beyondpass.api.comparisons import ComparisonResult, compare
    from beyondpass.api.evaluations import EvaluateResult, evaluate
    from beyondpass.api.runs import EvaluationRow, Headline, Run, RunDesign, RunRow, open_run
    from beyondpass.api.studies import RunResult, cost, load_study, run


def __getattr__(name: str) -> Any:
    """Import a name of the API on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'beyondpass' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later uses skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
