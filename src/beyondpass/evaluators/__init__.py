"""Evaluators score candidates: functional (execution), static, diff-based, human."""

from beyondpass.evaluators.base import Candidate, Evaluation, Evaluator
from beyondpass.evaluators.functional import FunctionalEvaluator

__all__ = ["Candidate", "Evaluation", "Evaluator", "FunctionalEvaluator"]
