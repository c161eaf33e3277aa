"""Blind side-by-side human review (the seed's human evaluation phase): a study built from a
run, a small web app for reviewers, and the results (Table 4, agreement, tests)."""

from beyondpass.registry import Method

from .cli import review as REVIEW_COMMAND
from .section import ReviewReportSection

#: stand-alone registration until the comparison method folds these in
REVIEW_METHOD = Method(
    name="review",
    description="blind side-by-side human review of two models' solutions",
    extra="review",
    commands=("beyondpass.methods.comparison.review.cli:review",),
    report_sections=("beyondpass.methods.comparison.review.section:ReviewReportSection",),
)

__all__ = ["REVIEW_COMMAND", "REVIEW_METHOD", "ReviewReportSection"]
