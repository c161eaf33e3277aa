"""ObfusEval (seed 003): contamination-resistant scores by verified obfuscation.

Brings the ``obfuscate`` benchmark transform (symbol, structure and semantic levels with
libcst, every variant verified by execution) and the ``obfuscate`` command. Declarations only.
"""

from beyondpass.registry import (
    BenchmarkSpec,
    EvaluatorSpec,
    HeadlineSpec,
    Method,
    Metric,
    PlanSpec,
    TransformSpec,
)

_HERE = "beyondpass.methods.obfuseval"
_PROJECT = f"{_HERE}.project"

METHOD = Method(
    name="obfuseval",
    description="ObfusEval: tasks renamed consistently, each variant verified by execution",
    extra="obfuseval",
    requires=("libcst",),
    transforms=(
        TransformSpec(
            "obfuscate",
            f"{_HERE}.transform:apply",
            options=f"{_HERE}.transform:ObfuscateOptions",
            description="symbol/structure/semantic obfuscation, verified by execution",
            runs_code=True,  # the verification: on the run's executor
        ),
    ),
    benchmarks=(
        BenchmarkSpec(
            "obfuseval-project",
            f"{_PROJECT}.benchmark:load",
            description="project mode: a prepared project, by content (obfuseval project run)",
            takes_argument=True,
        ),
    ),
    plans=(
        PlanSpec(
            "obfuseval-project",
            f"{_PROJECT}.benchmark:project_plan",
            description="project mode: the original and the obfuscated prompt",
            answer_format="fenced-code",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            "obfuseval-project",
            f"{_PROJECT}.evaluator:build",
            options=f"{_PROJECT}.evaluator:ProjectOptions",
            decides_verdict=True,
            description="splice into the project, import check (CPR), covering tests (TPR)",
            metrics=(
                Metric("compiled", "", "higher", "rate", "the module imported (CPR)"),
                Metric("tests_run", "tests", "none", "sum", "covering tests run"),
                Metric("tests_failing", "tests", "lower", "sum", "covering tests failing"),
                Metric(
                    "dropped_statements",
                    "statements",
                    "lower",
                    "sum",
                    "statements of the answer the splice left out",
                ),
            ),
        ),
    ),
    commands=(f"{_HERE}.cli:obfuscate", f"{_HERE}.cli:obfuseval"),
    headlines=(
        HeadlineSpec(
            "robust_pass@1",
            "robust pass@1",
            "higher",
            "share",
            "task",
            f"{_HERE}.headline:robust_pass",
            "a sample counts when it passes on every obfuscated variant of its task",
        ),
    ),
    report_sections=(
        f"{_HERE}.report:ObfuscationSection",
        f"{_PROJECT}.report:ProjectSection",
    ),
    studies=f"{_HERE}.studies",
)
