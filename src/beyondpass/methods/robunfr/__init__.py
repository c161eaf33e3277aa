"""RobuNFR (seed 000): NFR-aware prompt variation and its metrics.

Brings the ``robunfr`` prompt plan (Table 1 templates, Function-Only / NFR-Integrated /
NFR-Enhanced workflows), the ``nfr`` evaluator (pylint smells and readability, exception
handling, LOC; execution time comes from the functional verdict's timed re-runs), the
RobuNFR report section, the ``prompts`` command and the built-in ``robunfr`` study. It uses
the shared HumanEval/MBPP benchmarks. This module only declares; nothing heavy is imported.
"""

from beyondpass.registry import EvaluatorSpec, HeadlineSpec, Method, Metric, PlanSpec

_HERE = "beyondpass.methods.robunfr"
_PER_10 = "per 10 LOC"

#: the static metrics the ``nfr`` evaluator adds to a result, in report order
NFR_METRICS = (
    "loc",
    "pylint_refactor",
    "pylint_convention",
    "exception_handling",
    "smell_density",
    "unreadability_density",
    "exception_density",
)
TIMING_REPEATS = 5  # performance: the seed runs each test five times and takes the mean
#: what ``evaluate --nfr`` adds to each results.jsonl line, besides ``code``: the static
#: metrics, then the functional verdict's execution time (tests timed 5 times each)
NFR_FIELDS = (*NFR_METRICS, "exec_time_ms", "exec_time_stdev_ms", "exec_time_ref")

METHOD = Method(
    name="robunfr",
    description="RobuNFR: NFR-aware prompts (Table 1) and NFR metrics (pylint, exceptions, time)",
    plans=(
        PlanSpec(
            "robunfr",
            f"{_HERE}.prompts:plan_from_prompts_table",
            "Function-Only vs NFR-Integrated and NFR-Enhanced prompts, 10 variants per NFR",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            "nfr",
            f"{_HERE}.evaluation:nfr_evaluator",
            options=f"{_HERE}.evaluation:NfrOptions",
            metrics=(
                Metric("loc", "lines", "none", "mean", "physical lines of code"),
                Metric("pylint_refactor", "messages", "lower", "mean", "pylint R messages"),
                Metric("pylint_convention", "messages", "lower", "mean", "pylint C messages"),
                Metric("exception_handling", "statements", "higher", "mean"),
                Metric("smell_density", _PER_10, "lower", "mean", "code design"),
                Metric("unreadability_density", _PER_10, "lower", "mean", "readability"),
                Metric("exception_density", _PER_10, "higher", "mean", "reliability"),
            ),
            verdict_options={"timing_repeats": TIMING_REPEATS},
            result_fields=NFR_FIELDS,
            summary=f"{_HERE}.evaluation:nfr_summary",
            label="NFR",
            cli_flag="nfr",
            cli_help="Add RobuNFR metrics (pylint smells/readability, exception handling, LOC, "
            "execution time over 5 timed runs per test) to every results.jsonl line.",
            description="RobuNFR static metrics (docs/nfr-metrics.md)",
        ),
    ),
    headlines=tuple(
        HeadlineSpec(metric, label, direction, unit, "task", f"{_HERE}.headline:{metric}", text)
        for metric, label, direction, unit, text in (
            ("smell_density", "code smell", "lower", "density", "pylint findings per 10 LOC"),
            (
                "unreadability_density",
                "unreadability",
                "lower",
                "density",
                "readability findings per 10 LOC",
            ),
            (
                "exception_density",
                "exception-handling",
                "higher",
                "density",
                "exception handling per 10 LOC",
            ),
            ("exec_time_ms", "execution time", "lower", "ms", "passing samples' test time"),
        )
    ),
    report_sections=(f"{_HERE}.report.section:RobunfrReportSection",),
    analysis_metrics=f"{_HERE}.analysis.metrics:METRICS",
    compare_sections=(f"{_HERE}.report.compare:RobunfrVersionComparison",),
    commands=(f"{_HERE}.cli:prompts",),
    studies=f"{_HERE}.studies",
)
