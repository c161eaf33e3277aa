"""Technical quality of an answer's code: LLOC, NOS, McCabe, nesting level; this module
computes them for Python and dispatches C++ and Java to ``quality_clike``.

Definitions (docs/psb2.md), computed on the code the model wrote (never on our
driver):

- ``lloc``: logical lines of code, radon's count (a statement per logical line; blank and
  comment lines excluded, a docstring counts as one).
- ``nos``: number of statements, every ``ast.stmt`` node (a compound statement counts once,
  and so does each statement in its bodies).
- ``mccabe``: McCabe complexity of the whole program, radon's total: 1 + every decision
  point (``if``/``elif``, loops, ``except``, boolean operators, comprehension ``for``/``if``,
  ...) in the module and all its functions.
- ``nesting``: the deepest nesting of control blocks (``if``, ``for``, ``while``, ``with``,
  ``try``, ``match``); a function or class body starts again at 0; an ``elif`` (an ``if``
  that is the only statement of an ``else``) stays on its ``if``'s level (Python's syntax
  tree cannot tell ``elif x:`` from ``else:`` holding only ``if x:``; both count so).

C++ and Java answers get the same four metrics from ``quality_clike`` (lizard and
tree-sitter). Code smells by rule and severity are ``smells.py``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import pydantic

from beyondpass.errors import ConfigError
from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator, OnEvaluation
from beyondpass.execution import BatchContext, BatchJob, BatchPool, LocalPool
from beyondpass.methods.psb2.quality_clike import GRAMMARS, clike_quality

METRICS = ("lloc", "nos", "mccabe", "nesting")
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def nesting_level(tree: ast.AST) -> int:
    """The deepest control-block nesting (see the module docstring)."""

    def depth(node: ast.AST, level: int, elif_of_parent: bool = False) -> int:
        deepest = level
        if isinstance(node, _SCOPES):
            level = 0
        elif isinstance(node, _BLOCKS) and not elif_of_parent:
            level += 1
            deepest = max(deepest, level)
        for name, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                is_elif = (
                    isinstance(node, ast.If)
                    and name == "orelse"
                    and len(node.orelse) == 1
                    and isinstance(child, ast.If)
                )
                deepest = max(deepest, depth(child, level, is_elif))
        return deepest

    return depth(tree, 0)


def python_quality(code: str) -> dict[str, int]:
    """The four metrics of ``code``; ``SyntaxError`` when it does not parse."""
    try:
        from radon.raw import analyze
        from radon.visitors import ComplexityVisitor
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ConfigError(
            f"quality metrics need radon ({exc.name} is missing) — pip install 'beyondpass[psb2]'"
        ) from None
    tree = ast.parse(code)
    return {
        "lloc": analyze(code).lloc,
        "nos": sum(isinstance(n, ast.stmt) for n in ast.walk(tree)),
        "mccabe": ComplexityVisitor.from_code(code).total_complexity,
        "nesting": nesting_level(tree),
    }


class QualityOptions(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


def quality_batch(_: None, items: list[tuple[str, str]], ctx: BatchContext) -> list[Evaluation]:
    """The batch function of the quality job (:mod:`beyondpass.execution.pool`): the
    metrics of every ``(code, language)``, or why there are none."""
    out = []
    for i, (code, language) in enumerate(items):
        ev = Evaluation()
        try:
            metrics = (
                python_quality(code) if language == "python" else clike_quality(code, language)
            )
            ev.metrics = dict(metrics)
        except (SyntaxError, ValueError) as exc:
            ev.details = {"quality": f"not analysed: {type(exc).__name__}"}
        if ctx.emit is not None:
            ctx.emit(i, ev)
        out.append(ev)
    return out


#: the quality metrics as batch work; radon, lizard and tree-sitter are Python packages
QUALITY_JOB = BatchJob(
    quality_batch,
    None,
    "PSB2 quality metrics",
    modules=("radon", "lizard", "tree_sitter", "tree_sitter_cpp", "tree_sitter_java"),
    batch_size=128,
)


class QualityEvaluator(Evaluator):
    """Adds ``lloc``, ``nos``, ``mccabe``, ``nesting`` for Python, C++ and Java answers, on
    the run's batch pool (in this process, or on Ray)."""

    name = "psb2-quality"
    metrics = METRICS

    def __init__(self, pool: BatchPool | None = None) -> None:
        self.pool = pool or LocalPool()

    @classmethod
    def build(cls, options: QualityOptions | None, ctx: Any) -> QualityEvaluator:
        python_quality("x = 1\n")  # a missing radon is one line now, not per sample
        return cls(getattr(ctx, "pool", None))

    def metadata(self) -> dict[str, Any]:
        import radon

        from beyondpass.methods.psb2.quality_clike import tool_versions

        return {"evaluator": self.name, "radon": radon.__version__, **tool_versions()}

    def evaluate(
        self, candidates: Sequence[Candidate], on_result: OnEvaluation | None = None
    ) -> list[Evaluation]:
        out = [Evaluation() for _ in candidates]
        todo: list[int] = []
        for i, cand in enumerate(candidates):
            language = cand.task.language
            if language not in ("python", *GRAMMARS):
                out[i].details = {"quality": f"no {language} analyser in this build"}
            elif cand.extraction.code.strip():
                todo.append(i)
                continue
            if on_result is not None:
                on_result(i, out[i])

        def done(k: int, ev: Evaluation) -> None:
            out[todo[k]] = ev
            if on_result is not None:
                on_result(todo[k], ev)

        items = [(candidates[i].extraction.code, candidates[i].task.language) for i in todo]
        self.pool.map(QUALITY_JOB, items, done)
        return out
